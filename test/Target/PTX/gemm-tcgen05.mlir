// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// gemm_async -> tcgen05.mma for every kind, A in tensor memory, cta_group 1 and 2, M = 64 / 128 / 256,
// each issued by thread 0 and committed to an mbarrier; the same kernels as
// test/Conversion/TileToNVVM/gemm-tcgen05-mma.mlir (whose checks spell the descriptors), here to PTX
// and through ptxas for sm_100a.

// CHECK: .entry tf32(
// CHECK: tcgen05.mma.cta_group::1.kind::tf32.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: .entry f16_m64(
// CHECK: tcgen05.mma.cta_group::1.kind::f16
// CHECK: .entry bf16_mn_major(
// CHECK: .entry e4m3_e5m2(
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4
// CHECK: .entry e3m2_e2m1(
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4
// CHECK: .entry i8(
// CHECK: tcgen05.mma.cta_group::1.kind::i8
// CHECK: .entry a_in_tmem(
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], [%r{{[0-9]+}}], %rd{{[0-9]+}},
// CHECK: .entry pair_m256(
// CHECK: tcgen05.mma.cta_group::2.kind::f16
// CHECK: tcgen05.commit.cta_group::2
// CHECK: .entry pair_m128(
// CHECK: tcgen05.mma.cta_group::2.kind::f16
// CHECK: .entry mxf8f6f4(
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK: .entry mxf4(
// CHECK: tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32
// CHECK: .entry nvfp4(
// CHECK: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16
// CHECK: .entry mx_pair(
// CHECK: tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant false
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>, !tile.buffer<shared, 128x32xf32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "tf32", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf16, "S[(8, 8, 2, 8) : (64, 8, 512, 1)]", align 128>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xf16, "S[(8, 8, 2, 8) : (64, 8, 512, 1)]", align 128>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x64xf16, "S[(4, 16, 64) : (32@TLane, 1@TLane, 2@TCol)]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 64x64xf16, "S[(4, 16, 64) : (32@TLane, 1@TLane, 2@TCol)]">, !tile.buffer<shared, 64x16xf16, "S[(8, 8, 2, 8) : (64, 8, 512, 1)]", align 128>, !tile.buffer<shared, 64x16xf16, "S[(8, 8, 2, 8) : (64, 8, 512, 1)]", align 128>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "f16_m64", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(2, 64, 64) : (4096, 1, 64)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(2, 64, 64) : (4096, 1, 64)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(2, 64, 64) : (4096, 1, 64)]", align 1024>, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(2, 64, 64) : (4096, 1, 64)]", align 1024>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "bf16_mn_major", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, "Swizzle<64B> o S[(128, 64) : (64, 1)]", align 512>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E5M2, "Swizzle<64B> o S[(128, 64) : (64, 1)]", align 512>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf16, "S[(128, 128) : (1@TLane, 2@TCol)]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf16, "S[(128, 128) : (1@TLane, 2@TCol)]">, !tile.buffer<shared, 128x64xf8E4M3FN, "Swizzle<64B> o S[(128, 64) : (64, 1)]", align 512>, !tile.buffer<shared, 128x64xf8E5M2, "Swizzle<64B> o S[(128, 64) : (64, 1)]", align 512>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "e4m3_e5m2", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256, packing b6x16_p32>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf4E2M1FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256, packing b4x16_p64>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256, packing b6x16_p32>, !tile.buffer<shared, 128x32xf4E2M1FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256, packing b4x16_p64>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "e3m2_e2m1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xsi8, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 48x32xui8, "Swizzle<32B> o S[(48, 32) : (32, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x48xi32, "S[(128, 48) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x48xi32, "S[(128, 48) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xsi8, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 48x32xui8, "Swizzle<32B> o S[(48, 32) : (32, 1)]", align 256>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "i8", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xbf16, "Swizzle<64B> o S[(128, 32) : (32, 1)]", align 512>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %a = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x32xbf16, "S[(128, 32) : (1@TLane, 1@TCol)] + O[256@TCol]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<tmem, 128x32xbf16, "S[(128, 32) : (1@TLane, 1@TCol)] + O[256@TCol]">, !tile.buffer<shared, 128x32xbf16, "Swizzle<64B> o S[(128, 32) : (32, 1)]", align 512>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "a_in_tmem", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x256xf32, "S[(128, 256) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 2} : (!tile.buffer<tmem, 128x256xf32, "S[(128, 256) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 2} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "pair_m256", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x128xf32, "S[(64, 2, 64) : (1@TLane, 64@TLane, 1@TCol)]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 2} : (!tile.buffer<tmem, 64x128xf32, "S[(64, 2, 64) : (1@TLane, 64@TLane, 1@TCol)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 2} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "pair_m128", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

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
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x128xf8E4M3FN, "Swizzle<128B> o S[(128, 128) : (128, 1)]", align 1024>, !tile.buffer<shared, 128x128xf8E4M3FN, "Swizzle<128B> o S[(128, 128) : (128, 1)]", align 1024>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "mxf8f6f4", block = array<i32: 128, 1, 1>} : () -> ()

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
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x128xf4E2M1FN, "Swizzle<64B> o S[(128, 128) : (128, 1)]", align 512>, !tile.buffer<shared, 128x128xf4E2M1FN, "Swizzle<64B> o S[(128, 128) : (128, 1)]", align 512>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "mxf4", block = array<i32: 128, 1, 1>} : () -> ()

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
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1, scale_vec = 16} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E4M3FN, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[528@TCol]">) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "nvfp4", block = array<i32: 128, 1, 1>} : () -> ()

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
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 2} : (!tile.buffer<tmem, 128x256xf32, "S[(128, 256) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[1024@TCol]">, !tile.buffer<tmem, 256x4xf8E8M0FNU, "S[(8, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[1040@TCol]">) -> ()
    "tile.commit"(%bar) {cta_group = 2} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "mx_pair", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
