// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t90.ptx
// RUN: FileCheck %s < %t90.ptx
// RUN: %ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
//
// tile.reg.rcp and tile.reg.lg2 as an attention epilogue uses them: log2 l and 1 / l of a row value, one
// lg2.approx.ftz.f32 and one rcp.approx.ftz.f32 a thread, then O * (1 / l) on each column.

// CHECK-LABEL: .entry reg_rcp(
// CHECK: lg2.approx.ftz.f32
// CHECK: rcp.approx.ftz.f32
// CHECK-NOT: rcp.approx
// CHECK: ret;
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 128x4xf32>, %L: !tile.buffer<global, 128x1xf32>, %O: !tile.buffer<global, 128x4xf32>):
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">
  %l = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy"(%a, %A) {scope = "warpgroup"} : (!tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<global, 128x4xf32>) -> ()
  "tile.copy"(%l, %L) {scope = "warpgroup"} : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<global, 128x1xf32>) -> ()
  "tile.reg.lg2"(%l, %l) : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.rcp"(%l, %l) : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.mul"(%a, %a, %l) : (!tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.copy"(%O, %a) {scope = "warpgroup"} : (!tile.buffer<global, 128x4xf32>, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reg_rcp", block = array<i32: 128, 1, 1>} : () -> ()
