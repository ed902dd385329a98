// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t90.ptx
// RUN: FileCheck %s < %t90.ptx
// RUN: %ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
//
// setmaxnreg in a warp-specialized kernel: the first warpgroup (the producer) releases registers to the CTA's
// pool, the other two take them.

// CHECK: .visible .entry warp_specialized(
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}40;
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 384x4xui8>, %B: !tile.buffer<global, 384x4xui8>):
  %w = "tile.warp_id"() : () -> i32
  %c4 = arith.constant 4 : i32
  %producer = arith.cmpi ult, %w, %c4 : i32
  scf.if %producer {
    "tile.setmaxnreg"() {action = "dec", count = 40} : () -> ()
  } else {
    "tile.setmaxnreg"() {action = "inc", count = 232} : () -> ()
  }
  "tile.copy"(%B, %A) : (!tile.buffer<global, 384x4xui8>, !tile.buffer<global, 384x4xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "warp_specialized", block = array<i32: 384, 1, 1>} : () -> ()
