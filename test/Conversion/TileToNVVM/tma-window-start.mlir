// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-to-ptx=chip=sm_90a
//
// Issue #22 (the adversary's surface campaign, surf:31:112): a TMA box starts on 16 bytes in the inner
// dim (the H200 faults otherwise). A window's SSA offset there is checked as far as its IR shows
// (lowering/window_align.py): a scalar parameter is only a multiple of 1 element, so the load declines,
// and no other variant takes a copy with an mbarrier.

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 28xf32>, %n: i32):
  %ma = "tile.tensor_map"(%A) {box = array<i64: 4>} : (!tile.buffer<global, 28xf32>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4xf32, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 16} : (!tile.buffer<shared, 1xi64>) -> ()
  %w = "tile.subview"(%A, %n) {static_offsets = array<i64: -1>, sizes = array<i64: 4>} : (!tile.buffer<global, 28xf32>, i32) -> !tile.buffer<global, 4xf32, "S[(4,) : (1,)]">
  // expected-error@+1 {{tma: declined: coordinate - the window's SSA offset in the inner dim is known only to be a multiple of 1 element(s) (4 B); a TMA box starts on 16 bytes}}
  "tile.copy_async"(%s, %w, %bar) : (!tile.buffer<shared, 4xf32, align 128>, !tile.buffer<global, 4xf32, "S[(4,) : (1,)]">, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "unproven", block = array<i32: 1, 1, 1>} : () -> ()

// -----

// The same offset times 4 (16 bytes), or an scf.for induction variable stepping by 4 from 0: accepted.
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 28xf32>, %n: i32):
  %ma = "tile.tensor_map"(%A) {box = array<i64: 4>} : (!tile.buffer<global, 28xf32>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4xf32, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  %c4 = arith.constant 4 : i32
  %o = arith.muli %n, %c4 : i32
  "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 16} : (!tile.buffer<shared, 1xi64>) -> ()
  %w = "tile.subview"(%A, %o) {static_offsets = array<i64: -1>, sizes = array<i64: 4>} : (!tile.buffer<global, 28xf32>, i32) -> !tile.buffer<global, 4xf32, "S[(4,) : (1,)]">
  "tile.copy_async"(%s, %w, %bar) : (!tile.buffer<shared, 4xf32, align 128>, !tile.buffer<global, 4xf32, "S[(4,) : (1,)]">, !tile.buffer<shared, 1xi64>) -> ()
  %c0 = arith.constant 0 : i32
  %c24 = arith.constant 24 : i32
  scf.for %i = %c0 to %c24 step %c4 : i32 {
    %v = "tile.subview"(%A, %i) {static_offsets = array<i64: -1>, sizes = array<i64: 4>} : (!tile.buffer<global, 28xf32>, i32) -> !tile.buffer<global, 4xf32, "S[(4,) : (1,)]">
    "tile.copy_async"(%s, %v, %bar) : (!tile.buffer<shared, 4xf32, align 128>, !tile.buffer<global, 4xf32, "S[(4,) : (1,)]">, !tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "proven", block = array<i32: 1, 1, 1>} : () -> ()
