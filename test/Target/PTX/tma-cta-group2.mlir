// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_100a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// sm_100a only: a TMA load with .cta_group::2 (the mbarrier may be the peer CTA's), and a 5D box.

// CHECK: .target sm_100a
// CHECK-LABEL: .entry tma_pair(
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [tma_pair_smem1];
// CHECK: cp.async.bulk.tensor.5d.shared::cta.global.tile.mbarrier::complete_tx::bytes [tma_pair_smem2], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [tma_pair_smem1];
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x64xui8>, %B: !tile.buffer<global, 2x3x4x8x32xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 32>, swizzle = "32B"} : (!tile.buffer<global, 64x64xui8>) -> !tile.tensormap
  %m5 = "tile.tensor_map"(%B) {box = array<i64: 1, 2, 2, 4, 32>, swizzle = "32B"} : (!tile.buffer<global, 2x3x4x8x32xui8>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 256>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %s5 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1x2x2x4x32xui8, "Swizzle<32B> o S[(1, 2, 2, 4, 32) : (512, 256, 128, 32, 1)]", align 256>
  "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 1536} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.copy_async"(%smem, %A, %bar) {cta_group = 2, src_offsets = array<i64: 0, 32>, src_sizes = array<i64: 32, 32>} : (!tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 256>, !tile.buffer<global, 64x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.copy_async"(%s5, %B, %bar) {src_offsets = array<i64: 1, 1, 2, 4, 0>, src_sizes = array<i64: 1, 2, 2, 4, 32>} : (!tile.buffer<shared, 1x2x2x4x32xui8, "Swizzle<32B> o S[(1, 2, 2, 4, 32) : (512, 256, 128, 32, 1)]", align 256>, !tile.buffer<global, 2x3x4x8x32xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tma_pair", block = array<i32: 1, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()
