// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tile-opt %s --tile-to-ptx=chip=sm_100a > %t100.ptx
// RUN: %ptxas -arch=sm_100a %t100.ptx -o %t100.cubin
//
// TMA (docs/tma.md) to PTX for Hopper and Blackwell: each tile.tensor_map a 128-byte grid-constant
// parameter whose generic address (cvta.param) the copies name (and prefetch.tensormap warms); a
// 128B-swizzled load completing on an mbarrier, a TMA store back in a bulk group, a 3D box, and a multicast to a cluster of 2.

// CHECK: .target sm_90a
// CHECK-LABEL: .entry tma_roundtrip(
// CHECK-NEXT: .param .u64 .ptr .global .align 1 tma_roundtrip_param_0,
// CHECK-NEXT: .param .u64 .ptr .global .align 1 tma_roundtrip_param_1,
// CHECK-NEXT: .param .align 64 .b8 tma_roundtrip_param_2[128],
// CHECK-NEXT: .param .align 64 .b8 tma_roundtrip_param_3[128]
// CHECK: mov.b64 %[[MA:rd[0-9]+]], tma_roundtrip_param_2;
// CHECK: cvta.param.u64 %[[GA:rd[0-9]+]], %[[MA]];
// CHECK: prefetch.tensormap [%[[GA]]];
// CHECK: mbarrier.arrive.expect_tx.shared.b64 %{{rd[0-9]+}}, [tma_roundtrip_smem1], %{{r[0-9]+}};
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [tma_roundtrip_smem0], [%[[GA]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [tma_roundtrip_smem1];
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [tma_roundtrip_smem0];
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group 0;
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x128xbf16>, %out: !tile.buffer<global, 64x128xbf16>):
  %mA = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %mO = "tile.tensor_map"(%out) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 64x128xbf16>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.tensor_map.prefetch"(%mA) : (!tile.tensormap) -> ()
    "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
    "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 4096} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.copy_async"(%smem, %A, %bar) {src_offsets = array<i64: 32, 64>, src_sizes = array<i64: 32, 64>} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!tile.buffer<shared, 1xi64>) -> ()
  scf.if %t0 {
    "tile.copy_async"(%out, %smem) {dst_offsets = array<i64: 32, 64>, dst_sizes = array<i64: 32, 64>} : (!tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>) -> ()
    "tile.bulk_wait"() {pending = 0} : () -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "tma_roundtrip", block = array<i32: 128, 1, 1>} : () -> ()

// One thread: a 3D f32 box (coordinates innermost first), then a store of shared memory written by
// ordinary stores, so fence.proxy.async comes before the TMA store reads it.
// CHECK-LABEL: .entry tma_3d(
// CHECK: cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes [tma_3d_smem0], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [tma_3d_smem1];
// CHECK: fence.proxy.async.shared::cta;
// CHECK: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// CHECK: cp.async.bulk.wait_group.read 0;
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 4x16x32xf32>, %B: !tile.buffer<global, 2x8x16xf32>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 2, 8, 16>} : (!tile.buffer<global, 4x16x32xf32>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 2x8x16xf32, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 1024} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.copy_async"(%smem, %A, %bar) {src_offsets = array<i64: 2, 8, 16>, src_sizes = array<i64: 2, 8, 16>} : (!tile.buffer<shared, 2x8x16xf32, align 128>, !tile.buffer<global, 4x16x32xf32>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.copy"(%smem, %B) {scope = "thread"} : (!tile.buffer<shared, 2x8x16xf32, align 128>, !tile.buffer<global, 2x8x16xf32>) -> ()
  "tile.copy_async"(%A, %smem) {dst_offsets = array<i64: 0, 0, 0>, dst_sizes = array<i64: 2, 8, 16>} : (!tile.buffer<global, 4x16x32xf32>, !tile.buffer<shared, 2x8x16xf32, align 128>) -> ()
  "tile.bulk_wait"() {pending = 0, kind = "read"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tma_3d", block = array<i32: 1, 1, 1>} : () -> ()

// Multicast (one thread per CTA): CTA 0 writes the box into both CTAs' shared memory and signals both mbarriers.
// CHECK-LABEL: .entry tma_multicast(
// CHECK: cvta.to.shared::cluster.u64
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [tma_multicast_smem1], %rs{{[0-9]+}};
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "64B"} : (!tile.buffer<global, 64x64xui8>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 512>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %rank = "tile.cta_rank"() : () -> i32
  %c0 = arith.constant 0 : i32
  %r0 = arith.cmpi eq, %rank, %c0 : i32
  "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 2048} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.barrier"() {scope = "cluster"} : () -> ()
  scf.if %r0 {
    "tile.copy_async"(%smem, %A, %bar) {multicast_mask = 3, src_offsets = array<i64: 32, 0>, src_sizes = array<i64: 32, 64>} : (!tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 512>, !tile.buffer<global, 64x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tma_multicast", block = array<i32: 1, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()
