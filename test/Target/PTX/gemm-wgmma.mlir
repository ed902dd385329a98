// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck --check-prefix=PTXAS --allow-empty %s
//
// gemm_async -> wgmma for f16, bf16, tf32, e4m3/e5m2 and s8/u8 to PTX and through ptxas for sm_90a; the
// kernels of test/Conversion/TileToNVVM/gemm-wgmma.mlir. ptxas finds every accumulator register
// untouched until the wait_group, so it injects no serializing warpgroup.wait (its C7517 note):
// PTXAS-NOT: warpgroup.wait is injected
// nor, in k_loop_divergent, a warpgroup.arrive (C7519) or a serialisation of every wgmma (C7520): the first
// K-step's computed accumulate is the scale-d predicate of one instruction, not a branch between two
// PTXAS-NOT: {{is injected|serialized}}

// CHECK: .entry bf16_dynamic_acc(
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned {{.*}}0;
// CHECK: .entry f16_mn_major(
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: .entry tf32(
// CHECK: wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32
// CHECK: .entry fp8(
// CHECK: wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2
// CHECK: .entry s8_u8(
// CHECK: wgmma.mma_async.sync.aligned.m64n48k32.s32.s8.u8
// CHECK: .entry k_loop(
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned {{.*}}1;
// CHECK: wgmma.wait_group.sync.aligned {{.*}}0;
// CHECK: .entry k_loop_divergent(
// CHECK: setp.ne.b32 p, %r{{[0-9]+}}, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.+}}, p, 1, 1, 0, 0;

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

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf16, "Swizzle<64B> o S[(2, 32, 16) : (512, 1, 32)]", align 512>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf16, "Swizzle<64B> o S[(2, 32, 16) : (512, 1, 32)]", align 512>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant false
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x64xf32, "S[(4, 2, 8, 8, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xf16, "Swizzle<64B> o S[(2, 32, 16) : (512, 1, 32)]", align 512>, !tile.buffer<shared, 64x16xf16, "Swizzle<64B> o S[(2, 32, 16) : (512, 1, 32)]", align 512>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "f16_mn_major", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf32, "Swizzle<32B> o S[(64, 2, 8) : (8, 512, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xf32, "Swizzle<32B> o S[(32, 2, 8) : (8, 256, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xf32, "Swizzle<32B> o S[(64, 2, 8) : (8, 512, 1)]", align 256>, !tile.buffer<shared, 32x16xf32, "Swizzle<32B> o S[(32, 2, 8) : (8, 256, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tf32", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xf8E4M3FN, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", align 128>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x32xf8E5M2, "S[(2, 8, 2, 16) : (128, 16, 256, 1)]", align 128>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x32xf8E4M3FN, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", align 128>, !tile.buffer<shared, 16x32xf8E5M2, "S[(2, 8, 2, 16) : (128, 16, 256, 1)]", align 128>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "fp8", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xsi8, "Swizzle<32B> o S[(64, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 48x32xui8, "Swizzle<32B> o S[(48, 32) : (32, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x48xi32, "S[(4, 2, 8, 6, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)] + O[4@warpid]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x48xi32, "S[(4, 2, 8, 6, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)] + O[4@warpid]">, !tile.buffer<shared, 64x32xsi8, "Swizzle<32B> o S[(64, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 48x32xui8, "Swizzle<32B> o S[(48, 32) : (32, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "s8_u8", block = array<i32: 256, 1, 1>} : () -> ()

// A K-loop as issue 14's mainloop has it: one wgmma group per iteration (accumulate from the second on),
// wait_group 1 keeps one group in flight, the accumulator (128 registers) stays in registers across
// the loop; ptxas must serialize nothing (PTXAS-NOT above).
"tile.kernel"() ({
^bb0(%n: i32):
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256x64xbf16, "Swizzle<128B> o S[(256, 64) : (64, 1)]", align 1024>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x256xf32, "S[(4, 2, 8, 32, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ni = arith.index_cast %n : i32 to index
  %z = arith.constant 0 : i32
  scf.for %i = %c0 to %ni step %c1 {
    %ii = arith.index_cast %i : index to i32
    %acc = arith.cmpi ne, %ii, %z : i32
    "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x256xf32, "S[(4, 2, 8, 32, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, !tile.buffer<shared, 256x64xbf16, "Swizzle<128B> o S[(256, 64) : (64, 1)]", align 1024>, i1) -> ()
    "tile.gemm_wait"() {pending = 1} : () -> ()
  }
  "tile.gemm_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "k_loop", block = array<i32: 128, 1, 1>} : () -> ()

// The persistent GEMM's shape (examples/gemm_persistent.py): tiles, each a K-loop, then a leader-only
// mbarrier arrive (a path ptxas deems divergent) while the accumulator is live, then the epilogue. Through
// an scf.if on the first K-step's accumulate ptxas injected warpgroup.arrives here (C7519) and, in the
// persistent GEMM, serialised every wgmma of the kernel (C7520).
"tile.kernel"() ({
^bb0(%D: !tile.buffer<global, 64x256xbf16>, %n: i32, %tiles: i32):
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256x64xbf16, "Swizzle<128B> o S[(256, 64) : (64, 1)]", align 1024>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x256xf32, "S[(4, 2, 8, 32, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %o = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x256xbf16, "S[(4, 2, 8, 32, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %tid = "tile.thread_id"() : () -> i32
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %leader = arith.cmpi eq, %tid, %z : i32
  scf.if %leader {
    "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.barrier"() : () -> ()
  scf.for %t = %z to %tiles step %one : i32 {
    scf.for %i = %z to %n step %one : i32 {
      %acc = arith.cmpi ne, %i, %z : i32
      "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x256xf32, "S[(4, 2, 8, 32, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, !tile.buffer<shared, 256x64xbf16, "Swizzle<128B> o S[(256, 64) : (64, 1)]", align 1024>, i1) -> ()
      "tile.gemm_wait"() {pending = 1} : () -> ()
    }
    "tile.gemm_wait"() {pending = 0} : () -> ()
    "tile.convert"(%o, %d) {rounding = "rn"} : (!tile.buffer<reg, 64x256xbf16, "S[(4, 2, 8, 32, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<reg, 64x256xf32, "S[(4, 2, 8, 32, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">) -> ()
    scf.if %leader {
      "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
    }
    "tile.mbarrier.wait_parity"(%bar, %t) : (!tile.buffer<shared, 1xi64>, i32) -> ()
    "tile.copy"(%D, %o) {scope = "warpgroup"} : (!tile.buffer<global, 64x256xbf16>, !tile.buffer<reg, 64x256xbf16, "S[(4, 2, 8, 32, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "k_loop_divergent", block = array<i32: 128, 1, 1>} : () -> ()
