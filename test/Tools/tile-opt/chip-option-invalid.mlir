// RUN: not tile-opt %s --tile-to-ptx=chip=sm_91a 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tile-lower-copy-async=chip=sm_91a 2>&1 | FileCheck %s
// RUN: not tile-opt %s "--convert-tile-to-nvvm=chip=sm_91a features=+ptx88" 2>&1 | FileCheck %s --check-prefix=NVVM
//
// A chip that does not exist is refused once, when the pipeline's options are read, with the chips
// there are; not once per op by each dispatch.

// CHECK: tile-opt: error: pass '{{tile-verify|tile-lower-copy-async}}': option chip: unknown GPU architecture 'sm_91a': no such chip; supported: sm_75,
// CHECK-SAME: sm_90, sm_90a, sm_100, sm_100a, sm_100f,
// CHECK-NOT: error
// NVVM: tile-opt: error: pass 'convert-tile-to-nvvm': option chip: unknown GPU architecture 'sm_91a'
// NVVM-NOT: error
!s = !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
!t = !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !s
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !t
  "tile.copy_async"(%t, %s) {scope = "thread"} : (!t, !s) -> ()
  "tile.copy_async"(%t, %s) {scope = "thread"} : (!t, !s) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "two_copies", block = array<i32: 128, 1, 1>} : () -> ()
