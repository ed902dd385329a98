// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-lower-gemm-async=chip=sm_90a

// gemm_async inputs wgmma cannot do (lowering/gemm_async/wgmma_plan.py steps A-D), one per declining
// check (docs/gemm.md §6).

// validate_wgmma: a tcgen05 kind attribute
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{wgmma: rejected: validate_wgmma - kind = "f16" names a tcgen05 kind; wgmma takes its types from the buffers}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup", kind = "f16"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg_kind_attr", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// kind: bf16 x e4m3
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xbf16, "Swizzle<64B> o S[(64, 32) : (32, 1)]", align 512>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x32xf8E4M3FN, "Swizzle<32B> o S[(16, 32) : (32, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{wgmma: declined: kind - wgmma cannot multiply bf16 by f8E4M3FN}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x32xbf16, "Swizzle<64B> o S[(64, 32) : (32, 1)]", align 512>, !tile.buffer<shared, 16x32xf8E4M3FN, "Swizzle<32B> o S[(16, 32) : (32, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg_kind_types", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// d-type: bf16 into an s32 accumulator
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xi32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{wgmma: declined: d-type - wgmma of bf16 operands accumulates into f32 here, d is i32}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xi32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg_d_type", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// shape: N = 12
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 12x16xbf16, "Swizzle<32B> o S[(12, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x12xf32, "S[(4, 2, 8, 3, 2, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{wgmma: declined: shape - wgmma with bf16 operands takes N = 8..256 step 8, got 12}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x12xf32, "S[(4, 2, 8, 3, 2, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 12x16xbf16, "Swizzle<32B> o S[(12, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg_shape_n", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// shape: M = 128 for one warpgroup
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x16xf32, "S[(8, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{wgmma: declined: shape - wgmma's M is 64 per warpgroup, d has 128 rows}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 128x16xf32, "S[(8, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg_shape_m", block = array<i32: 256, 1, 1>} : () -> ()

// -----

// d-fragment: an accumulator layout that is not wgmma's fragment
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 16, 2, 8) : (1@warpid, 2@laneid, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{wgmma: declined: d-fragment - wgmma's accumulator register 2 of warp 0 lane 0 is element (8, 0), which the layout gives to warp 0 lane 16}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 16, 2, 8) : (1@warpid, 2@laneid, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg_d_fragment", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-major: MN-major tf32 (wgmma transposes only f16 / bf16)
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x8xf32, "Swizzle<128B> o S[(2, 32, 8) : (256, 1, 32)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x8xf32, "Swizzle<32B> o S[(16, 8) : (8, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{wgmma: declined: operand-major - A is MN-major (contiguous along M), but wgmma transposes only f16 / bf16 operands (imm-trans), not tf32}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x8xf32, "Swizzle<128B> o S[(2, 32, 8) : (256, 1, 32)]", align 1024>, !tile.buffer<shared, 16x8xf32, "Swizzle<32B> o S[(16, 8) : (8, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg_mn_tf32", block = array<i32: 128, 1, 1>} : () -> ()
