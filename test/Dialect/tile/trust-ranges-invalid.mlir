// RUN: tile-opt %s --split-input-file --verify-diagnostics
//
// Issue 36 classes 5-7: a constant tile.ring.stage index outside the ring, tile.tmem.buffer columns past
// tensor memory or past the allocation, and a scoped op whose threads leave an incomplete group
// (dialect/ops/persistent.py, dialect/ops/tmem.py, dialect/cta_checks.py).

"tile.kernel"() ({
  %b0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %c2 = arith.constant 2 : i32
  // expected-error@+1 {{'tile.ring.stage' op ring-index: index 2 is outside the ring of 2 stages (0 <= index < 2)}}
  %b = "tile.ring.stage"(%c2, %b0, %b1) : (i32, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>) -> !tile.buffer<shared, 1xi64>
  "tile.return"() : () -> ()
}) {sym_name = "ring_index_past_the_end", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %b0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %m1 = arith.constant -1 : i32
  // expected-error@+1 {{ring-index: index -1 is outside the ring of 3 stages}}
  %b = "tile.ring.stage"(%m1, %b0, %b1, %b2) : (i32, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>) -> !tile.buffer<shared, 1xi64>
  "tile.return"() : () -> ()
}) {sym_name = "ring_index_negative", block = array<i32: 128, 1, 1>} : () -> ()

// -----

!acc = !tile.buffer<tmem, 128x256xf32, "S[(128, 256) : (1@TLane, 1@TCol)]">
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.buffer' op tmem-columns: columns [300, 556) (col_offset 300 + the 256 32-bit columns its layout spans) reach past tensor memory's 512}}
  %t = "tile.tmem.buffer"(%slot) {col_offset = 300} : (!tile.buffer<shared, 1xi32>) -> !acc
  "tile.return"() : () -> ()
}) {sym_name = "tmem_columns_past_512", block = array<i32: 128, 1, 1>} : () -> ()

// -----

!acc = !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 128} : (!tile.buffer<shared, 1xi32>) -> ()
  %t0 = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !acc
  // expected-error@+1 {{tmem-columns: columns [128, 256) (col_offset 128 + the 128 32-bit columns its layout spans) reach past the 128 columns tile.tmem.alloc allocates in the slot}}
  %t1 = "tile.tmem.buffer"(%slot) {col_offset = 128} : (!tile.buffer<shared, 1xi32>) -> !acc
  "tile.return"() : () -> ()
}) {sym_name = "tmem_columns_past_the_allocation", block = array<i32: 128, 1, 1>} : () -> ()

// -----

!acc = !tile.buffer<tmem, 128x16xui8, "S[(128, 16) : (1@TLane, 1@TCol)]">
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  // 16 8-bit columns are 4 32-bit columns: [28, 32) fits, [29, 33) does not
  %t0 = "tile.tmem.buffer"(%slot) {col_offset = 28} : (!tile.buffer<shared, 1xi32>) -> !acc
  // expected-error@+1 {{columns [29, 33) (col_offset 29 + the 4 32-bit columns}}
  %t1 = "tile.tmem.buffer"(%slot) {col_offset = 29} : (!tile.buffer<shared, 1xi32>) -> !acc
  "tile.return"() : () -> ()
}) {sym_name = "tmem_packed_columns", block = array<i32: 128, 1, 1>} : () -> ()

// -----

!g = !tile.buffer<global, 64x64xf16>
!s = !tile.buffer<shared, 64x64xf16>
"tile.kernel"() ({
^bb0(%A: !g):
  %s = "tile.alloc_shared"() : () -> !s
  // expected-error@+1 {{'tile.copy' op scope: scope warpgroup spans 128 threads, but the kernel's block includes an incomplete warpgroup (threads 128-159 of group 1)}}
  "tile.copy"(%s, %A) {scope = "warpgroup"} : (!s, !g) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "warpgroup_in_160_threads", block = array<i32: 160, 1, 1>} : () -> ()

// -----

!g = !tile.buffer<global, 64x64xf16>
!s = !tile.buffer<shared, 64x64xf16>
"tile.kernel"() ({
^bb0(%A: !g):
  %s = "tile.alloc_shared"() : () -> !s
  %w = "tile.warp_id"() : () -> i32
  %c4 = arith.constant 4 : i32
  %c2 = arith.constant 2 : i32
  %first = arith.cmpi ult, %w, %c4 : i32
  %half = arith.cmpi ult, %w, %c2 : i32
  // guarded to warps 0-3: one whole warpgroup of the 160 threads
  scf.if %first {
    "tile.copy"(%s, %A) {scope = "warpgroup"} : (!s, !g) -> ()
  } else {
    // expected-error@+1 {{the threads 128-159 its guard lets through include an incomplete warpgroup}}
    "tile.copy"(%s, %A) {scope = "warpgroup"} : (!s, !g) -> ()
  }
  // in a block of whole warpgroups too, a guard to half of one
  scf.if %half {
    // expected-error@+1 {{the threads 0-63 its guard lets through include an incomplete warpgroup (threads 0-127 of group 0)}}
    "tile.copy"(%s, %A) {scope = "warpgroup"} : (!s, !g) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "guards", block = array<i32: 160, 1, 1>} : () -> ()

// -----

!g = !tile.buffer<global, 64x64xf16>
!s = !tile.buffer<shared, 64x64xf16>
"tile.kernel"() ({
^bb0(%A: !g):
  %s = "tile.alloc_shared"() : () -> !s
  %tid = "tile.thread_id"() : () -> i32
  %c48 = arith.constant 48 : i32
  %c32 = arith.constant 32 : i32
  %low = arith.cmpi slt, %tid, %c32 : i32
  scf.if %low {
    "tile.copy"(%s, %A) {scope = "warp"} : (!s, !g) -> ()
  }
  // expected-error@+1 {{scope warp spans 32 threads, but the kernel's block includes an incomplete warp (threads 32-47 of group 1)}}
  "tile.copy"(%s, %A) {scope = "warp"} : (!s, !g) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "warp_in_48_threads", block = array<i32: 48, 1, 1>} : () -> ()
