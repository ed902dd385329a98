// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// A 2-CTA cluster using cta_group::2: alloc / relinquish / dealloc of the pair's tensor memory and a
// commit that multicasts the mbarrier arrival to both CTAs (mask 3), then a cluster barrier.

// CHECK: .visible .entry pair(
// CHECK: .reqntid 128, 1, 1
// CHECK-NEXT: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
// CHECK: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [pair_smem0], {{%r[0-9]+}};
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
// CHECK: mbarrier.init.shared.b64 [pair_smem1], {{%r[0-9]+}};
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: mov.b16 [[MASK:%rs[0-9]+]], 3;
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [pair_smem1], [[MASK]];
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: tcgen05.dealloc.cta_group::2.sync.aligned.b32 {{%r[0-9]+}}, {{%r[0-9]+}};
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %warp = "tile.warp_id"() : () -> i32
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_warp0 = arith.cmpi eq, %warp, %c0 : i32
  %is_thread0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %is_warp0 {
    "tile.tmem.alloc"(%slot) {num_cols = 64, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
    "tile.tmem.relinquish"() {cta_group = 2} : () -> ()
  }
  scf.if %is_thread0 {
    "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  }
  "tile.barrier"() {scope = "cluster"} : () -> ()
  scf.if %is_thread0 {
    "tile.commit"(%bar) {cta_group = 2, multicast_mask = 3} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  "tile.barrier"() {scope = "cluster"} : () -> ()
  scf.if %is_warp0 {
    "tile.tmem.dealloc"(%slot) {num_cols = 64, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "pair", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
