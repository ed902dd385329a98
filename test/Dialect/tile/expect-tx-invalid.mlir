// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
// RUN: not tile-opt %s --split-input-file --tile-verify 2>/dev/null | FileCheck %s --check-prefix=OK
//
// The bytes an expect_tx arms against the boxes of the TMA loads completing on that mbarrier after it,
// where the pairing is certain (python/tile_mlir/dialect/tx_checks.py): a mismatch is refused at the
// expect_tx with both numbers; the kernels whose pairing is not certain compile as before (printed: OK).

!gA = !tile.buffer<global, 128x64xbf16>
!sT = !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
!bar = !tile.buffer<shared, 1xi64>

// One load of a 64x64 bf16 box (8192 bytes) armed for 16384.
"tile.kernel"() ({
^bb0(%A: !gA):
  %map = "tile.tensor_map"(%A) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gA) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !sT
  %bar = "tile.alloc_shared"() : () -> !bar
  // expected-error@+1 {{'tile.mbarrier.arrive_expect_tx' op expect-tx: arms 16384 transaction bytes, but the TMA load completing on this mbarrier after it brings 8192: a [64, 64] x bf16 box (8192 bytes); set bytes = 8192 (a TMA load completes its whole box on the mbarrier)}}
  "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 16384} : (!bar) -> ()
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 64, 0>, src_sizes = array<i64: 64, 64>} : (!sT, !gA, !bar) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "over", block = array<i32: 128, 1, 1>} : () -> ()

// -----

!gA = !tile.buffer<global, 128x64xbf16>
!sT = !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
!bar = !tile.buffer<shared, 1xi64>

// Two loads after one arming (16384 bytes) armed for 8192 by expect_tx (no arrive); a second arming in
// the same block pairs the load after it only (4096 is wrong too, said at its own op).
"tile.kernel"() ({
^bb0(%A: !gA):
  %map = "tile.tensor_map"(%A) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gA) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !sT
  %t = "tile.alloc_shared"() : () -> !sT
  %bar = "tile.alloc_shared"() : () -> !bar
  // expected-error@+1 {{op expect-tx: arms 8192 transaction bytes, but the 2 TMA loads completing on this mbarrier after it bring 16384: 2 [64, 64] x bf16 boxes (8192 bytes each); set bytes = 16384}}
  "tile.mbarrier.expect_tx"(%bar) {bytes = 8192} : (!bar) -> ()
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 64, 64>} : (!sT, !gA, !bar) -> ()
  "tile.copy_async"(%t, %A, %bar) {src_offsets = array<i64: 64, 0>, src_sizes = array<i64: 64, 64>} : (!sT, !gA, !bar) -> ()
  // expected-error@+1 {{op expect-tx: arms 4096 transaction bytes, but the TMA load completing on this mbarrier after it brings 8192}}
  "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 4096} : (!bar) -> ()
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 64, 64>} : (!sT, !gA, !bar) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "two_loads", block = array<i32: 128, 1, 1>} : () -> ()

// -----

!gA = !tile.buffer<global, 128x64xbf16>
!sT = !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
!bar = !tile.buffer<shared, 1xi64>

// Not certain, so not checked: the load is in a loop the arming is outside of (how many times it runs
// is the loop's), and a second kernel's load is issued by another branch than its arming.
// OK: sym_name = "load_in_loop"
// OK: sym_name = "other_branch"
"tile.kernel"() ({
^bb0(%A: !gA):
  %map = "tile.tensor_map"(%A) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gA) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !sT
  %bar = "tile.alloc_shared"() : () -> !bar
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c1 = arith.constant 1 : i32
  "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 16384} : (!bar) -> ()
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 64, 64>} : (!sT, !gA, !bar) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "load_in_loop", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
^bb0(%A: !gA):
  %map = "tile.tensor_map"(%A) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gA) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !sT
  %bar = "tile.alloc_shared"() : () -> !bar
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 12288} : (!bar) -> ()
  } else {
    "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 64, 64>} : (!sT, !gA, !bar) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "other_branch", block = array<i32: 128, 1, 1>} : () -> ()
