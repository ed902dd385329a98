// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-lower-gemm-async=chip=sm_100a

// gemm_async inputs tcgen05.mma cannot do (lowering/gemm_async/tcgen05_mma_plan.py steps A-F, operand_plan.py),
// one per declining check: the dispatch reports one error per op, each variant with the check that
// declined it (docs/gemm.md §6). The op's own invariants are in test/Dialect/tile/gemm-invalid.mlir.

// kind: .kind::f16 needs one type
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: kind - .kind::f16 needs A and B of one type, got f16 and bf16}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_kind_mixed_f16_bf16", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// kind: kind = i8 does not take bf16
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: kind - .kind::i8 takes ui8 / i8 / si8 operands, A is bf16}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1, kind = "i8"} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_kind_attr_types", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// kind: a block-scaled kind without scale factors
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: kind - .kind::mxf8f6f4 is block scaled: use tile.gemm_async.block_scale with scale factors}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1, kind = "mxf8f6f4"} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_kind_block_scaled_attr", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// kind: packed 6-bit operands (no b6x16_p32 packing)
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: kind - a holds packed 6-bit data; .kind::f8f6f4 reads 6-bit operands from shared memory padded to 8-bit slots: declare packing b6x16_p32}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_kind_packed_fp6", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// kind: packed fp4 for .kind::f8f6f4
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: kind - .kind::f8f6f4 reads 4-bit operands in the padded .b4x16_p64 form (packing b4x16_p64); packed ones are .kind::mxf4's / mxf4nvf4's}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1, kind = "f8f6f4"} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_kind_packed_fp4_f8f6f4", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// d-type: tf32 does not accumulate into f16
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x8xf32, "Swizzle<32B> o S[(128, 8) : (8, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x8xf32, "Swizzle<32B> o S[(128, 8) : (8, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf16, "S[(128, 128) : (1@TLane, 2@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: d-type - .kind::tf32 accumulates into f32, d is f16}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf16, "S[(128, 128) : (1@TLane, 2@TCol)]">, !tile.buffer<shared, 128x8xf32, "Swizzle<32B> o S[(128, 8) : (8, 1)]", align 256>, !tile.buffer<shared, 128x8xf32, "Swizzle<32B> o S[(128, 8) : (8, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_d_type", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// shape: M = 32 with cta_group 1
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xbf16, "Swizzle<32B> o S[(32, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x128xf32, "S[(32, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: shape - .kind::f16 with cta_group 1 takes M = 64 or 128, got M = 32 (d has 32 rows per CTA)}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 32x128xf32, "S[(32, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 32x16xbf16, "Swizzle<32B> o S[(32, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_shape_m", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// shape: N = 12 is no multiple of 8
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 12x16xbf16, "Swizzle<32B> o S[(12, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x12xf32, "S[(128, 12) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: shape - .kind::f16 with cta_group 1 takes N = 8..256 step 8, got 12}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x12xf32, "S[(128, 12) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 12x16xbf16, "Swizzle<32B> o S[(12, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_shape_n", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// shape: i8 with N = 40
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xsi8, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 40x32xsi8, "Swizzle<32B> o S[(40, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x40xi32, "S[(128, 40) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: shape - .kind::i8 with cta_group 1 takes N = 8, 16, 24, then 32..256 step 16, got 40}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x40xi32, "S[(128, 40) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xsi8, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 40x32xsi8, "Swizzle<32B> o S[(40, 32) : (32, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_shape_n_i8", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// shape: K = 24 is no multiple of 16 (bf16)
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x24xbf16, "S[(128, 24) : (24, 1)]">
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x24xbf16, "S[(128, 24) : (24, 1)]">
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: shape - K = 24 is not a multiple of .kind::f16's K = 16}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x24xbf16, "S[(128, 24) : (24, 1)]">, !tile.buffer<shared, 128x24xbf16, "S[(128, 24) : (24, 1)]">, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_shape_k", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// shape: block-scaled M = 64
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xf8E4M3FN, "Swizzle<32B> o S[(64, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x128xf32, "S[(4, 16, 128) : (32@TLane, 1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x4xf8E8M0FNU, "S[(2, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: shape - .kind::mxf8f6f4 with cta_group 1 takes M = 128, got M = 64 (d has 64 rows per CTA)}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 64x128xf32, "S[(4, 16, 128) : (32@TLane, 1@TLane, 1@TCol)]">, !tile.buffer<shared, 64x32xf8E4M3FN, "Swizzle<32B> o S[(64, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 64x4xf8E8M0FNU, "S[(2, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_shape_block_scaled_m64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// d-layout: D with columns along lanes
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TCol, 1@TLane)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: d-layout - d's element (0, 1) is at lane 1, element column 0; M = 128 with cta_group 1 (PTX data-path layout D) writes it at lane 0, column 1}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TCol, 1@TLane)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_d_layout_transposed", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// d-layout: M = 64 D at lane 8 (layout F starts at lane 0 or 16)
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x64xf32, "S[(4, 16, 64) : (32@TLane, 1@TLane, 1@TCol)] + O[8@TLane]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: d-layout - d starts at lane 8; this M and cta_group put D at lane 0 or 16}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 64x64xf32, "S[(4, 16, 64) : (32@TLane, 1@TLane, 1@TCol)] + O[8@TLane]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_d_layout_lane", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// d-layout: M = 64 with the 128-lane layout instead of layout F
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x64xf32, "S[(64, 64) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: d-layout - d's element (16, 0) is at lane 16, element column 0; M = 64 with cta_group 1 (PTX data-path layout F) writes it at lane 32, column 0}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 64x64xf32, "S[(64, 64) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_d_layout_m64_not_F", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-major: neither K- nor MN-major (k stride 2)
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "S[(128, 16) : (32, 2)]">
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: operand-major - A is neither K-major nor MN-major: elements (0, 0), (0, 1) and (1, 0) of its tile are at bits 0, 32 and 512}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "S[(128, 16) : (32, 2)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_operand_major", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-major: MN-major e3m2 (only 8-bit fp8 may transpose)
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<128B> o S[(128, 32) : (1, 128)]", align 1024, packing b6x16_p32>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: operand-major - A is MN-major (contiguous along M), but .kind::f8f6f4 cannot transpose f6E3M2FN operands (PTX "Transpose and Negate")}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<128B> o S[(128, 32) : (1, 128)]", align 1024, packing b6x16_p32>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_operand_mn_fp6", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-major: MN-major tf32
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x8xf32, "Swizzle<128B> o S[(4, 32, 8) : (256, 1, 32)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x8xf32, "Swizzle<32B> o S[(128, 8) : (8, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: operand-major - A is MN-major (contiguous along M), but tf32 operands transpose only with the 128B_base32B swizzle, which gemm_async does not lay out yet: make them K-major}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x8xf32, "Swizzle<128B> o S[(4, 32, 8) : (256, 1, 32)]", align 1024>, !tile.buffer<shared, 128x8xf32, "Swizzle<32B> o S[(128, 8) : (8, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_operand_mn_tf32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-swizzle: 128B swizzle with 64-byte rows
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xbf16, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xbf16, "Swizzle<32B> o S[(128, 2, 16) : (16, 2048, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: operand-swizzle - A is K-major with rows 64 B apart; the 128B swizzle needs 128 B}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xbf16, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>, !tile.buffer<shared, 128x32xbf16, "Swizzle<32B> o S[(128, 2, 16) : (16, 2048, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_operand_swizzle_pitch", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-swizzle: the 128B_base32B swizzle
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<128B_base32B> o S[(128, 16) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: operand-swizzle - A's 128B_base32B swizzle has no descriptor encoding here (modes: none, 32B, 64B, 128B)}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<128B_base32B> o S[(128, 16) : (64, 1)]", align 1024>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_operand_swizzle_base32b", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-canonical: rows 4..7 of each 8-row group 256 B after rows 0..3, not 128 B
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(16, 2, 4, 16) : (256, 128, 16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: operand-canonical - A (K-major, 32B swizzle, LBO 16 B, SBO 512 B) is not a canonical MMA layout: element (4, 0) of the tile is at byte 256, the descriptor reads it at byte 128}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(16, 2, 4, 16) : (256, 128, 16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_operand_canonical", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-alignment: a region starting in row 4 of a swizzle atom
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 136x16xbf16, "Swizzle<32B> o S[(136, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: operand-alignment - A's K-step 0 starts at byte 128, outside row 0 of a 256 B swizzle atom (the descriptor's base offset stays 0)}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1, a_offsets = array<i64: 4, 0>, a_sizes = array<i64: 128, 16>} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 136x16xbf16, "Swizzle<32B> o S[(136, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_operand_alignment_start", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-fields: SBO of 256 KiB
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(16, 8, 16) : (131072, 16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: operand-fields - A's SBO 262144 B must be a 16-byte multiple in [0, 2^18)}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(16, 8, 16) : (131072, 16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_operand_fields", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a-tmem-layout: A in tmem away from D's lanes
"tile.kernel"() ({
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %a = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TCol, 1@TLane)] + O[256@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: a-tmem-layout - a's element (0, 1) is at lane 1, element column 256: A in tensor memory sits at D's lanes (row m at lane 0) with K packed along the columns from its first}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TCol, 1@TLane)] + O[256@TCol]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_a_tmem_lanes", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a-tmem-layout: A in tmem with M = 128 and cta_group 2
"tile.kernel"() ({
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x128xf32, "S[(64, 2, 64) : (1@TLane, 64@TLane, 1@TCol)]">
  %a = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x16xbf16, "S[(64, 16) : (1@TLane, 1@TCol)] + O[256@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: a-tmem-layout - A in tensor memory needs 128 rows per CTA (M = 128, or 256 with cta_group 2), got 64: PTX gives A's lanes for M = 64 and for M = 128 with cta_group 2 only in figures}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 2} : (!tile.buffer<tmem, 64x128xf32, "S[(64, 2, 64) : (1@TLane, 64@TLane, 1@TCol)]">, !tile.buffer<tmem, 64x16xbf16, "S[(64, 16) : (1@TLane, 1@TCol)] + O[256@TCol]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_a_tmem_pair_m128", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// a-tmem-layout: 16-bit A one element a column (D's 16-bit layout): the .ts form packs two a column
"tile.kernel"() ({
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %a = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 2@TCol)] + O[256@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: a-tmem-layout - a's element (0, 1) is at lane 0, element column 258: A in tensor memory sits at D's lanes (row m at lane 0) with K packed along the columns from its first}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 2@TCol)] + O[256@TCol]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_a_tmem_unpacked", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a-tmem-layout: 16-bit A starting in the high half of a column
"tile.kernel"() ({
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %a = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)] + O[129@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: a-tmem-layout - a starts inside a 32-bit column (element column 129)}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)] + O[129@TCol]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_a_tmem_half_column", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// scale: SFA UE8M0, SFB UE4M3
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: scale - scale factors must both be f8E8M0FNU (UE8M0) or both f8E4M3FN (UE4M3), got f8E8M0FNU and f8E4M3FN}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_scale_types", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// scale: mxf8f6f4 with scale_vec 16
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: scale - .kind::mxf8f6f4 takes scale_vec 32, got 16}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1, scale_vec = 16} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_scale_vec", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// scale: UE4M3 scale factors with block32
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: scale - UE4M3 scale factors need .kind::mxf4nvf4 with scale_vec 16}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1, kind = "mxf4nvf4"} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_scale_ue4m3_block32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// sf-layout: scale factors not duplicated to the four lane quarters
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[2 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: sf-layout - sfa must be duplicated to lane quarters +0, +32, +64, +96 (R[4 : 32@TLane]), got R[2 : 32@TLane]}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[2 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_sf_replica", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// sf-layout: SFB for 64 of N = 128 columns
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x4xf8E8M0FNU, "S[(2, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: sf-layout - sfb is [64, 4]; the MMA reads rows 0..127 x K-blocks 0..0 (the K region's scale_vec blocks)}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 64x4xf8E8M0FNU, "S[(2, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_sf_rows", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// sf-layout: scale factors of rows 32..63 in the wrong column
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (8@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[560@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: sf-layout - sfa's scale factor (32, 0) is at lane 0, element column 520; the MMA reads it at lane 0, column 129, byte 0}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (8@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[560@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_sf_position", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// sf-layout: A's and B's K regions start at different K
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, "Swizzle<32B> o S[(128, 2, 32) : (32, 4096, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, "Swizzle<32B> o S[(128, 2, 32) : (32, 4096, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[544@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: sf-layout - a's K region starts at 0, b's at 32: with scale factors (indexed by the buffers' K) both must start at one multiple of 32}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1, a_offsets = array<i64: 0, 0>, a_sizes = array<i64: 128, 32>, b_offsets = array<i64: 0, 32>, b_sizes = array<i64: 128, 32>} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xf8E4M3FN, "Swizzle<32B> o S[(128, 2, 32) : (32, 4096, 1)]", align 256>, !tile.buffer<shared, 128x64xf8E4M3FN, "Swizzle<32B> o S[(128, 2, 32) : (32, 4096, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[544@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_sf_k_regions", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// sf-layout: mxf4's K-step reading scale factors from byte 1
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[513@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[544@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{tcgen05_mma: declined: sf-layout - sfa's K-step 0 starts at byte 1 of a column; this scale_vec reads 2 scale factor(s) from byte 0 or 2}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[513@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[544@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tc_sf_id", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// validate_wgmma: wgmma on sm_100a
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{wgmma: rejected: validate_wgmma - wgmma needs sm_90a, not sm_100a}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg_target", block = array<i32: 128, 1, 1>} : () -> ()
