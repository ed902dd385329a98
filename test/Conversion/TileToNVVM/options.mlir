// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm="chip=sm_103a features=+ptx90" | FileCheck %s
//
// The pass options choose the gpu.module's NVVM target.

// CHECK-LABEL: gpu.module @tile_kernels [#nvvm.target<chip = "sm_103a", features = "+ptx90">]
// CHECK: llvm.func @target()
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "target", block = array<i32: 32, 1, 1>} : () -> ()
