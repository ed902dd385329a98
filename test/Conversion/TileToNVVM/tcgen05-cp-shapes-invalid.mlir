// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-lower-copy-async

// copy_async shared -> tmem inputs that no tcgen05.cp shape fits, one per declining check of the shape
// planner (tcgen05_cp_plan.py steps B-H; the 32x128b-era checks are in copy-async-tcgen05-cp-invalid.mlir):
// the dispatch's error names the check and the reason.

// a replica that is no multicast is refused by the predicate
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[2 : 16@TLane]">
  // expected-error@+1 {{smem->tmem: rejected: validate_smem_tmem_copy - requires a tcgen05.cp multicast replica on tmem (R[4 : 32@TLane], R[2 : 64@TLane], R[2 : 32@TLane]) or none, got R[2 : 16@TLane]}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[2 : 16@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "replica_no_multicast", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// warpx2::02_13's replica, but 32 rows: it copies 64
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]">
  // expected-error@+1 {{smem->tmem: declined: router - tmem rows [(32, 1@TLane)] with R[2 : 64@TLane] fit no tcgen05.cp shape: need [(64, 1@TLane)] (.64x128b.warpx2::02_13)}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "router_rows_disagree_with_replica", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 4 lanes 32 apart with only 128 bits per row: 4x256b moves 256
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x4xf32, "S[(4, 4) : (4, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x4xf32, "S[(4, 4) : (32@TLane, 1@TCol)]">
  // expected-error@+1 {{smem->tmem: declined: group - 16 copied elements are not a multiple of 4 rows x 8 elements (256 bits per row of .4x256b)}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 4x4xf32, "S[(4, 4) : (32@TLane, 1@TCol)]">, !tile.buffer<shared, 4x4xf32, "S[(4, 4) : (4, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "group_4x256b_row_too_narrow", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a 256-bit source row must be two 16-byte chunks of contiguous elements
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x8xf32, "S[(4, 2, 4) : (16, 1, 2)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x8xf32, "S[(4, 8) : (32@TLane, 1@TCol)]">
  // expected-error@+1 {{smem->tmem: declined: group - source row of .4x256b must be two 16-byte chunks of 4 contiguous elements, (8, 1) or (2, LBO), (4, 1); got [(2, 1), (4, 2)]}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 4x8xf32, "S[(4, 8) : (32@TLane, 1@TCol)]">, !tile.buffer<shared, 4x8xf32, "S[(4, 2, 4) : (16, 1, 2)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "group_256b_row_not_two_chunks", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// with a swizzle the second chunk is read at +16 B; these are 64 B apart
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x16xbf16, "Swizzle<128B> o S[(4, 2, 8) : (64, 32, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x16xbf16, "S[(4, 16) : (32@TLane, 1@TCol)]">
  // expected-error@+1 {{smem->tmem: declined: lbo - with 128B swizzle the second chunk of a 256-bit row is read 16 B after the first (LBO unused), but the source puts it 64 B after}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 4x16xbf16, "S[(4, 16) : (32@TLane, 1@TCol)]">, !tile.buffer<shared, 4x16xbf16, "Swizzle<128B> o S[(4, 2, 8) : (64, 32, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "lbo_swizzled_chunks_apart", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// no swizzle: the second chunk 24 B after the first is no encodable LBO
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x8xf32, "S[(4, 2, 4) : (4, 6, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x8xf32, "S[(4, 8) : (32@TLane, 1@TCol)]">
  // expected-error@+1 {{smem->tmem: declined: lbo - a 256-bit row's second chunk is 24 B after its first; LBO must be a 16-byte multiple in [0, 2^18)}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 4x8xf32, "S[(4, 8) : (32@TLane, 1@TCol)]">, !tile.buffer<shared, 4x8xf32, "S[(4, 2, 4) : (4, 6, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "lbo_not_16B", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// tmem repeats its outer dim (stride 0), the source does not
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 2x32x16xui8, "S[(2, 32, 16) : (512, 16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 2x32x16xui8, "S[(2, 32, 16) : (0@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: broadcast - stride-0 pieces differ: tmem [('run', 512), ('broadcast', 2)], source [('run', 1024)]}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 2x32x16xui8, "S[(2, 32, 16) : (0@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 2x32x16xui8, "S[(2, 32, 16) : (512, 16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "broadcast_mismatch", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 8-row groups 136 B apart
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(4, 8, 16) : (136, 16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: alignment.sbo - SBO 136 B must be a 16-byte multiple in [0, 2^18)}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(4, 8, 16) : (136, 16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "alignment_sbo_not_16B", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// the second 16-byte K chunk is 520 B after the first
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, "S[(32, 2, 16) : (16, 520, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x32xui8, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: alignment.middle - middle 0: source step 520 B is not 16 B aligned}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 32x32xui8, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x32xui8, "S[(32, 2, 16) : (16, 520, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "alignment_middle_step_not_16B", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 128B swizzle, K chunks of 32 B 112 B apart: the second leaves the atom's first row
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xui8, "Swizzle<128B> o S[(128, 2, 32) : (128, 112, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x64xui8, "S[(128, 64) : (1@TLane, 1@TCol)]">
  // expected-error@+1 {{smem->tmem: declined: alignment.middle - cp at middle index (1, 1) starts at source byte 128, outside row 0 of a 1024 B 128B swizzle atom}}
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x64xui8, "S[(128, 64) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xui8, "Swizzle<128B> o S[(128, 2, 32) : (128, 112, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "alignment_middle_leaves_row_0", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 128x256b at column 2 (4 bf16 elements): columns are 128-bit aligned
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x32xbf16, "S[(128, 32) : (1@TLane, 1@TCol)]">
  // expected-error@+1 {{smem->tmem: declined: alignment.tmem_col - cp at middle index (0,) writes tmem column 2, not a multiple of 4}}
  "tile.copy_async"(%t, %s) {dst_offsets = array<i64: 0, 4>, dst_sizes = array<i64: 128, 16>, cta_group = 1} : (!tile.buffer<tmem, 128x32xbf16, "S[(128, 32) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "alignment_tmem_col_256b", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// the source region [8, 24) of K wraps around its inner (16, 1) iter
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, "S[(32, 2, 16) : (16, 512, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: declined: region - source: region [8, 24) of dim 1 cuts iter (16, 1): past the inner iters the region needs indices [8, 24) of its 16, which wraps past its end, so it is not a strided sub-range of the dim (dim iters: (2, 512), (16, 1))}}
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 8>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x32xui8, "S[(32, 2, 16) : (16, 512, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "region_cuts_an_iter", block = array<i32: 128, 1, 1>} : () -> ()
