// bench/zoo (zoo_mlir.py): a named-barrier producer arrives before the shared-memory writes it
// announces.  Warp 0 copies 32 words into shared memory and signals named barrier 1 (64 threads);
// warp 1 waits on it and copies the words out.  BUG marks the line the fixed twin moves: there the
// arrive follows the copy.
!gA = !tile.buffer<global, 32xi32>
!sA = !tile.buffer<shared, 32xi32>
"tile.kernel"() ({
^bb0(%A: !gA, %out: !gA):
  %s = "tile.alloc_shared"() : () -> !sA
  %warp = "tile.warp_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_w0 = arith.cmpi eq, %warp, %c0 : i32
  scf.if %is_w0 {
    "tile.named_barrier.arrive"() {id = 1, count = 64} : () -> ()  // BUG
    "tile.copy"(%s, %A) {scope = "warp"} : (!sA, !gA) -> ()
    // FIXED "tile.named_barrier.arrive"() {id = 1, count = 64} : () -> ()
  } else {
    "tile.named_barrier.sync"() {id = 1, count = 64} : () -> ()
    "tile.copy"(%out, %s) {scope = "warp"} : (!gA, !sA) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "bar_publish", block = array<i32: 64, 1, 1>} : () -> ()
