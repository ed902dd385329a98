// Tutorial step 3 (docs/tutorial.md): TMA. A tensor map describes the global tensor; thread 0 loads one
// 64x64 box (rows 64-127 of A) into 128B-swizzled shared memory, completing on an mbarrier armed with
// the bytes it expects, then stores the tile to `out` through out's own map and waits for the store.
!gA = !tile.buffer<global, 128x64xbf16>
!gOut = !tile.buffer<global, 64x64xbf16>
!sT = !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
!bar = !tile.buffer<shared, 1xi64>

"tile.kernel"() ({
^bb0(%A: !gA, %out: !gOut):
  %map_a = "tile.tensor_map"(%A) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gA) -> !tile.tensormap
  %map_out = "tile.tensor_map"(%out) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gOut) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !sT
  %bar = "tile.alloc_shared"() : () -> !bar
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_thread0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %is_thread0 {
    "tile.mbarrier.init"(%bar) {count = 1} : (!bar) -> ()
  }
  "tile.barrier"() : () -> ()
  scf.if %is_thread0 {
    "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 8192} : (!bar) -> ()
    "tile.copy_async"(%smem, %A, %bar) {src_offsets = array<i64: 64, 0>, src_sizes = array<i64: 64, 64>,
                                         scope = "thread"} : (!sT, !gA, !bar) -> ()
  }
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!bar) -> ()
  scf.if %is_thread0 {
    "tile.copy_async"(%out, %smem) {scope = "thread"} : (!gOut, !sT) -> ()
    "tile.bulk_wait"() {pending = 0} : () -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "step3_tma", block = array<i32: 128, 1, 1>} : () -> ()
