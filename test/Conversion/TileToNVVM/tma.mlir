// RUN: tile-opt %s --split-input-file --tile-to-nvvm="chip=sm_100a" | FileCheck %s
//
// copy_async variant `tma` (docs/tma.md): one cp.async.bulk.tensor per copy through the tensor map the
// kernel declares. Each tile.tensor_map is a 128-byte grid-constant parameter after the kernel's own;
// coordinates are the global region's start, innermost dim first.

// A 32x64 bf16 box at (32, 64) into a 128B-swizzled tile (its map prefetched first), completing on an
// mbarrier; then stored back by TMA (bulk group) and waited for.
// CHECK-LABEL: llvm.func @load_store_128B(
// CHECK-SAME: %[[A:.+]]: !llvm.ptr<1>, %[[OUT:.+]]: !llvm.ptr<1>,
// CHECK-SAME: %[[MA:.+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %[[MO:.+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK: %[[S:.+]] = llvm.mlir.addressof @load_store_128B_smem0 : !llvm.ptr<3>
// CHECK: %[[B:.+]] = llvm.mlir.addressof @load_store_128B_smem1 : !llvm.ptr<3>
// CHECK: nvvm.prefetch tensormap, %[[MA]] : !llvm.ptr
// CHECK: %[[TX:.+]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[B]], %[[TX]] : !llvm.ptr<3>, i32
// CHECK: %[[C64:.+]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: %[[C32:.+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[S]], %[[MA]], %[[B]], box[%[[C64]], %[[C32]]] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
// CHECK: nvvm.mbarrier.try_wait
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MO]], %[[S]], box[%{{.+}}, %{{.+}}] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
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
    "tile.copy_async"(%out, %smem) {dst_offsets = array<i64: 0, 64>, dst_sizes = array<i64: 32, 64>} : (!tile.buffer<global, 64x128xbf16>, !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>) -> ()
    "tile.bulk_wait"() {pending = 0, kind = "read"} : () -> ()
    "tile.bulk_wait"() {pending = 0} : () -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "load_store_128B", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// Multicast to both CTAs of a cluster: a shared::cluster destination and a 16-bit CTA mask.
// CHECK-LABEL: llvm.func @multicast(
// CHECK: %[[D:.+]] = llvm.addrspacecast %{{.+}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: %[[M:.+]] = llvm.mlir.constant(3 : i16) : i16
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[D]], %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}] multicast_mask = %[[M]] : !llvm.ptr<7>, !llvm.ptr
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "64B"} : (!tile.buffer<global, 64x64xui8>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 512>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.copy_async"(%smem, %A, %bar) {multicast_mask = 3, src_offsets = array<i64: 32, 0>, src_sizes = array<i64: 32, 64>} : (!tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 512>, !tile.buffer<global, 64x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "multicast", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// cta_group = 2 (sm_100a): .cta_group::2 on a shared::cluster destination.
// CHECK-LABEL: llvm.func @pair(
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 32, 32>, swizzle = "32B"} : (!tile.buffer<global, 64x64xui8>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 256>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.copy_async"(%smem, %A, %bar) {cta_group = 2, src_offsets = array<i64: 0, 32>, src_sizes = array<i64: 32, 32>} : (!tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 256>, !tile.buffer<global, 64x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "pair", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// A 3D box of f32 without swizzle, into the second half of a buffer (rows dense at 64 B; start 1024 B).
// CHECK-LABEL: llvm.func @box3d(
// CHECK: %[[S:.+]] = llvm.mlir.addressof @box3d_smem0 : !llvm.ptr<3>
// CHECK: %[[P:.+]] = llvm.getelementptr %[[S]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[X:.+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: %[[Y:.+]] = llvm.mlir.constant(8 : i32) : i32
// CHECK: %[[Z:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[P]], %{{.+}}, %{{.+}}, box[%[[X]], %[[Y]], %[[Z]]] {isCTAOnly = true}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 4x16x32xf32>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 2, 8, 16>} : (!tile.buffer<global, 4x16x32xf32>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x8x16xf32, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.copy_async"(%smem, %A, %bar) {dst_offsets = array<i64: 2, 0, 0>, dst_sizes = array<i64: 2, 8, 16>, src_offsets = array<i64: 2, 8, 16>, src_sizes = array<i64: 2, 8, 16>} : (!tile.buffer<shared, 4x8x16xf32, align 128>, !tile.buffer<global, 4x16x32xf32>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "box3d", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// A region ending at the tensor's edge with a larger box: the map's 64x64 box at row 64 of a 100-row
// tensor (TMA zero-fills rows 100..127 into the buffer).
// CHECK-LABEL: llvm.func @edge(
// CHECK: %[[X:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[Y:.+]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %{{.+}}, %{{.+}}, box[%[[X]], %[[Y]]] {isCTAOnly = true}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 100x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 64, 64>} : (!tile.buffer<global, 100x64xui8>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xui8, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.copy_async"(%smem, %A, %bar) {dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 36, 64>, src_offsets = array<i64: 64, 0>, src_sizes = array<i64: 36, 64>} : (!tile.buffer<shared, 64x64xui8, align 128>, !tile.buffer<global, 100x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "edge", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// Dispatch: with a map and an mbarrier TMA wins over cp.async; dispatch = "global->shared" pins cp.async
// (a copy without the mbarrier, which cp.async completes at tile.async_wait); expect_tx without arrive.
// CHECK-LABEL: llvm.func @dispatch(
// CHECK: nvvm.mbarrier.expect_tx %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 16, 64>} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.expect_tx"(%bar) {bytes = 1024} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.copy_async"(%smem, %A, %bar) : (!tile.buffer<shared, 16x64xui8, align 128>, !tile.buffer<global, 16x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.copy_async"(%smem, %A) {dispatch = "global->shared"} : (!tile.buffer<shared, 16x64xui8, align 128>, !tile.buffer<global, 16x64xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "dispatch", block = array<i32: 32, 1, 1>} : () -> ()
