// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=SREG < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// Every tile op except copy_async, in one kernel whose results are all observable (LLVM drops what
// nothing reads), down to PTX that ptxas accepts.

// CHECK: .version 8.8
// CHECK: .target sm_100a
// CHECK: .visible .entry every_op(
// CHECK: .reqntid 128, 1, 1
// CHECK: .shared .align 1024 .b8 every_op_smem{{[0-9]+}}[2048];
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [every_op_smem{{[0-9]+}}], {{.*}};
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK: mbarrier.init.shared.b64 [every_op_smem{{[0-9]+}}], {{.*}};
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: ld.global.{{v4.[bu]32|v2.b64}}
// CHECK: st.shared.{{v4.[bu]32|v2.b64}}
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 0;
// CHECK: cp.async.wait_group 0;
// CHECK: elect.sync
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [every_op_smem{{[0-9]+}}];
// CHECK: mbarrier.arrive.shared.b64
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x4.b32
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK: ld.shared.{{v4.[bu]32|v2.b64}}
// CHECK: st.global.{{v4.[bu]32|v2.b64}}
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32

// The special registers, in whatever order LLVM schedules them.
// SREG-DAG: mov.u32 {{.*}}, %tid.x;
// SREG-DAG: mov.u32 {{.*}}, %laneid;
// SREG-DAG: mov.u32 {{.*}}, %cluster_ctarank;
// SREG-DAG: elect.sync {{.*}}, -1;
"tile.kernel"() ({
^bb0(%in: !tile.buffer<global, 16x128xui8>, %out: !tile.buffer<global, 128x16xui8>, %back: !tile.buffer<global, 16x128xui8>):
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x128xui8, "Swizzle<128B> o S[(16, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %tid = "tile.thread_id"() : () -> i32
  %warp = "tile.warp_id"() : () -> i32
  %lane = "tile.lane_id"() : () -> i32
  %rank = "tile.cta_rank"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_warp0 = arith.cmpi eq, %warp, %c0 : i32
  %is_thread0 = arith.cmpi eq, %tid, %c0 : i32
  %is_lane0 = arith.cmpi eq, %lane, %c0 : i32
  %is_rank0 = arith.cmpi eq, %rank, %c0 : i32
  scf.if %is_warp0 {
    "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
    "tile.tmem.relinquish"() : () -> ()
  }
  scf.if %is_thread0 {
    "tile.mbarrier.init"(%bar) {count = 5} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  }
  "tile.copy"(%smem, %in) : (!tile.buffer<shared, 16x128xui8, "Swizzle<128B> o S[(16, 128) : (128, 1)]", align 1024>, !tile.buffer<global, 16x128xui8>) -> ()
  "tile.fence"() {kind = "proxy_async"} : () -> ()
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.barrier"() : () -> ()
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  "tile.async_wait"() : () -> ()
  %elected = "tile.elect_one"() : () -> i1
  %commit_here = arith.andi %elected, %is_warp0 : i1
  %commit_too = arith.andi %commit_here, %is_rank0 : i1
  scf.if %commit_too {
    "tile.commit"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  }
  scf.if %is_lane0 {
    "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.mbarrier.wait"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  %tmem = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.tmem.load"(%out, %tmem) {num_cols = 4} : (!tile.buffer<global, 128x16xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%back, %smem) : (!tile.buffer<global, 16x128xui8>, !tile.buffer<shared, 16x128xui8, "Swizzle<128B> o S[(16, 128) : (128, 1)]", align 1024>) -> ()
  scf.if %is_warp0 {
    "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "every_op", block = array<i32: 128, 1, 1>} : () -> ()
