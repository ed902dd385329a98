// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: not tile-opt %s --tile-to-ptx=bogus=1 2>&1 | FileCheck %s --check-prefix=BAD
//
// Options given to a pipeline alias reach the passes that take them: chip goes to both
// tile-lower-copy-async (the variants check their target) and convert-tile-to-nvvm (the #nvvm.target).

// CHECK: .target sm_90a
// CHECK: cp.async.cg.shared.global
// BAD: tile-opt: error: pipeline 'tile-to-ptx' has no pass taking option(s) bogus
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xui8>
  "tile.copy_async"(%s, %A) : (!tile.buffer<shared, 64x16xui8>, !tile.buffer<global, 64x16xui8>) -> ()
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "hopper_options", block = array<i32: 64, 1, 1>} : () -> ()
