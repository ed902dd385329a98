// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify | FileCheck %s
//
// tile.fence (every kind), tile.barrier (cta and cluster scope) and tile.async_wait. A kernel's
// CHECK-LABEL (its sym_name) follows the checks of its body: the generic form prints the kernel's
// attributes after the body.

// CHECK: "tile.fence"() {kind = "proxy_async"} : () -> ()
// CHECK-NEXT: "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
// CHECK-NEXT: "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
// CHECK-NEXT: "tile.fence"() {kind = "mbarrier_init"} : () -> ()
// CHECK-LABEL: sym_name = "fences"
"tile.kernel"() ({
  "tile.fence"() {kind = "proxy_async"} : () -> ()
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "fences", block = array<i32: 128, 1, 1>} : () -> ()

// The default scope is not materialized: a bare barrier stays bare.
// CHECK: "tile.barrier"() : () -> ()
// CHECK-NEXT: "tile.barrier"() {scope = "cta"} : () -> ()
// CHECK-NEXT: "tile.barrier"() {scope = "cluster"} : () -> ()
// CHECK-LABEL: sym_name = "barriers"
"tile.kernel"() ({
  "tile.barrier"() : () -> ()
  "tile.barrier"() {scope = "cta"} : () -> ()
  "tile.barrier"() {scope = "cluster"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "barriers", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// CHECK: "tile.async_wait"() : () -> ()
// CHECK-LABEL: sym_name = "async_wait"
"tile.kernel"() ({
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "async_wait", block = array<i32: 32, 1, 1>} : () -> ()
