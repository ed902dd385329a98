// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// Fences, CTA and cluster barriers, cp.async wait.

// CHECK-LABEL: llvm.func @fences
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: llvm.return
"tile.kernel"() ({
  "tile.fence"() {kind = "proxy_async"} : () -> ()
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "fences", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK-LABEL: llvm.func @barriers
// CHECK: nvvm.barrier0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: llvm.return
"tile.kernel"() ({
  "tile.barrier"() : () -> ()
  "tile.barrier"() {scope = "cta"} : () -> ()
  "tile.barrier"() {scope = "cluster"} : () -> ()
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "barriers", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
