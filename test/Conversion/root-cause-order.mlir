// RUN: not tile-opt %s --tile-to-nvvm 2>&1 | FileCheck %s
// RUN: not tile-opt %s -p 'builtin.module(tile-lower-copy-async,tile-lower-gemm-async)' 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tile-lower-gemm-async 2>&1 | FileCheck %s --check-prefix=GEMM
//
// A failing dispatch pass also reports what the dispatch passes after it would refuse, every error of the
// stage in program order (python/tile_mlir/lowering/root_cause.py): the tutorial's GEMM with a transposed
// tensor-memory accumulator fails its readback (tile-lower-copy-async, which runs first), but the cause,
// the gemm_async's D layout (tile-lower-gemm-async), comes first.

// CHECK: root-cause-order.mlir:56:5: error: 'tile.gemm_async' op dispatch: no gemm_async variant applies:
// CHECK-NEXT: tcgen05_mma: declined: d-layout - d's element (0, 1) is at lane 1, element column 0
// CHECK: root-cause-order.mlir:61:3: error: 'tile.copy_async' op dispatch: no copy_async variant applies to tmem -> reg:
// CHECK-NEXT: tmem->reg: declined: lane-quarter
// GEMM: error: 'tile.gemm_async' op dispatch
// GEMM-NOT: tile.copy_async
!gA = !tile.buffer<global, 128x64xbf16>
!gB = !tile.buffer<global, 64x64xbf16>
!gD = !tile.buffer<global, 128x64xf32>
!sA = !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>
!sB = !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
!tD = !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TCol, 1@TLane)]">
!rD = !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">
!slot = !tile.buffer<shared, 1xi32>
!bar = !tile.buffer<shared, 1xi64>

"tile.kernel"() ({
^bb0(%A: !gA, %B: !gB, %D: !gD):
  %map_a = "tile.tensor_map"(%A) {box = array<i64: 128, 64>, swizzle = "128B"} : (!gA) -> !tile.tensormap
  %map_b = "tile.tensor_map"(%B) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gB) -> !tile.tensormap
  %sa = "tile.alloc_shared"() : () -> !sA
  %sb = "tile.alloc_shared"() : () -> !sB
  %slot = "tile.alloc_shared"() : () -> !slot
  %loaded = "tile.alloc_shared"() : () -> !bar
  %done = "tile.alloc_shared"() : () -> !bar
  %tid = "tile.thread_id"() : () -> i32
  %warp = "tile.warp_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_warp0 = arith.cmpi eq, %warp, %c0 : i32
  %is_thread0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %is_warp0 {
    "tile.tmem.alloc"(%slot) {num_cols = 128} : (!slot) -> ()
  }
  scf.if %is_thread0 {
    "tile.mbarrier.init"(%loaded) {count = 1} : (!bar) -> ()
    "tile.mbarrier.init"(%done) {count = 1} : (!bar) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  }
  "tile.barrier"() : () -> ()
  %d = "tile.tmem.buffer"(%slot) : (!slot) -> !tD
  %zero = arith.constant false
  scf.if %is_thread0 {
    "tile.mbarrier.arrive_expect_tx"(%loaded) {bytes = 24576} : (!bar) -> ()
    "tile.copy_async"(%sa, %A, %loaded) {scope = "thread"} : (!sA, !gA, !bar) -> ()
    "tile.copy_async"(%sb, %B, %loaded) {scope = "thread"} : (!sB, !gB, !bar) -> ()
    "tile.mbarrier.wait"(%loaded) {phase = 0} : (!bar) -> ()
    "tile.gemm_async"(%d, %sa, %sb, %zero) : (!tD, !sA, !sB, i1) -> ()
    "tile.commit"(%done) : (!bar) -> ()
  }
  "tile.mbarrier.wait"(%done) {phase = 0} : (!bar) -> ()
  %acc = "tile.alloc_reg"() : () -> !rD
  "tile.copy_async"(%acc, %d) {scope = "warpgroup"} : (!rD, !tD) -> ()
  "tile.copy"(%D, %acc) {scope = "warpgroup"} : (!gD, !rD) -> ()
  "tile.barrier"() : () -> ()
  scf.if %is_warp0 {
    "tile.tmem.relinquish"() : () -> ()
    "tile.tmem.dealloc"(%slot) {num_cols = 64} : (!slot) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "step4_gemm", block = array<i32: 128, 1, 1>} : () -> ()
