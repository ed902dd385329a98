// Tutorial step 2 (docs/tutorial.md): global -> shared -> tensor memory -> registers -> global.
// A 128x4 f32 tile: tile.copy fills shared memory, one tcgen05.cp (shape 128x128b: 128 lanes of 16
// bytes) moves it to tensor memory, each warp reads its 32 lanes back with tcgen05.ld, and every
// thread stores its row. The fences after the mbarrier init, around the barriers and after the wait
// are the compiler's.
!gA = !tile.buffer<global, 128x4xf32>
!sA = !tile.buffer<shared, 128x4xf32, "S[(128, 4) : (4, 1)]", align 1024>
!tA = !tile.buffer<tmem, 128x4xf32, "S[(128, 4) : (1@TLane, 1@TCol)]">
!rA = !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">
!slot = !tile.buffer<shared, 1xi32>
!bar = !tile.buffer<shared, 1xi64>

"tile.kernel"() ({
^bb0(%A: !gA, %out: !gA):
  %smem = "tile.alloc_shared"() : () -> !sA
  %slot = "tile.alloc_shared"() : () -> !slot
  %bar = "tile.alloc_shared"() : () -> !bar
  %tid = "tile.thread_id"() : () -> i32
  %warp = "tile.warp_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_warp0 = arith.cmpi eq, %warp, %c0 : i32
  %is_thread0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %is_warp0 {
    "tile.tmem.alloc"(%slot) {num_cols = 32} : (!slot) -> ()
  }
  scf.if %is_thread0 {
    "tile.mbarrier.init"(%bar) {count = 1} : (!bar) -> ()
  }
  "tile.copy"(%smem, %A) {scope = "cta"} : (!sA, !gA) -> ()
  "tile.barrier"() : () -> ()
  %tmem = "tile.tmem.buffer"(%slot) : (!slot) -> !tA
  scf.if %is_thread0 {
    "tile.copy_async"(%tmem, %smem) {scope = "thread"} : (!tA, !sA) -> ()
    "tile.commit"(%bar) : (!bar) -> ()
  }
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!bar) -> ()
  %regs = "tile.alloc_reg"() : () -> !rA
  "tile.copy_async"(%regs, %tmem) {scope = "warpgroup"} : (!rA, !tA) -> ()
  "tile.copy"(%out, %regs) {scope = "warpgroup"} : (!gA, !rA) -> ()
  "tile.barrier"() : () -> ()
  scf.if %is_warp0 {
    "tile.tmem.relinquish"() : () -> ()
    "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!slot) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "step2_tmem", block = array<i32: 128, 1, 1>} : () -> ()
