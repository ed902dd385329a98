// bench/zoo (zoo_mlir.py): a consumer releases a shared-memory stage before it has read it.
// Warp 0 copies a tile into the stage and arrives on `full`; warp 1 waits on `full`, copies the
// stage out and releases it on `empty`; warp 0 then waits on `empty` and overwrites the stage with
// a second tile (which nobody reads).  BUG marks the line the fixed twin moves: there the release
// follows the consumer's copy.
!gA = !tile.buffer<global, 32xi32>
!sA = !tile.buffer<shared, 32xi32>
!bar = !tile.buffer<shared, 1xi64>
"tile.kernel"() ({
^bb0(%A: !gA, %B: !gA, %out: !gA):
  %s = "tile.alloc_shared"() : () -> !sA
  %full = "tile.alloc_shared"() : () -> !bar
  %empty = "tile.alloc_shared"() : () -> !bar
  %tid = "tile.thread_id"() : () -> i32
  %warp = "tile.warp_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_t0 = arith.cmpi eq, %tid, %c0 : i32
  %is_w0 = arith.cmpi eq, %warp, %c0 : i32
  scf.if %is_t0 {
    "tile.mbarrier.init"(%full) {count = 32} : (!bar) -> ()
    "tile.mbarrier.init"(%empty) {count = 32} : (!bar) -> ()
  }
  "tile.barrier"() : () -> ()
  scf.if %is_w0 {
    "tile.copy"(%s, %A) {scope = "warp"} : (!sA, !gA) -> ()
    "tile.mbarrier.arrive"(%full) : (!bar) -> ()
    "tile.mbarrier.wait"(%empty) {phase = 0} : (!bar) -> ()
    "tile.copy"(%s, %B) {scope = "warp"} : (!sA, !gA) -> ()
  } else {
    "tile.mbarrier.wait"(%full) {phase = 0} : (!bar) -> ()
    "tile.mbarrier.arrive"(%empty) : (!bar) -> ()  // BUG
    "tile.copy"(%out, %s) {scope = "warp"} : (!gA, !sA) -> ()
    // FIXED "tile.mbarrier.arrive"(%empty) : (!bar) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "ring_release", block = array<i32: 64, 1, 1>} : () -> ()
