// RUN: tile-opt %s --tile-verify | FileCheck %s
// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify | FileCheck %s
//
// Every tile op, one kernel each (in the order of dialect/ops: OP_CLASSES), parsed, verified and printed;
// test/python/dialect/test_op_coverage.py fails when an op class has no kernel and CHECK line here.

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: sym_name = "op_kernel"
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 4xf32>, %n: i32, %m: i64, %x: f32):

  "tile.return"() : () -> ()
}) {sym_name = "op_kernel", block = array<i32: 32, 2, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 8, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.return"(
// CHECK: sym_name = "op_return"
"tile.kernel"() ({
// no parameters

  "tile.return"() : () -> ()
}) {sym_name = "op_return", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.thread_id"(
// CHECK: sym_name = "op_thread_id"
"tile.kernel"() ({
// no parameters
  %v = "tile.thread_id"() : () -> i32
  "tile.return"() : () -> ()
}) {sym_name = "op_thread_id", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.warp_id"(
// CHECK: sym_name = "op_warp_id"
"tile.kernel"() ({
// no parameters
  %v = "tile.warp_id"() : () -> i32
  "tile.return"() : () -> ()
}) {sym_name = "op_warp_id", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.lane_id"(
// CHECK: sym_name = "op_lane_id"
"tile.kernel"() ({
// no parameters
  %v = "tile.lane_id"() : () -> i32
  "tile.return"() : () -> ()
}) {sym_name = "op_lane_id", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.cta_rank"(
// CHECK: sym_name = "op_cta_rank"
"tile.kernel"() ({
// no parameters
  %v = "tile.cta_rank"() : () -> i32
  "tile.return"() : () -> ()
}) {sym_name = "op_cta_rank", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.block_id"(
// CHECK: sym_name = "op_block_id"
"tile.kernel"() ({
// no parameters
  %x = "tile.block_id"() {dim = "y"} : () -> i32
  "tile.return"() : () -> ()
}) {sym_name = "op_block_id", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.grid_dim"(
// CHECK: sym_name = "op_grid_dim"
"tile.kernel"() ({
// no parameters
  %n = "tile.grid_dim"() {dim = "x"} : () -> i32
  "tile.return"() : () -> ()
}) {sym_name = "op_grid_dim", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.elect_one"(
// CHECK: sym_name = "op_elect_one"
"tile.kernel"() ({
// no parameters
  %v = "tile.elect_one"() : () -> i1
  "tile.return"() : () -> ()
}) {sym_name = "op_elect_one", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.alloc_shared"(
// CHECK: sym_name = "op_alloc_shared"
"tile.kernel"() ({
// no parameters
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  "tile.return"() : () -> ()
}) {sym_name = "op_alloc_shared", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.subview"(
// CHECK: sym_name = "op_subview"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  %r = "tile.block_id"() {dim = "y"} : () -> i32
  %w = "tile.subview"(%g, %r) {static_offsets = array<i64: -1, 0>, sizes = array<i64: 8, 16>} : (!tile.buffer<global, 32x16xui8>, i32) -> !tile.buffer<global, 8x16xui8, "S[(8, 16) : (16, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "op_subview", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reinterpret"(
// CHECK: sym_name = "op_reinterpret"
"tile.kernel"() ({
// no parameters
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, align 128>
  %v = "tile.reinterpret"(%s) : (!tile.buffer<shared, 32x16xui8, align 128>) -> !tile.buffer<shared, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4, 16, 1)]", align 128>
  "tile.return"() : () -> ()
}) {sym_name = "op_reinterpret", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.copy"(
// CHECK: sym_name = "op_copy"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  "tile.copy"(%s, %g) {scope = "warpgroup", dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 32, 16>, src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>} : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_copy", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.fence"(
// CHECK: sym_name = "op_fence"
"tile.kernel"() ({
// no parameters
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_fence", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.barrier"(
// CHECK: sym_name = "op_barrier"
"tile.kernel"() ({
// no parameters
  "tile.barrier"() {scope = "cluster"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_barrier", block = array<i32: 32, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.tmem.alloc"(
// CHECK: sym_name = "op_tmem_alloc"
"tile.kernel"() ({
// no parameters
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%s) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_tmem_alloc", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.tmem.relinquish"(
// CHECK: sym_name = "op_tmem_relinquish"
"tile.kernel"() ({
// no parameters
  "tile.tmem.relinquish"() {cta_group = 2} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_tmem_relinquish", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.tmem.dealloc"(
// CHECK: sym_name = "op_tmem_dealloc"
"tile.kernel"() ({
// no parameters
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.dealloc"(%s) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_tmem_dealloc", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.tmem.buffer"(
// CHECK: sym_name = "op_tmem_buffer"
"tile.kernel"() ({
// no parameters
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%s) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%s) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.return"() : () -> ()
}) {sym_name = "op_tmem_buffer", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.copy_async"(
// CHECK: sym_name = "op_copy_async"
"tile.kernel"() ({
// no parameters
  %m = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%s) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%s) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %m) {cta_group = 1, scope = "thread", dispatch = "smem->tmem"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_copy_async", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.tensor_map"(
// CHECK: sym_name = "op_tensor_map"
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 16x64xui8>):
  %m = "tile.tensor_map"(%a) {box = array<i64: 8, 64>, swizzle = "128B"} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "op_tensor_map", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.tensor_map.prefetch"(
// CHECK: sym_name = "op_tensor_map_prefetch"
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 16x64xui8>):
  %m = "tile.tensor_map"(%a) {box = array<i64: 8, 64>} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  "tile.tensor_map.prefetch"(%m) : (!tile.tensormap) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_tensor_map_prefetch", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.mbarrier.arrive_expect_tx"(
// CHECK: sym_name = "op_mbarrier_arrive_expect_tx"
"tile.kernel"() ({
// no parameters
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.arrive_expect_tx"(%b) {bytes = 1024} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_mbarrier_arrive_expect_tx", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.mbarrier.expect_tx"(
// CHECK: sym_name = "op_mbarrier_expect_tx"
"tile.kernel"() ({
// no parameters
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.expect_tx"(%b) {bytes = 1024} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_mbarrier_expect_tx", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.bulk_wait"(
// CHECK: sym_name = "op_bulk_wait"
"tile.kernel"() ({
// no parameters
  "tile.bulk_wait"() {pending = 1, kind = "read"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_bulk_wait", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.commit"(
// CHECK: sym_name = "op_commit"
"tile.kernel"() ({
// no parameters
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.commit"(%b) {cta_group = 1, multicast_mask = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_commit", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.async_wait"(
// CHECK: sym_name = "op_async_wait"
"tile.kernel"() ({
// no parameters
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_async_wait", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.mbarrier.init"(
// CHECK: sym_name = "op_mbarrier_init"
"tile.kernel"() ({
// no parameters
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%b) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_mbarrier_init", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.mbarrier.arrive"(
// CHECK: sym_name = "op_mbarrier_arrive"
"tile.kernel"() ({
// no parameters
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.arrive"(%b) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_mbarrier_arrive", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.mbarrier.wait"(
// CHECK: sym_name = "op_mbarrier_wait"
"tile.kernel"() ({
// no parameters
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.wait"(%b) {phase = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_mbarrier_wait", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.alloc_reg"(
// CHECK: sym_name = "op_alloc_reg"
"tile.kernel"() ({
// no parameters
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "op_alloc_reg", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.convert"(
// CHECK: sym_name = "op_convert"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xbf16, "S[(32, 8) : (1@laneid, 1@reg)]">
  "tile.convert"(%b, %a) {rounding = "rn"} : (!tile.buffer<reg, 32x8xbf16, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_convert", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.gemm_async"(
// CHECK: sym_name = "op_gemm_async"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 512, 1)]">
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 512, 1)]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%s) {num_cols = 128} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%s) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1, scope = "thread"} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 512, 1)]">, !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 512, 1)]">, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_gemm_async", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.gemm_async.block_scale"(
// CHECK: sym_name = "op_gemm_async_block_scale"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%s) {num_cols = 256} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%s) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %f = "tile.tmem.buffer"(%s) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x1xf8E8M0FNU, "S[(4, 32) : (4@TCol, 1@TLane)] + R[4 : 32@TLane]">
  %acc = arith.constant false
  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %f, %f) {scale_vec = 32} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, !tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>, i1, !tile.buffer<tmem, 128x1xf8E8M0FNU, "S[(4, 32) : (4@TCol, 1@TLane)] + R[4 : 32@TLane]">, !tile.buffer<tmem, 128x1xf8E8M0FNU, "S[(4, 32) : (4@TCol, 1@TLane)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_gemm_async_block_scale", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.gemm_wait"(
// CHECK: sym_name = "op_gemm_wait"
"tile.kernel"() ({
// no parameters
  "tile.gemm_wait"() {pending = 1} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_gemm_wait", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.tmem.load"(
// CHECK: sym_name = "op_tmem_load"
"tile.kernel"() ({
^bb0(%o: !tile.buffer<global, 128x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%s) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%s) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.tmem.load"(%o, %t) {num_cols = 4, col_offset = 0, scope = "warpgroup"} : (!tile.buffer<global, 128x16xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_tmem_load", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.ring.stage"(
// CHECK: sym_name = "op_ring_stage"
"tile.kernel"() ({
// no parameters
  %b0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %i = "tile.thread_id"() : () -> i32
  %b = "tile.ring.stage"(%i, %b0, %b1) : (i32, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>) -> !tile.buffer<shared, 1xi64>
  "tile.return"() : () -> ()
}) {sym_name = "op_ring_stage", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.mbarrier.wait_parity"(
// CHECK: sym_name = "op_mbarrier_wait_parity"
"tile.kernel"() ({
// no parameters
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %p = "tile.thread_id"() : () -> i32
  "tile.mbarrier.wait_parity"(%b, %p) : (!tile.buffer<shared, 1xi64>, i32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_mbarrier_wait_parity", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.raster.grouped"(
// CHECK: sym_name = "op_raster_grouped"
"tile.kernel"() ({
^bb0(%m: i32, %n: i32):
  %t = "tile.block_id"() {dim = "x"} : () -> i32
  %r, %c = "tile.raster.grouped"(%t, %m, %n) {group_m = 8} : (i32, i32, i32) -> (i32, i32)
  "tile.return"() : () -> ()
}) {sym_name = "op_raster_grouped", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.setmaxnreg"() {action = "dec", count = 40 : i64}
// CHECK: sym_name = "op_setmaxnreg"
"tile.kernel"() ({
  "tile.setmaxnreg"() {action = "dec", count = 40} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_setmaxnreg", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.named_barrier.sync"(
// CHECK: sym_name = "op_named_barrier_sync"
"tile.kernel"() ({
// no parameters
  "tile.named_barrier.sync"() {id = 1, count = 128} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_named_barrier_sync", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.named_barrier.arrive"(
// CHECK: sym_name = "op_named_barrier_arrive"
"tile.kernel"() ({
// no parameters
  %w = "tile.warp_id"() : () -> i32
  "tile.named_barrier.arrive"(%w) {id = 1, count = 128} : (i32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_named_barrier_arrive", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.fill"(
// CHECK: sym_name = "op_reg_fill"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.fill"(%a, %c) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, f32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_fill", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.neg"(
// CHECK: sym_name = "op_reg_neg"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.neg"(%a, %b) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_neg", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.exp2"(
// CHECK: sym_name = "op_reg_exp2"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.exp2"(%a, %b, %c, %r) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, f32, !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_exp2", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.add"(
// CHECK: sym_name = "op_reg_add"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.add"(%a, %b, %r) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_add", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.sub"(
// CHECK: sym_name = "op_reg_sub"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.sub"(%a, %b, %r) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_sub", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.mul"(
// CHECK: sym_name = "op_reg_mul"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.mul"(%a, %a, %b) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_mul", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.max"(
// CHECK: sym_name = "op_reg_max"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.max"(%a, %b, %r) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_max", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.min"(
// CHECK: sym_name = "op_reg_min"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.min"(%a, %b, %r) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_min", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.fma"(
// CHECK: sym_name = "op_reg_fma"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.fma"(%a, %b, %r, %a) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_fma", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.select"(
// CHECK: sym_name = "op_reg_select"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.select"(%a, %b, %r, %a, %b) {predicate = "gt"} : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_select", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.mask"(
// CHECK: sym_name = "op_reg_mask"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.mask"(%a, %b, %i) {kind = "causal"} : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, index) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_mask", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.reduce"(
// CHECK: sym_name = "op_reg_reduce"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  %i = arith.constant 3 : index
  "tile.reg.reduce"(%r, %b) {kind = "max", axis = 1} : (!tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_reduce", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.lg2"(
// CHECK: sym_name = "op_reg_lg2"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  "tile.reg.lg2"(%a, %b) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_lg2", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.reg.rcp"(
// CHECK: sym_name = "op_reg_rcp"
"tile.kernel"() ({
// no parameters
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  "tile.reg.rcp"(%a, %b) {mode = "approx"} : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "op_reg_rcp", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: "tile.kernel"() ({
// CHECK: "tile.semaphore.arrive"(
// CHECK: sym_name = "op_semaphore_arrive"
"tile.kernel"() ({
^bb0(%C: !tile.buffer<global, 1xi32>):
  %n = arith.constant 2 : i32
  %last = "tile.semaphore.arrive"(%C, %n) {id = 1, count = 128} : (!tile.buffer<global, 1xi32>, i32) -> i1
  "tile.return"() : () -> ()
}) {sym_name = "op_semaphore_arrive", block = array<i32: 128, 1, 1>} : () -> ()
