// Tutorial step 4 (docs/tutorial.md): a small GEMM, D = A . B^T with A 128x64 and B 64x64 in bf16 and D
// in f32. TMA brings both operands into 128B-swizzled shared memory (K-major: one 128-byte row per
// row of the matrix), thread 0 issues tile.gemm_async (tcgen05.mma, K = 64 in four MMAs of K = 16)
// into a tensor-memory accumulator and commits it to a second mbarrier; the warpgroup then reads the
// accumulator back (tcgen05.ld) and stores it.
!gA = !tile.buffer<global, 128x64xbf16>
!gB = !tile.buffer<global, 64x64xbf16>
!gD = !tile.buffer<global, 128x64xf32>
!sA = !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>
!sB = !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
!tD = !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">
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
    "tile.tmem.alloc"(%slot) {num_cols = 64} : (!slot) -> ()
  }
  scf.if %is_thread0 {
    "tile.mbarrier.init"(%loaded) {count = 1} : (!bar) -> ()
    "tile.mbarrier.init"(%done) {count = 1} : (!bar) -> ()
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
