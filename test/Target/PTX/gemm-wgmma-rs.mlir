// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck --check-prefix=PTXAS --allow-empty %s
//
// gemm_async with A from registers (wgmma's RS form, docs/gemm.md §3c): FlashAttention-3's chain S = A . B^T
// (both in shared memory), P = bf16(S) in the accumulator's registers, O += P . V^T with P as A and V^T an
// MN-major view of a row-major [kv, d] tile. ptxas injects no serialising warpgroup.wait:
// PTXAS-NOT: warpgroup.wait is injected
// PTXAS-NOT: {{is injected|serialized}}

// CHECK: .entry fa3_chain_bf16(
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: wgmma.wait_group.sync.aligned {{.*}}0;
// CHECK: cvt.rn.bf16x2.f32
// CHECK: wgmma.fence.sync.aligned;
// Four K-steps, each with four registers of P, B transposed (imm-trans-b 1), no imm-trans-a:
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;

module {
  "tile.kernel"() ({
  ^bb0(%arg0: !tile.buffer<global, 64x64xbf16>, %arg1: !tile.buffer<global, 64x64xbf16>, %arg2: !tile.buffer<global, 64x64xbf16>, %arg3: !tile.buffer<global, 64x64xf32>, %arg4: !tile.buffer<global, 64x64xf32>):
    %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
    %1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
    %2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
    %3 = "tile.reinterpret"(%2) : (!tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>) -> !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (1, 64)]", align 1024>
    %4 = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
    %5 = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x64xbf16, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
    %6 = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
    "tile.copy"(%0, %arg0) {scope = "cta"} : (!tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x64xbf16>) -> ()
    "tile.copy"(%1, %arg1) {scope = "cta"} : (!tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x64xbf16>) -> ()
    "tile.copy"(%2, %arg2) {scope = "cta"} : (!tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x64xbf16>) -> ()
    "tile.copy"(%6, %arg3) {scope = "warpgroup"} : (!tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<global, 64x64xf32>) -> ()
    "tile.fence"() {kind = "proxy_async"} : () -> ()
    "tile.barrier"() {scope = "cta"} : () -> ()
    %false = arith.constant false
    "tile.gemm_async"(%4, %0, %1, %false) {cta_group = 1 : i64, scope = "warpgroup"} : (!tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, i1) -> ()
    "tile.gemm_wait"() {pending = 0 : i64} : () -> ()
    "tile.convert"(%5, %4) {rounding = "rn"} : (!tile.buffer<reg, 64x64xbf16, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">) -> ()
    %true = arith.constant true
    "tile.gemm_async"(%6, %5, %3, %true) {cta_group = 1 : i64, scope = "warpgroup"} : (!tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<reg, 64x64xbf16, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (1, 64)]", align 1024>, i1) -> ()
    "tile.gemm_wait"() {pending = 0 : i64} : () -> ()
    "tile.copy"(%arg4, %6) {scope = "warpgroup"} : (!tile.buffer<global, 64x64xf32>, !tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">) -> ()
    "tile.return"() : () -> ()
  }) {arg_names = ["A", "B", "V", "C", "D"], block = array<i32: 128, 1, 1>, sym_name = "fa3_chain_bf16"} : () -> ()
}

