// REQUIRES: mlir-opt-22
// RUN: mlir-opt-22 --irdl-file=%root/lib/TileOps.irdl %s | FileCheck %s
//
// Upstream MLIR loads lib/TileOps.irdl as a dynamic `tile` dialect and verifies tile ops against it.
// Under --irdl-file an op name has "_" for each "." and a buffer type is written with its six
// parameters (scope, shape, element, layout, align, packing; "", 0 and "" when absent), see
// lib/README.md. A tile.kernel cannot verify there (IRDL has no terminator trait, see
// tile-ops-invalid.mlir), so the ops sit in func.funcs whose arguments stand for kernel parameters.

// CHECK-LABEL: func.func @ids
// CHECK-NEXT: "tile.thread_id"() : () -> i32
// CHECK-NEXT: "tile.warp_id"() : () -> i32
// CHECK-NEXT: "tile.lane_id"() : () -> i32
// CHECK-NEXT: "tile.cta_rank"() : () -> i32
// CHECK-NEXT: "tile.elect_one"() : () -> i1
func.func @ids() {
  %tid = "tile.thread_id"() : () -> i32
  %warp = "tile.warp_id"() : () -> i32
  %lane = "tile.lane_id"() : () -> i32
  %rank = "tile.cta_rank"() : () -> i32
  %one = "tile.elect_one"() : () -> i1
  return
}

// The demo's path: global -> shared (tile.copy), shared -> tmem (tile.copy_async), tmem -> global.
// CHECK-LABEL: func.func @demo
// CHECK: %[[SMEM:.*]] = "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 32, 16>, ui8, "S[(32, 16) : (16, 1)]", 1024 : i64, "">
// CHECK: %[[SLOT:.*]] = "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 1>, i32, "", 0 : i64, "">
// CHECK: "tile.tmem_alloc"(%[[SLOT]]) {cta_group = 1 : i64, num_cols = 32 : i64}
// CHECK: "tile.mbarrier_init"(%[[BAR:.*]]) {count = 1 : i64}
// CHECK: "tile.copy"(%[[SMEM]], %{{.*}}) {scope = "cta"}
// CHECK: "tile.fence"() {kind = "proxy_async"} : () -> ()
// CHECK: "tile.barrier"() : () -> ()
// CHECK: %[[TMEM:.*]] = "tile.tmem_buffer"(%[[SLOT]]) : (!tile.buffer<"shared", array<i64: 1>, i32, "", 0 : i64, "">) -> !tile.buffer<"tmem", array<i64: 32, 16>, ui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]", 0 : i64, "">
// CHECK: "tile.copy_async"(%[[TMEM]], %[[SMEM]]) {cta_group = 1 : i64, scope = "thread"}
// CHECK: "tile.commit"(%[[BAR]]) {cta_group = 1 : i64}
// CHECK: "tile.mbarrier_wait"(%[[BAR]]) {phase = 0 : i64}
// CHECK: "tile.tmem_load"(%{{.*}}, %[[TMEM]]) {col_offset = 0 : i64, num_cols = 4 : i64, scope = "warpgroup"}
// CHECK: "tile.tmem_relinquish"() {cta_group = 1 : i64} : () -> ()
// CHECK: "tile.tmem_dealloc"(%[[SLOT]]) {cta_group = 1 : i64, num_cols = 32 : i64}
func.func @demo(%A: !tile.buffer<"global", array<i64: 32, 16>, ui8, "", 0, "">,
                %out: !tile.buffer<"global", array<i64: 128, 16>, ui8, "", 0, "">) {
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 32, 16>, ui8, "S[(32, 16) : (16, 1)]", 1024, "">
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 1>, i32, "", 0, "">
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 1>, i64, "", 0, "">
  "tile.tmem_alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<"shared", array<i64: 1>, i32, "", 0, "">) -> ()
  "tile.mbarrier_init"(%bar) {count = 1} : (!tile.buffer<"shared", array<i64: 1>, i64, "", 0, "">) -> ()
  "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  "tile.copy"(%smem, %A) {scope = "cta"} : (!tile.buffer<"shared", array<i64: 32, 16>, ui8, "S[(32, 16) : (16, 1)]", 1024, "">, !tile.buffer<"global", array<i64: 32, 16>, ui8, "", 0, "">) -> ()
  "tile.fence"() {kind = "proxy_async"} : () -> ()
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.barrier"() : () -> ()
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  %tmem = "tile.tmem_buffer"(%slot) : (!tile.buffer<"shared", array<i64: 1>, i32, "", 0, "">) -> !tile.buffer<"tmem", array<i64: 32, 16>, ui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]", 0, "">
  "tile.copy_async"(%tmem, %smem) {cta_group = 1, scope = "thread"} : (!tile.buffer<"tmem", array<i64: 32, 16>, ui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]", 0, "">, !tile.buffer<"shared", array<i64: 32, 16>, ui8, "S[(32, 16) : (16, 1)]", 1024, "">) -> ()
  "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<"shared", array<i64: 1>, i64, "", 0, "">) -> ()
  "tile.mbarrier_wait"(%bar) {phase = 0} : (!tile.buffer<"shared", array<i64: 1>, i64, "", 0, "">) -> ()
  "tile.tmem_load"(%out, %tmem) {col_offset = 0, num_cols = 4, scope = "warpgroup"} : (!tile.buffer<"global", array<i64: 128, 16>, ui8, "", 0, "">, !tile.buffer<"tmem", array<i64: 32, 16>, ui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]", 0, "">) -> ()
  "tile.tmem_relinquish"() {cta_group = 1} : () -> ()
  "tile.tmem_dealloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<"shared", array<i64: 1>, i32, "", 0, "">) -> ()
  return
}

// A packed 6-bit shared tile, a copy of a region by cp.async, and the other barrier ops.
// CHECK-LABEL: func.func @packed_region_cp_async
// CHECK: "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 32, 32>, f6E3M2FN, "S[(32, 32) : (32, 1)]", 1024 : i64, "b6x16_p32">
// CHECK: "tile.copy_async"(%{{.*}}, %{{.*}}) {dispatch = "cp_async", dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 8, 16>, scope = "warp", src_offsets = array<i64: 8, 0>, src_sizes = array<i64: 8, 16>}
// CHECK: "tile.async_wait"() : () -> ()
// CHECK: "tile.mbarrier_arrive"(%{{.*}})
// CHECK: "tile.barrier"() {scope = "cluster"} : () -> ()
func.func @packed_region_cp_async(%g: !tile.buffer<"global", array<i64: 16, 16>, f16, "", 0, "">) {
  %fp6 = "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 32, 32>, f6E3M2FN, "S[(32, 32) : (32, 1)]", 1024, "b6x16_p32">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 8, 16>, f16, "", 0, "">
  "tile.copy_async"(%s, %g) {dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 8, 16>, src_offsets = array<i64: 8, 0>, src_sizes = array<i64: 8, 16>, scope = "warp", dispatch = "cp_async"} : (!tile.buffer<"shared", array<i64: 8, 16>, f16, "", 0, "">, !tile.buffer<"global", array<i64: 16, 16>, f16, "", 0, "">) -> ()
  "tile.async_wait"() : () -> ()
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<"shared", array<i64: 1>, i64, "", 0, "">
  "tile.mbarrier_arrive"(%bar) : (!tile.buffer<"shared", array<i64: 1>, i64, "", 0, "">) -> ()
  "tile.barrier"() {scope = "cluster"} : () -> ()
  return
}

// What IRDL cannot check passes here and is tile-verify's: optional attributes (IRDL has none, so
// scope = "grid" is not checked), attributes no op declares, and the slot's 1xi32 shape.
// CHECK-LABEL: func.func @unchecked
// CHECK: "tile.barrier"() {scope = "grid"} : () -> ()
// CHECK: "tile.fence"() {kind = "proxy_async", unknown = 1 : i64} : () -> ()
// CHECK: "tile.tmem_alloc"(%{{.*}}) {num_cols = 33 : i64}
func.func @unchecked(%slot: !tile.buffer<"shared", array<i64: 4>, f32, "", 0, "">) {
  "tile.barrier"() {scope = "grid"} : () -> ()
  "tile.fence"() {kind = "proxy_async", unknown = 1} : () -> ()
  "tile.tmem_alloc"(%slot) {num_cols = 33} : (!tile.buffer<"shared", array<i64: 4>, f32, "", 0, "">) -> ()
  return
}
