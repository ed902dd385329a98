// RUN: tile-opt %s --split-input-file --tile-verify --convert-tile-to-nvvm | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify --convert-tile-to-nvvm=chip=sm_90a | FileCheck %s
// RUN: not tile-opt %s --split-input-file --tile-verify --convert-tile-to-nvvm=chip=sm_80 2>&1 | FileCheck %s --check-prefix=OLD
//
// tile.setmaxnreg is nvvm.setmaxregister, on the chips that have setmaxnreg (sm_90a, the sm_100a family): a
// producer warpgroup gives registers back, the consumers take them.

// CHECK-LABEL: llvm.func @warp_specialized
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: } else {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// OLD: error: 'tile.setmaxnreg' op lowering: no tile.setmaxnreg variant applies:
// OLD-NEXT: nvvm: rejected: target - setmaxnreg needs sm_90a or an sm_100a-family target, not sm_80
"tile.kernel"() ({
  %w = "tile.warp_id"() : () -> i32
  %c4 = arith.constant 4 : i32
  %producer = arith.cmpi ult, %w, %c4 : i32
  scf.if %producer {
    "tile.setmaxnreg"() {action = "dec", count = 40} : () -> ()
  } else {
    "tile.setmaxnreg"() {action = "inc", count = 232} : () -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "warp_specialized", block = array<i32: 384, 1, 1>} : () -> ()
