// RUN: tile-opt %s --split-input-file --tile-verify --tile-lower-gemm-async=chip=sm_90a | FileCheck %s

// gemm_async -> wgmma (lowering/gemm_async/wgmma.py) for f16, bf16, tf32, e4m3/e5m2 and s8/u8: one wgmma
// group per op (fence, the K-steps, commit); `tile.mma` spells each K-step's sm_90 descriptor fields.

// bf16 x bf16 -> f32, m64n128k16, K-major 128B swizzle, K=64: fence, 4 K-steps (descriptors 32 B apart),
// commit; the accumulate operand is computed (k != 0), so the first step's scale-d predicate is set from it
// in inline assembly (no branch: ptxas serialises wgmma beside a divergent path, C7520), the same text NVVM
// prints for its op but with `setp.ne.b32 p, $66, 0` on a register ("r"); imm-scale-a/b 1, imm-trans-a/b 0.
// Register slot v of the accumulator holds fragment register v (registers.md's layout).
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: scf.if
// CHECK: %[[ACC:.+]] = arith.extui %{{.+}} : i1 to i32
// CHECK: llvm.inline_asm has_side_effects {tile.mma = "step=0 a=(K-major 128B lbo=16 sbo=1024 start=0) b=(K-major 128B lbo=16 sbo=1024 start=0) scale-d=accumulate"} "{\0A.reg .pred p;\0Asetp.ne.b32 p, $130, 0;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0, {{.+}}, $63}, $128, $129, p, 1, 1, 0, 0;\0A}\0A", "=f,{{.+}},=f,0,{{.+}},63,l,l,r" {{.+}}, %[[ACC]] : ({{.+}}, i64, i64, i32) -> !llvm.struct<(f32,
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: tile.mma = "step=3 a=(K-major 128B lbo=16 sbo=1024 start=96) b=(K-major 128B lbo=16 sbo=1024 start=96)"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: sym_name = "bf16_dynamic_acc"
"tile.kernel"() ({
^bb0(%k: i32):
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x128xf32, "S[(4, 2, 8, 16, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %c0 = arith.constant 0 : i32
  %acc = arith.cmpi ne, %k, %c0 : i32
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x128xf32, "S[(4, 2, 8, 16, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bf16_dynamic_acc", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// f16 with A and B MN-major (imm-trans-a/b = 1: layout col / row), 64B swizzle (two 32-row MN atoms 1024 B apart), N=64, accumulate false
// (a constant: scale-d zero, no scf.if).
// CHECK-LABEL: "tile.kernel"() ({
// CHECK-NOT: scf.if
// CHECK: D[<f32>, <zero>], A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]
// CHECK: tile.mma = "step=0 a=(MN-major 64B lbo=1024 sbo=512 start=0) b=(MN-major 64B lbo=1024 sbo=512 start=0)"
// CHECK: sym_name = "f16_mn_major"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf16, "Swizzle<64B> o S[(2, 32, 16) : (512, 1, 32)]", align 512>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf16, "Swizzle<64B> o S[(2, 32, 16) : (512, 1, 32)]", align 512>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant false
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xf16, "Swizzle<64B> o S[(2, 32, 16) : (512, 1, 32)]", align 512>, !tile.buffer<shared, 64x16xf16, "Swizzle<64B> o S[(2, 32, 16) : (512, 1, 32)]", align 512>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "f16_mn_major", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// tf32 (f32 buffers), m64n32k8, 32B swizzle, K=16: 2 K-steps.
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: <m = 64, n = 32, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK: sym_name = "tf32"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf32, "Swizzle<32B> o S[(64, 2, 8) : (8, 512, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xf32, "Swizzle<32B> o S[(32, 2, 8) : (8, 256, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xf32, "Swizzle<32B> o S[(64, 2, 8) : (8, 512, 1)]", align 256>, !tile.buffer<shared, 32x16xf32, "Swizzle<32B> o S[(32, 2, 8) : (8, 256, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tf32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// e4m3 x e5m2, m64n16k32, no swizzle (core matrices: LBO = K step, SBO = 8-row step).
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: <m = 64, n = 16, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// CHECK: tile.mma = "step=0 a=(K-major none lbo=1024 sbo=128 start=0) b=(K-major none lbo=256 sbo=128 start=0)"
// CHECK: sym_name = "fp8"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xf8E4M3FN, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", align 128>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x32xf8E5M2, "S[(2, 8, 2, 16) : (128, 16, 256, 1)]", align 128>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x32xf8E4M3FN, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", align 128>, !tile.buffer<shared, 16x32xf8E5M2, "S[(2, 8, 2, 16) : (128, 16, 256, 1)]", align 128>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "fp8", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// s8 x u8 -> s32, m64n48k32 (s8/u8: N = 8, 16, 24, then step 16), second warpgroup (warps 4-7).
// CHECK-LABEL: "tile.kernel"() ({
// CHECK: <m = 64, n = 48, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<u8>, <one>, <col>]
// CHECK: sym_name = "s8_u8"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xsi8, "Swizzle<32B> o S[(64, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 48x32xui8, "Swizzle<32B> o S[(48, 32) : (32, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x48xi32, "S[(4, 2, 8, 6, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)] + O[4@warpid]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x48xi32, "S[(4, 2, 8, 6, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)] + O[4@warpid]">, !tile.buffer<shared, 64x32xsi8, "Swizzle<32B> o S[(64, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 48x32xui8, "Swizzle<32B> o S[(48, 32) : (32, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "s8_u8", block = array<i32: 256, 1, 1>} : () -> ()
