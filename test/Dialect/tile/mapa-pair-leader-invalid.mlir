// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// copy_async's barrier_cta = "pair_leader" (docs/tma.md §8): a cta_group 2 TMA load of the odd CTA
// completing on the even CTA's mbarrier; each misuse gets the barrier-cta check.
// needs cta_group 2
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x64xf8E4M3FN>):
  %map = "tile.tensor_map"(%A) {box = array<i64: 128, 64>} : (!tile.buffer<global, 256x64xf8E4M3FN>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op barrier-cta: only a cta_group = 2 TMA load may complete on the pair leader's mbarrier (PTX cp.async.bulk.tensor .cta_group::2), got cta_group 1}}
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 128, 0>, src_sizes = array<i64: 128, 64>, barrier_cta = "pair_leader"} : (!tile.buffer<shared, 128x64xf8E4M3FN, align 128>, !tile.buffer<global, 256x64xf8E4M3FN>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group1", block = array<i32: 32, 1, 1>, grid = array<i32: 2, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// a load's barrier: the operand must be there
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x64xf8E4M3FN>):
  %map = "tile.tensor_map"(%A) {box = array<i64: 128, 64>} : (!tile.buffer<global, 256x64xf8E4M3FN>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op barrier-cta: barrier_cta = "pair_leader" names whose mbarrier a TMA load completes on: give the mbarrier operand}}
  "tile.copy_async"(%s, %A) {src_offsets = array<i64: 128, 0>, src_sizes = array<i64: 128, 64>, cta_group = 2, barrier_cta = "pair_leader"} : (!tile.buffer<shared, 128x64xf8E4M3FN, align 128>, !tile.buffer<global, 256x64xf8E4M3FN>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "no_barrier", block = array<i32: 32, 1, 1>, grid = array<i32: 2, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// multicast signals by parity: not with pair_leader
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x64xf8E4M3FN>):
  %map = "tile.tensor_map"(%A) {box = array<i64: 128, 64>} : (!tile.buffer<global, 256x64xf8E4M3FN>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op barrier-cta: barrier_cta = "pair_leader" with multicast_mask: a multicast load signals the barrier of each destination's pair by the parity of the barrier's CTA; not supported}}
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 128, 0>, src_sizes = array<i64: 128, 64>, cta_group = 2, multicast_mask = 3, barrier_cta = "pair_leader"} : (!tile.buffer<shared, 128x64xf8E4M3FN, align 128>, !tile.buffer<global, 256x64xf8E4M3FN>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "multicast", block = array<i32: 32, 1, 1>, grid = array<i32: 2, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// pairs need an even cluster
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x64xf8E4M3FN>):
  %map = "tile.tensor_map"(%A) {box = array<i64: 128, 64>} : (!tile.buffer<global, 256x64xf8E4M3FN>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op barrier-cta: barrier_cta = "pair_leader" needs CTA pairs: the cluster has 3 CTAs}}
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 128, 0>, src_sizes = array<i64: 128, 64>, cta_group = 2, barrier_cta = "pair_leader"} : (!tile.buffer<shared, 128x64xf8E4M3FN, align 128>, !tile.buffer<global, 256x64xf8E4M3FN>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "odd_cluster", block = array<i32: 32, 1, 1>, grid = array<i32: 2, 1, 1>, cluster = array<i32: 3, 1, 1>} : () -> ()
// -----

// the attribute's values
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x64xf8E4M3FN>):
  %map = "tile.tensor_map"(%A) {box = array<i64: 128, 64>} : (!tile.buffer<global, 256x64xf8E4M3FN>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op attributes: attribute 'barrier_cta' must be one of own, pair_leader, got 'peer'}}
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 128, 0>, src_sizes = array<i64: 128, 64>, cta_group = 2, barrier_cta = "peer"} : (!tile.buffer<shared, 128x64xf8E4M3FN, align 128>, !tile.buffer<global, 256x64xf8E4M3FN>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bad_value", block = array<i32: 32, 1, 1>, grid = array<i32: 2, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
