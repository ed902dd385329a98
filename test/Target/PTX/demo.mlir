// REQUIRES: ptxas
// RUN: tile-opt %root/examples/demo.mlir --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// The demonstration program (examples/demo.mlir) down to PTX, in program order: allocate 32 tmem
// columns, init the mbarrier, fill shared memory, fence the async proxy, tcgen05.cp + commit, wait on
// the mbarrier's phase 0, read tmem back with tcgen05.ld, free the columns.

// CHECK: .version 8.8
// CHECK: .target sm_100a
// CHECK: .visible .entry demo(
// CHECK-NEXT: .param .u64 .ptr .global .align 1 demo_param_0,
// CHECK-NEXT: .param .u64 .ptr .global .align 1 demo_param_1
// CHECK-NEXT: )
// CHECK-NEXT: .reqntid 128, 1, 1
// CHECK-NOT: .reqnctapercluster
// CHECK: .shared .align 1024 .b8 demo_smem0[512];
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [demo_smem1], {{%r[0-9]+}};
// CHECK: mbarrier.init.shared.b64 [demo_smem2], {{%r[0-9]+}};
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: ld.global.{{v4.[bu]32|v2.b64}}
// CHECK: st.shared.{{v4.[bu]32|v2.b64}}
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: bar.sync 0;
// CHECK-NEXT: tcgen05.fence::after_thread_sync;
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [demo_smem2];
// CHECK: mbarrier.try_wait.parity.shared.b64 {{%p[0-9]+}}, [demo_smem2], {{%r[0-9]+}};
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x4.b32 {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, [{{%r[0-9]+}}];
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: bar.sync 0;
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: ret;
