// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// Tensor memory: slots, column counts, tmem layouts, tmem.load shapes and the kernel-wide cta_group.

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.tmem.alloc' op operand-type: operand #0 (slot) must be a shared 1xi32 buffer, got !tile.buffer<shared, 1xi64>}}
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "slot_i64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 2xf32>
  // expected-error@+1 {{'tile.tmem.dealloc' op operand-type: operand #0 (slot) must be a shared 1xi32 buffer, got !tile.buffer<shared, 2xf32>}}
  "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 2xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "slot_2xf32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.tmem.dealloc' op tmem-alloc: num_cols must be a power of two in [32, 512] (PTX tcgen05.alloc), got 1024}}
  "tile.tmem.dealloc"(%slot) {num_cols = 1024} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "dealloc_too_many_columns", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.tmem.alloc' op tmem-alloc: num_cols must be a power of two in [32, 512] (PTX tcgen05.alloc), got 96}}
  "tile.tmem.alloc"(%slot) {num_cols = 96} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "alloc_not_power_of_two", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.buffer' op layout: result #0: a tmem layout cannot be swizzled}}
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (1@TLane, 1@TCol)]">
  "tile.return"() : () -> ()
}) {sym_name = "tmem_swizzled", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.buffer' op layout: result #0: a tmem layout must map onto TLane and TCol, got axes ['m']}}
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8>
  "tile.return"() : () -> ()
}) {sym_name = "tmem_row_major", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.buffer' op element-type: result #0: tmem holds 4, 6, 8, 16 or 32-bit elements, not f64}}
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x4xf64, "S[(32, 4) : (1@TLane, 1@TCol)]">
  "tile.return"() : () -> ()
}) {sym_name = "tmem_f64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.buffer' op layout: result #0: layout reaches lane 159, beyond the 128 tmem lanes}}
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[5 : 32@TLane]">
  "tile.return"() : () -> ()
}) {sym_name = "tmem_too_many_lanes", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.buffer' op layout: result #0: layout spans 1024 f32 columns, beyond the 512 32-bit tmem columns}}
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x1024xf32, "S[(32, 1024) : (1@TLane, 1@TCol)]">
  "tile.return"() : () -> ()
}) {sym_name = "tmem_too_many_columns", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x12xui8>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.tmem.load' op tmem-load: num_cols must be a power of two in [1, 512]}}
  "tile.tmem.load"(%out, %t) {num_cols = 3} : (!tile.buffer<global, 128x12xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_three_columns", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x16xui8>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.tmem.load' op tmem-load: dst must be [32, 16] of ui8 (32 lanes x 4 32-bit columns), got 128x16}}
  "tile.tmem.load"(%out, %t) {num_cols = 4, scope = "warp"} : (!tile.buffer<global, 128x16xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_warp_shape", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x8xui8>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.tmem.load' op tmem-load: dst must be [128, 16] of ui8 (128 lanes x 4 32-bit columns), got 128x8}}
  "tile.tmem.load"(%out, %t) {num_cols = 4} : (!tile.buffer<global, 128x8xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_warpgroup_columns", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 6-bit data sits in tmem in 8-bit containers: a packed 6-bit destination would misread them.
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x16xf6E2M3FN>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xf6E2M3FN, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.tmem.load' op tmem-load: dst holds packed 6-bit f6E2M3FN, but tmem holds 6-bit data in 8-bit containers and tile.tmem.load copies whole 32-bit columns: read them into an 8-bit buffer (e.g. ui8)}}
  "tile.tmem.load"(%out, %t) {num_cols = 4} : (!tile.buffer<global, 128x16xf6E2M3FN>, !tile.buffer<tmem, 32x16xf6E2M3FN, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_into_packed_6_bit", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x16xui8>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.tmem.load' op tmem-load: col_offset must be non-negative}}
  "tile.tmem.load"(%out, %t) {num_cols = 4, col_offset = -4} : (!tile.buffer<global, 128x16xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_negative_offset", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// (an offset past the columns was truncated to 32 bits and read some other column)
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x16xui8>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.tmem.load' op tmem-load: columns [100000000000000, 100000000000004) reach beyond the 512 tmem columns}}
  "tile.tmem.load"(%out, %t) {num_cols = 4, col_offset = 100000000000000} : (!tile.buffer<global, 128x16xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_beyond_the_columns", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.dealloc' op cta-group: cta_group 1 differs from cta_group 2 used earlier in this kernel}}
  "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group_mismatch", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.tmem.relinquish' op cta-group: cta_group 2 needs a cluster of an even number of CTAs (set cluster on tile.kernel)}}
  "tile.tmem.relinquish"() {cta_group = 2} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group2_without_cluster", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.buffer' op tmem-address: col_offset must be in [0, 512) (a tmem column), got 512}}
  %t = "tile.tmem.buffer"(%slot) {col_offset = 512} : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">
  "tile.tmem.dealloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "col_offset_past_tmem", block = array<i32: 128, 1, 1>} : () -> ()
