// 6-bit floating point (FP6 E3M2) from global memory to tensor memory, in the form an MMA
// (.kind::f8f6f4, A from tensor memory) reads: one 8-bit container per element.
//
// Global memory holds the 32x128 tile packed (6 bits per element, 96 bytes per row). tile.copy expands
// it, 16 elements (12 bytes) at a time, into shared memory in the PTX sub-byte form .b6x16_p32 (12 data
// bytes + 4 padding bytes per 16-byte unit: `packing b6x16_p32`), 128B-swizzled. Thread 0's copy_async
// becomes eight tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32, stepping 16 bytes along the
// swizzle row and 4 tensor-memory columns each; the cp decompresses every 6-bit element into an 8-bit
// container (data in bits [5, 0]). The warpgroup reads the 32 columns back: `out` is 128 lanes x 128
// containers, the tile in every lane quarter.
// Buffer types are named once (MLIR type aliases); the fences the PTX memory model requires around the
// barriers, the mbarrier init and wait and the shared-memory stores are the compiler's (docs/fences.md).
!gA = !tile.buffer<global, 32x128xf6E3M2FN>
!gOut = !tile.buffer<global, 128x128xui8>
!sA = !tile.buffer<shared, 32x128xf6E3M2FN, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024, packing b6x16_p32>
!slot = !tile.buffer<shared, 1xi32>
!bar = !tile.buffer<shared, 1xi64>
!tA = !tile.buffer<tmem, 32x128xf6E3M2FN, "S[(32, 128) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">

"tile.kernel"() ({
^bb0(%A: !gA, %out: !gOut):
  %smem = "tile.alloc_shared"() : () -> !sA
  %slot = "tile.alloc_shared"() : () -> !slot
  %bar = "tile.alloc_shared"() : () -> !bar
  %tid = "tile.thread_id"() : () -> i32
  %warp = "tile.warp_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_warp0 = arith.cmpi eq, %warp, %c0 : i32
  %is_thread0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %is_warp0 {
    "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!slot) -> ()
  }
  scf.if %is_thread0 {
    "tile.mbarrier.init"(%bar) {count = 1} : (!bar) -> ()
  }
  "tile.copy"(%smem, %A) {scope = "cta"} : (!sA, !gA) -> ()
  "tile.barrier"() : () -> ()
  %tmem = "tile.tmem.buffer"(%slot) : (!slot) -> !tA
  scf.if %is_thread0 {
    "tile.copy_async"(%tmem, %smem) {cta_group = 1, scope = "thread"} : (!tA, !sA) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!bar) -> ()
  }
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!bar) -> ()
  "tile.tmem.load"(%out, %tmem) {col_offset = 0, num_cols = 32, scope = "warpgroup"} : (!gOut, !tA) -> ()
  "tile.barrier"() : () -> ()
  scf.if %is_warp0 {
    "tile.tmem.relinquish"() {cta_group = 1} : () -> ()
    "tile.tmem.dealloc"(%slot) {num_cols = 32, cta_group = 1} : (!slot) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "fp6_to_tmem", block = array<i32: 128, 1, 1>} : () -> ()
