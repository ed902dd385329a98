// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-lower-copy-async

// copy_async shared -> tmem inputs that no tcgen05.cp shape can copy. The dispatch reports one
// error per op listing every variant and why: "rejected" names the failing predicate, "declined" the
// planner step (tcgen05_cp_plan.py steps A-I). The seed's rejected cases are sw3_mid_atom_row,
// sw2_mid_atom_col and sw0_row_stride_64.

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)]">
  // expected-error@+1 {{smem->tmem: declined: router - tmem rows [(32, 1@TLane)] with no replica fit no tcgen05.cp shape: need [(128, 1@TLane)] (.128x256b, .128x128b) or [(4, 32@TLane)] (.4x256b)}}
  "tile.copy_async"(%t, %s) {} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "router_missing", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: rejected: exec_scope - tcgen05.cp is issued by a single thread (scope = "thread"), got scope = "warp"}}
  "tile.copy_async"(%t, %s) {scope = "warp"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wrong_issuing_scope", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<64B> o S[(32, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: swizzle - row pitch 128 B implies 128B swizzle but the buffer has 64B}}
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x128xui8, "Swizzle<64B> o S[(32, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "swizzle_mismatch", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: alignment.src_start - source start 512 B is not aligned to the 1024 B 128B swizzle atom}}
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 4, 0>, src_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw3_mid_atom_row", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<64B> o S[(32, 2, 64) : (64, 2048, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: alignment.src_start - source start 32 B is not aligned to the 512 B 64B swizzle atom}}
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 32>, src_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x128xui8, "Swizzle<64B> o S[(32, 2, 64) : (64, 2048, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw2_mid_atom_col", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xui8, "S[(64, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: swizzle - row pitch 64 B implies 64B swizzle but the buffer has none}}
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 4, 0>, src_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x64xui8, "S[(64, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw0_row_stride_64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x64xui8, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: alignment.tmem_col - cp at middle index () writes tmem column 2, not a multiple of 4}}
  "tile.copy_async"(%t, %s) {dst_offsets = array<i64: 0, 8>, dst_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x64xui8, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tmem_column_not_multiple_of_4", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x64xui8, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: alignment.tmem_col - tmem column offset of 2 8-bit elements is not a whole 32-bit column}}
  "tile.copy_async"(%t, %s) {dst_offsets = array<i64: 0, 2>, dst_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x64xui8, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tmem_column_mid_32bit", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xf6E2M3FN, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xf6E2M3FN, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // 6 bits do not divide 128: packed 6-bit rows cannot be cut into the cp's 128-bit row chunks
  // expected-error@+1 {{smem->tmem: declined: dtype - packed 6-bit elements do not split into 128-bit rows (16 bytes hold 21.3 of them); tcgen05.cp reads 6-bit data in the .b6x16_p32 form: declare the shared buffer with packing b6x16_p32}}
  "tile.copy_async"(%t, %s) {} : (!tile.buffer<tmem, 32x16xf6E2M3FN, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xf6E2M3FN, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "dtype_6_bits", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{no copy_async variant applies to shared -> tmem (dispatch = "tma"):}}
  "tile.copy_async"(%t, %s) {dispatch = "tma"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "pinned_unknown_variant", block = array<i32: 128, 1, 1>} : () -> ()
