// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-lower-copy-async=chip=sm_90a
//
// copy_async pinned to the `tma` variant (dispatch = "tma"): every predicate that rejects a copy and
// every planner step that declines one (lowering/copy_async/tma_plan.py steps A-D, docs/tma.md §3).

// validate_tma_copy: TMA moves global <-> shared
"tile.kernel"() ({
^bb0():
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %t = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  // expected-error@+1 {{tma: rejected: validate_tma_copy - moves global <-> shared, got shared -> shared}}
  "tile.copy_async"(%t, %s) {dispatch = "tma"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wrong_way", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// validate_tma_copy: a load completes on an mbarrier operand
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: rejected: validate_tma_copy - a TMA load completes on an mbarrier: give one as operand #2}}
  "tile.copy_async"(%s, %A) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dispatch = "tma"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "no_barrier", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// validate_tma_copy: .cta_group::2 is sm_100a's
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: rejected: validate_tma_copy - .cta_group::2 needs an sm_100a-family target, not sm_90a}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dispatch = "tma", cta_group = 2} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group2_sm90", block = array<i32: 32, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// exec_scope: one thread issues a TMA copy
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: rejected: exec_scope - cp.async.bulk.tensor is issued by a single thread (scope = "thread"), got scope = "warp"; put the copy under an elected thread}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dispatch = "tma", scope = "warp"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "scope_warp", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// B: no tile.tensor_map of the buffer
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: tensor-map - needs a tile.tensor_map of the global buffer with box [32, 64] and swizzle "128B" (the shared buffer's); declared: none}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dispatch = "tma"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "no_map", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// B: the declared map has another swizzle than the shared buffer
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 32>, swizzle = "64B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: tensor-map - needs a tile.tensor_map of the global buffer with box [32, 64] and swizzle "128B" (the shared buffer's); declared: box [32, 32] swizzle 64B}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dispatch = "tma"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "map_swizzle", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// B: the region's box breaks a TMA rule (a box dim over 256)
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 512x16xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 256, 16>} : (!tile.buffer<global, 512x16xui8>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 300x16xui8, align 128>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: tensor-map-box - box dim 0 is 300; TMA boxes are 1 to 256 elements per dim}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 300, 16>, dispatch = "tma"} : (!tile.buffer<shared, 300x16xui8, align 128>, !tile.buffer<global, 512x16xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "box_300", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// B: a store writes whole boxes (no clipping at the edge)
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 100x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 64, 64>} : (!tile.buffer<global, 100x64xui8>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xui8, align 128>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: tensor-map - needs a tile.tensor_map of the global buffer with box [36, 64] and swizzle "none" (the shared buffer's); declared: box [64, 64] swizzle none}}
  "tile.copy_async"(%A, %s) {dst_offsets = array<i64: 64, 0>, dst_sizes = array<i64: 36, 64>, src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 36, 64>, dispatch = "tma"} : (!tile.buffer<global, 100x64xui8>, !tile.buffer<shared, 64x64xui8, align 128>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "store_clipped", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// A: the inner start coordinate is not a 16-byte multiple (the H200 faults)
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: coordinate - the region starts 120 B into its inner dim; a TMA box must start on a 16-byte multiple there}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 60>, src_sizes = array<i64: 32, 64>, dispatch = "tma"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "inner_start", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// A: TMA cannot move sub-byte elements
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x64xi4>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xi4, align 128>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: tensor-map-dtype - TMA cannot move i4 elements}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dispatch = "tma"} : (!tile.buffer<shared, 32x64xi4, align 128>, !tile.buffer<global, 32x64xi4>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "dtype_i4", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// C: 128B_base32B is not a TMA swizzle here
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B_base32B> o S[(32, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: swizzle - TMA writes the 32B / 64B / 128B swizzles of 16-byte atomicity, not 128B_base32B}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dispatch = "tma"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B_base32B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "swizzle_base32B", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// C: the shared tile is not laid out as TMA writes the box (column-major)
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (1, 32)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: smem-layout - TMA writes the box as S[2048 : 1] (rows of 128 B, swizzled), the shared region is S[(32, 64) : (1, 32)]}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dispatch = "tma"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (1, 32)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "smem_col_major", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// D: a 128B-swizzled box needs a 1024-byte aligned shared start
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 40x64xbf16, "Swizzle<128B> o S[(40, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: smem-alignment - TMA needs the shared box at a multiple of 1024 B (the swizzle repeat); the buffer is aligned 1024 B and the box starts 512 B into it}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 64>, dst_offsets = array<i64: 4, 0>, dst_sizes = array<i64: 32, 64>, dispatch = "tma"} : (!tile.buffer<shared, 40x64xbf16, "Swizzle<128B> o S[(40, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "smem_align", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// D: the shared buffer must hold the whole box TMA writes
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 100x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 64, 64>} : (!tile.buffer<global, 100x64xui8>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 36x64xui8, align 128>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: box-fits - TMA writes the whole [64, 64] box (up to byte 4096); the shared buffer has 2304 B}}
  "tile.copy_async"(%s, %A, %b) {src_offsets = array<i64: 64, 0>, src_sizes = array<i64: 36, 64>, dispatch = "tma"} : (!tile.buffer<shared, 36x64xui8, align 128>, !tile.buffer<global, 100x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "box_fits", block = array<i32: 32, 1, 1>} : () -> ()
