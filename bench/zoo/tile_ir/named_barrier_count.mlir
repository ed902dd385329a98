// bench/zoo (zoo_mlir.py): a named-barrier id used by two groups with different thread counts.
// Warps 0-1 synchronise on named barrier 1 (64 threads); warp 2 synchronises alone (32 threads) on
// the same id, so when it arrives while warp 0 waits the barrier has two counts (the fixed twin
// gives warp 2 id 2).  Each thread then stores its id.
!gOut = !tile.buffer<global, 96xi32>
"tile.kernel"() ({
^bb0(%A: !gOut, %out: !gOut):
  %warp = "tile.warp_id"() : () -> i32
  %c2 = arith.constant 2 : i32
  %is_w2 = arith.cmpi eq, %warp, %c2 : i32
  scf.if %is_w2 {
    "tile.named_barrier.sync"() {id = 1, count = 32} : () -> ()  // BUG
    // FIXED "tile.named_barrier.sync"() {id = 2, count = 32} : () -> ()
  } else {
    "tile.named_barrier.sync"() {id = 1, count = 64} : () -> ()
  }
  "tile.copy"(%out, %A) {scope = "cta"} : (!gOut, !gOut) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "named_barrier_count", block = array<i32: 96, 1, 1>} : () -> ()
