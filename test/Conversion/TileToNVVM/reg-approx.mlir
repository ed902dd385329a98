// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// tile.reg.rcp and tile.reg.lg2 (lowering/nvvm/regapprox.py): per slot of a row value and of a 2-column tile,
// rcp.approx.ftz.f32 (nvvm.rcp.approx.ftz.f) and lg2.approx.ftz.f32 (the NVVM intrinsic, no NVVM op), the 1 / l and
// log2 l of an attention epilogue.

// CHECK-LABEL: llvm.func @rcp
// CHECK-COUNT-3: nvvm.rcp.approx.ftz.f %{{.*}} : f32
// CHECK-NOT: nvvm.rcp.approx.ftz.f
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 128x2xf32>, %O: !tile.buffer<global, 128x2xf32>):
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x2xf32, "S[(4, 32, 2) : (1@warpid, 1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy"(%a, %A) {scope = "warpgroup"} : (!tile.buffer<reg, 128x2xf32, "S[(4, 32, 2) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<global, 128x2xf32>) -> ()
  "tile.reg.rcp"(%a, %a) : (!tile.buffer<reg, 128x2xf32, "S[(4, 32, 2) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x2xf32, "S[(4, 32, 2) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.rcp"(%r, %r) : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.lg2"(%r, %r) : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.mul"(%a, %a, %r) : (!tile.buffer<reg, 128x2xf32, "S[(4, 32, 2) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x2xf32, "S[(4, 32, 2) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.copy"(%O, %a) {scope = "warpgroup"} : (!tile.buffer<global, 128x2xf32>, !tile.buffer<reg, 128x2xf32, "S[(4, 32, 2) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "rcp", block = array<i32: 128, 1, 1>} : () -> ()
