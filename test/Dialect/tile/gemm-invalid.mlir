// RUN: tile-opt %s --split-input-file --verify-diagnostics

// tile.gemm_async / tile.gemm_async.block_scale / tile.gemm_wait: one case per check of their verifier
// (dialect/ops/gemm.py GemmAsyncOp.verify, docs/gemm.md §1). What a variant declines is in
// test/Conversion/TileToNVVM/gemm-*-invalid.mlir.

// gemm-shape: A's and B's K differ
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xbf16, "Swizzle<32B> o S[(128, 2, 16) : (16, 2048, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{gemm-shape: a is 128x32 and b 128x16 (M x K and N x K): their K differ}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xbf16, "Swizzle<32B> o S[(128, 2, 16) : (16, 2048, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "k_differ", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// gemm-shape: A has M = 64 rows, D 128
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{gemm-shape: a has 64 rows and d 128: both hold this CTA's M / cta_group rows}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "a_rows", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// gemm-shape: B has 64 rows for N = 128 with cta_group 1
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{gemm-shape: b has 64 rows (N / cta_group) and d 128 columns (N), with cta_group 1}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "b_rows", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// gemm-shape: with cta_group 2, B holds N / 2 rows per CTA
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{gemm-shape: b has 128 rows (N / cta_group) and d 128 columns (N), with cta_group 2}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 2} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "pair_b_rows", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// gemm-shape: a 3-D region
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 2x128x16xbf16>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{gemm-shape: the a region [2, 128, 16] is not a matrix (2 dims after leading dims of extent 1)}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 2x128x16xbf16>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "not_a_matrix", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// gemm-scope: tcgen05.mma under scope warpgroup
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{gemm-scope: an accumulator in tensor memory is tcgen05.mma's, issued by one thread: scope must be "thread" (put it under an elected thread), got "warpgroup"}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1, scope = "warpgroup"} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tmem_scope", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// gemm-scope: a register accumulator issued by one thread
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{gemm-scope: a register accumulator is wgmma's, issued by a warpgroup with cta_group 1: got scope "thread", cta_group 1}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "thread"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reg_scope", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-scope: a register accumulator with A from tensor memory
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %a = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x16xbf16, "S[(4, 16, 16) : (32@TLane, 1@TLane, 1@TCol)]">
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{operand-scope: with a register accumulator (wgmma) A is read from shared memory}}
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 64x16xbf16, "S[(4, 16, 16) : (32@TLane, 1@TLane, 1@TCol)]">, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reg_a_tmem", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-scope: block scaling with a register accumulator
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xf8E4M3FN, "Swizzle<32B> o S[(64, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 256} : (!tile.buffer<shared, 1xi32>) -> ()
  %f = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x128xf32, "S[(4, 2, 8, 16, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  // expected-error@+1 {{operand-scope: block-scaled MMAs accumulate in tensor memory (tcgen05.mma): d must be tmem}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %f, %f) {scope = "warpgroup"} : (!tile.buffer<reg, 64x128xf32, "S[(4, 2, 8, 16, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x32xf8E4M3FN, "Swizzle<32B> o S[(64, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bs_reg", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// attributes: an unknown kind
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  // expected-error@+1 {{attributes: attribute 'kind' must be one of tf32, f16, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4, got 'fp64'}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1, kind = "fp64"} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "kind_choice", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// attributes: scale_vec 64
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %acc = arith.constant true
  // expected-error@+1 {{attributes: attribute 'scale_vec' must be one of 16, 32, got 64}}
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1, scale_vec = 64} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "scale_vec_choice", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-type: accumulate is not an i1
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant 1 : i32
  // expected-error@+1 {{operand-type: operand #3 (accumulate) must be i1, got i32}}
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "acc_type", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// gemm-wait: pending beyond 63
"tile.kernel"() ({
  // expected-error@+1 {{gemm-wait: pending must be in [0, 63], got 64}}
  "tile.gemm_wait"() {pending = 64} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wait", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// operand-scope: a tensor-memory accumulator (tcgen05.mma) with A from registers (wgmma's RS form only)
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xf32, "S[(128, 16) : (1@TLane, 1@TCol)]">
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x16xbf16, "S[(4, 32, 16) : (1@warpid, 1@laneid, 1@reg)]">
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %acc = arith.constant true
  // expected-error@+1 {{operand-scope: tcgen05.mma (a tmem accumulator) reads A from shared or tensor memory, not registers}}
  "tile.gemm_async"(%d, %a, %b, %acc) : (!tile.buffer<tmem, 128x16xf32, "S[(128, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<reg, 128x16xbf16, "S[(4, 32, 16) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tmem_d_reg_a", block = array<i32: 128, 1, 1>} : () -> ()
