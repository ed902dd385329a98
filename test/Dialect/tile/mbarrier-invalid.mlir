// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// mbarrier and commit: the barrier word, the arrival count, the phase.

"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.mbarrier.init' op mbarrier: count must be in [1, 2^20 - 1], got 0}}
  "tile.mbarrier.init"(%bar) {count = 0} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "count_zero", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.mbarrier.init' op mbarrier: count must be in [1, 2^20 - 1], got 1048576}}
  "tile.mbarrier.init"(%bar) {count = 1048576} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "count_too_large", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.mbarrier.arrive' op operand-type: operand #0 (barrier) must be a shared 1xi64 buffer, got !tile.buffer<shared, 1xi32>}}
  "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "barrier_i32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xf64>
  // expected-error@+1 {{'tile.commit' op operand-type: operand #0 (barrier) must be a shared 1xi64 buffer, got !tile.buffer<shared, 1xf64>}}
  "tile.commit"(%bar) : (!tile.buffer<shared, 1xf64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "commit_f64_barrier", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 1xi64>):
  // expected-error@+1 {{'tile.mbarrier.wait' op operand-scope: operand #0 (barrier) must be a shared buffer, got a global buffer}}
  "tile.mbarrier.wait"(%g) : (!tile.buffer<global, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "global_barrier", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.mbarrier.wait' op attributes: attribute 'phase' must be one of 0, 1, got 2}}
  "tile.mbarrier.wait"(%bar) {phase = 2} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "phase_two", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  // expected-error@+1 {{'tile.commit' op cta-group: cta_group 2 differs from cta_group 1 used earlier in this kernel}}
  "tile.commit"(%bar) {cta_group = 2, multicast_mask = 3} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "commit_group_mismatch", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// (a mask beyond 16 bits was truncated to its low 16: here to 0, multicasting to no CTA)
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.commit' op multicast: multicast_mask must be a 16-bit mask of CTA ranks (PTX ctaMask), got 1099511627776}}
  "tile.commit"(%bar) {multicast_mask = 1099511627776} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "commit_wide_mask", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %two = arith.constant 2 : i32
  // expected-error@+1 {{'tile.mbarrier.arrive' op cluster-rank: operand #1 (cta) is CTA rank 2, beyond the cluster of 2}}
  "tile.mbarrier.arrive"(%bar, %two) : (!tile.buffer<shared, 1xi64>, i32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "remote_rank_beyond_cluster", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
