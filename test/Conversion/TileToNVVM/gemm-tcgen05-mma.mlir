// RUN: tile-opt %s --split-input-file --tile-verify --tile-lower-gemm-async --no-type-aliases | FileCheck %s

// gemm_async -> tcgen05.mma for each kind (lowering/gemm_async/tcgen05_mma.py). The `tile.mma` attribute
// of each instruction spells its plan: the 32-bit instruction descriptor (docs/gemm.md §2, PTX ISA
// "Instruction descriptor") and both shared-memory descriptors' fields (docs/gemm.md §4), per K-step.

// tf32 (f32 buffers), K-major 128B swizzle, M=128 N=128 K=32: 4 K-steps of K=8, 32 B apart.
// idesc 0x08200910: dtype F32 (1) bit 4, atype/btype TF32 (2) bits 7/10, N>>3 = 16 bit 17, M>>4 = 8 bit 24.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: arith.constant 136317200 : i32
// CHECK: nvvm.tcgen05.mma {{.+}}kind = #nvvm.tcgen05_mma_kind<tf32>, tile.mma = "step=0 idesc=0x08200910 a=(K-major 128B lbo=16 sbo=1024 start=0) b=(K-major 128B lbo=16 sbo=1024 start=0)"
// CHECK: tile.mma = "step=3 idesc=0x08200910 a=(K-major 128B lbo=16 sbo=1024 start=96) b=(K-major 128B lbo=16 sbo=1024 start=96)"
// CHECK-NOT: nvvm.tcgen05.mma
// CHECK: sym_name = "tf32"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant false
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>, !tile.buffer<shared, 128x32xf32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tf32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// f16 x f16 -> f16, M=64 (data-path layout F: lane (m % 16) + 32 (m / 16), 16-bit D one element per column),
// no swizzle (core matrices: LBO = K step 1024 B, SBO = 8-row step 128 B), N=64, K=16: one step.
// idesc 0x04100000: dtype F16 (0), atype/btype F16 (0), N>>3 = 8, M>>4 = 4.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: tile.mma = "step=0 idesc=0x04100000 a=(K-major none lbo=1024 sbo=128 start=0) b=(K-major none lbo=1024 sbo=128 start=0)"
// CHECK: sym_name = "f16_m64"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf16, "S[(8, 8, 2, 8) : (64, 8, 512, 1)]", align 128>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf16, "S[(8, 8, 2, 8) : (64, 8, 512, 1)]", align 128>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x64xf16, "S[(4, 16, 64) : (32@TLane, 1@TLane, 2@TCol)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 64x64xf16, "S[(4, 16, 64) : (32@TLane, 1@TLane, 2@TCol)]">, !tile.buffer<shared, 64x16xf16, "S[(8, 8, 2, 8) : (64, 8, 512, 1)]", align 128>, !tile.buffer<shared, 64x16xf16, "S[(8, 8, 2, 8) : (64, 8, 512, 1)]", align 128>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "f16_m64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// bf16 -> f32 with A and B MN-major (transpose bits 15 and 16), 128B swizzle: LBO = MN-atom step
// (64 rows x 64 K x 2 B = 8192 B), SBO = 8-K-row step 1024 B; each K-step of 16 rows is 2048 B.
// idesc 0x08218490.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: tile.mma = "step=0 idesc=0x08218490 a=(MN-major 128B lbo=8192 sbo=1024 start=0) b=(MN-major 128B lbo=8192 sbo=1024 start=0)"
// CHECK: tile.mma = "step=3 idesc=0x08218490 a=(MN-major 128B lbo=8192 sbo=1024 start=6144)
// CHECK: sym_name = "bf16_mn_major"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(2, 64, 64) : (4096, 1, 64)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(2, 64, 64) : (4096, 1, 64)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(2, 64, 64) : (4096, 1, 64)]", align 1024>, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(2, 64, 64) : (4096, 1, 64)]", align 1024>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bf16_mn_major", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// f8f6f4: e4m3 x e5m2 -> f16, 64B swizzle, K=64: 2 K-steps of 32 (32 B apart); idesc 0x08200400:
// atype E4M3 (0), btype E5M2 (1) bit 10, dtype F16 (0).
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: kind = #nvvm.tcgen05_mma_kind<f8f6f4>, tile.mma = "step=0 idesc=0x08200400 a=(K-major 64B lbo=16 sbo=512 start=0)
// CHECK: tile.mma = "step=1 idesc=0x08200400 a=(K-major 64B lbo=16 sbo=512 start=32)
// CHECK: sym_name = "e4m3_e5m2"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, "Swizzle<64B> o S[(128, 64) : (64, 1)]", align 512>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E5M2, "Swizzle<64B> o S[(128, 64) : (64, 1)]", align 512>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf16, "S[(128, 128) : (1@TLane, 2@TCol)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf16, "S[(128, 128) : (1@TLane, 2@TCol)]">, !tile.buffer<shared, 128x64xf8E4M3FN, "Swizzle<64B> o S[(128, 64) : (64, 1)]", align 512>, !tile.buffer<shared, 128x64xf8E5M2, "Swizzle<64B> o S[(128, 64) : (64, 1)]", align 512>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "e4m3_e5m2", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// f8f6f4 with 6- and 4-bit operands in their padded shared forms (one 8-bit slot per element):
// e3m2 x e2m1 -> f32, 32B swizzle. idesc 0x08201610: atype E3M2 (4), btype E2M1 (5).
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: tile.mma = "step=0 idesc=0x08201610 a=(K-major 32B lbo=16 sbo=256 start=0)
// CHECK: sym_name = "e3m2_e2m1"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256, packing b6x16_p32>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf4E2M1FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256, packing b4x16_p64>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256, packing b6x16_p32>, !tile.buffer<shared, 128x32xf4E2M1FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256, packing b4x16_p64>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "e3m2_e2m1", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// i8: s8 x u8 -> s32, N=48 (i8 with cta_group 1: N = 8, 16, 24, then 32..256 step 16).
// idesc 0x080c00a0: dtype S32 (2), atype S8 (1), btype U8 (0), N>>3 = 6.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: kind = #nvvm.tcgen05_mma_kind<i8>, tile.mma = "step=0 idesc=0x080c00a0
// CHECK: sym_name = "i8"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xsi8, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 48x32xui8, "Swizzle<32B> o S[(48, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x48xi32, "S[(128, 48) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x48xi32, "S[(128, 48) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xsi8, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 48x32xui8, "Swizzle<32B> o S[(48, 32) : (32, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "i8", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// A in tensor memory (the .ts form): bf16 A at columns 128.., K=32: 2 K-steps, A's address + 8 columns
// each; D at columns 0..127.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: %[[TA:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !tile.buffer<tmem, 128x32xbf16, {{.+}}> to i32
// CHECK: %[[C128:.+]] = arith.constant 128 : i32
// CHECK: %[[A0:.+]] = arith.addi %[[TA]], %[[C128]] : i32
// CHECK: %[[PA0:.+]] = llvm.inttoptr %[[A0]] : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.mma %{{.+}}, %[[PA0]], %{{.+}} tile.mma = "step=0 idesc=0x08200490 a=(tmem col=128)
// CHECK: tile.mma = "step=1 idesc=0x08200490 a=(tmem col=136)
// CHECK: sym_name = "a_in_tmem"
"tile.kernel"() ({
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xbf16, "Swizzle<64B> o S[(128, 32) : (32, 1)]", align 512>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %a = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x32xbf16, "S[(128, 32) : (1@TLane, 1@TCol)] + O[256@TCol]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<tmem, 128x32xbf16, "S[(128, 32) : (1@TLane, 1@TCol)] + O[256@TCol]">, !tile.buffer<shared, 128x32xbf16, "Swizzle<64B> o S[(128, 32) : (32, 1)]", align 512>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "a_in_tmem", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// cta_group 2, M=256: each CTA holds 128 rows of A and D and N/2 = 128 rows of B; N=256.
// idesc 0x10400490: M>>4 = 16.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.tcgen05_mma_kind<f16>, tile.mma = "step=0 idesc=0x10400490
// CHECK: sym_name = "pair_m256"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x256xf32, "S[(128, 256) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 2} : (!tile.buffer<tmem, 128x256xf32, "S[(128, 256) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "pair_m256", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// cta_group 2, M=128 (data-path layout B: D[m][n] at lane m + 64 (n / 64), column n % 64 per CTA),
// N=128; idesc 0x08200490.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.tcgen05_mma_kind<f16>, tile.mma = "step=0 idesc=0x08200490
// CHECK: sym_name = "pair_m128"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x128xf32, "S[(64, 2, 64) : (1@TLane, 64@TLane, 1@TCol)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 2} : (!tile.buffer<tmem, 64x128xf32, "S[(64, 2, 64) : (1@TLane, 64@TLane, 1@TCol)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "pair_m128", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// mxf8f6f4, e4m3 x e4m3 with UE8M0 scale factors (block32: one per 32 K per row), K=128: 4 K-steps
// reading bytes (SF id) 0..3 of the same columns; SFA at column 128, SFB at column 132.
// idesc 0x08a00000 | sfb_id << 4 | sfa_id << 29: scale type UE8M0 bit 23, M>>7 = 1 at bit 27.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: nvvm.tcgen05.mma.block_scale {{.+}}blockScale = #nvvm.tcgen05_mma_block_scale<block32>{{.+}}kind = #nvvm.{{tcgen05_mma|block_scale}}_kind<mxf8f6f4>, tile.mma = "step=0 idesc=0x08a00000 {{.+}} sfa_col=128 sfb_col=132"
// CHECK: tile.mma = "step=1 idesc=0x28a00010
// CHECK: tile.mma = "step=2 idesc=0x48a00020
// CHECK: tile.mma = "step=3 idesc=0x68a00030
// CHECK: sym_name = "mxf8f6f4"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x128xf8E4M3FN, "Swizzle<128B> o S[(128, 128) : (128, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x128xf8E4M3FN, "Swizzle<128B> o S[(128, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">
  %acc = arith.constant true
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x128xf8E4M3FN, "Swizzle<128B> o S[(128, 128) : (128, 1)]", align 1024>, !tile.buffer<shared, 128x128xf8E4M3FN, "Swizzle<128B> o S[(128, 128) : (128, 1)]", align 1024>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mxf8f6f4", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// mxf4: packed e2m1 (two per byte) with UE8M0, block32: 2 scale factors per K-step of 64; K=128:
// 2 K-steps with SF ids 0 and 2. idesc 0x08a00080: atype/btype E2M1 = 1 (the mxf4 code).
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: kind = #nvvm.{{tcgen05_mma|block_scale}}_kind<mxf4>, tile.mma = "step=0 idesc=0x08a00480
// CHECK: tile.mma = "step=1 idesc=0x48a004a0
// CHECK: sym_name = "mxf4"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x128xf4E2M1FN, "Swizzle<64B> o S[(128, 128) : (128, 1)]", align 512>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x128xf4E2M1FN, "Swizzle<64B> o S[(128, 128) : (128, 1)]", align 512>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">
  %acc = arith.constant true
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x128xf4E2M1FN, "Swizzle<64B> o S[(128, 128) : (128, 1)]", align 512>, !tile.buffer<shared, 128x128xf4E2M1FN, "Swizzle<64B> o S[(128, 128) : (128, 1)]", align 512>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mxf4", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// mxf4nvf4 (NVFP4): e2m1 with UE4M3 scale factors every 16 K (block16: 4 per K-step, SF id 0);
// idesc 0x08200480: scale type UE4M3 = 0.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: blockScale = #nvvm.tcgen05_mma_block_scale<block16>{{.+}}kind = #nvvm.{{tcgen05_mma|block_scale}}_kind<mxf4nvf4>, tile.mma = "step=0 idesc=0x08200480
// CHECK: sym_name = "nvfp4"
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
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1, scale_vec = 16} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "nvfp4", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// mxf8f6f4 with cta_group 2, M=256: per CTA SFA for its 128 rows, SFB for all N = 256 columns
// (8 columns; docs/gemm.md §5). idesc 0x10c00000.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: ctaGroup = #nvvm.cta_group<cta_2>{{.+}}tile.mma = "step=0 idesc=0x10c00000
// CHECK: sym_name = "mx_pair"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x256xf32, "S[(128, 256) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[1024@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 256x4xf8E8M0FNU, "S[(8, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[1040@TCol]">
  %acc = arith.constant true
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 2} : (!tile.buffer<tmem, 128x256xf32, "S[(128, 256) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[1024@TCol]">, !tile.buffer<tmem, 256x4xf8E8M0FNU, "S[(8, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[1040@TCol]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mx_pair", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
