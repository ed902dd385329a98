// RUN: tile-opt %s --split-input-file --verify-diagnostics
//
// The checks of the persistent-kernel ops (dialect/ops/persistent.py).

"tile.kernel"() ({
  %b0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %i = "tile.thread_id"() : () -> i32
  // expected-error@+1 {{ring-stages}}
  %b = "tile.ring.stage"(%i, %b0) : (i32, !tile.buffer<shared, 1xi64>) -> !tile.buffer<shared, 1xi64>
  "tile.return"() : () -> ()
}) {sym_name = "one_stage", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %b0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 2xi64>
  %i = "tile.thread_id"() : () -> i32
  // expected-error@+1 {{stage 1 is}}
  %b = "tile.ring.stage"(%i, %b0, %b1) : (i32, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 2xi64>) -> !tile.buffer<shared, 1xi64>
  "tile.return"() : () -> ()
}) {sym_name = "mixed_stages", block = array<i32: 128, 1, 1>} : () -> ()

// -----

!acc = !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 128} : (!tile.buffer<shared, 1xi32>) -> ()
  %t0 = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !acc
  %s1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf32>
  %i = "tile.thread_id"() : () -> i32
  // expected-error@+1 {{stage 1 is}}
  %b = "tile.ring.stage"(%i, %t0, %s1) : (i32, !acc, !tile.buffer<shared, 128x64xf32>) -> !acc
  "tile.tmem.dealloc"(%slot) {num_cols = 128} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tmem_and_shared_stages", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %p = "tile.thread_id"() : () -> i32
  // expected-error@+1 {{must be a shared 1xi64 buffer}}
  "tile.mbarrier.wait_parity"(%b, %p) : (!tile.buffer<shared, 1xi32>, i32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "not_a_barrier", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%m: i32, %n: i32):
  %t = "tile.block_id"() {dim = "x"} : () -> i32
  // expected-error@+1 {{group_m must be in [1, 65536], got 0}}
  %r, %c = "tile.raster.grouped"(%t, %m, %n) {group_m = 0} : (i32, i32, i32) -> (i32, i32)
  "tile.return"() : () -> ()
}) {sym_name = "empty_group", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{register-count: count must be a multiple of 8 in [24, 256], got 16}}
  "tile.setmaxnreg"() {action = "dec", count = 16} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "too_few_registers", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{register-count: count must be a multiple of 8 in [24, 256], got 100}}
  "tile.setmaxnreg"() {action = "inc", count = 100} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "not_a_multiple_of_8", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{register-count: count must be a multiple of 8 in [24, 256], got 264}}
  "tile.setmaxnreg"() {action = "inc", count = 264} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "too_many_registers", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{warpgroup: every warp of a warpgroup executes setmaxnreg: the kernel's 96 threads are not whole warpgroups of 128}}
  "tile.setmaxnreg"() {action = "dec", count = 40} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "partial_warpgroup", block = array<i32: 96, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{action}}
  "tile.setmaxnreg"() {action = "up", count = 40} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "unknown_action", block = array<i32: 128, 1, 1>} : () -> ()
