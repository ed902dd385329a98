// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify --no-type-aliases | FileCheck %s
//
// mbarrier init / arrive / wait and tcgen05 commit. A kernel's CHECK-LABEL (its sym_name) follows
// the checks of its body: the generic form prints the kernel's attributes after the body.

// CHECK: %[[BAR:.*]] = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
// CHECK-NEXT: "tile.mbarrier.init"(%[[BAR]]) {count = 128 : i64} : (!tile.buffer<shared, 1xi64>) -> ()
// CHECK-NEXT: "tile.mbarrier.arrive"(%[[BAR]]) : (!tile.buffer<shared, 1xi64>) -> ()
// CHECK-NEXT: "tile.mbarrier.wait"(%[[BAR]]) : (!tile.buffer<shared, 1xi64>) -> ()
// CHECK-NEXT: "tile.mbarrier.wait"(%[[BAR]]) {phase = 1 : i64} : (!tile.buffer<shared, 1xi64>) -> ()
// CHECK-LABEL: sym_name = "init_arrive_wait"
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%bar) {count = 128} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.wait"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.wait"(%bar) {phase = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "init_arrive_wait", block = array<i32: 128, 1, 1>} : () -> ()

// An unsigned 64-bit barrier word, and the largest arrival count.
// CHECK: "tile.mbarrier.init"(%{{.*}}) {count = 1048575 : i64} : (!tile.buffer<shared, 1xui64, align 8>) -> ()
// CHECK-LABEL: sym_name = "max_count"
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xui64, align 8>
  "tile.mbarrier.init"(%bar) {count = 1048575} : (!tile.buffer<shared, 1xui64, align 8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "max_count", block = array<i32: 128, 1, 1>} : () -> ()

// tcgen05.commit: cta_group 1 without a mask; cta_group 2 (in a 2-CTA cluster) with multicast.
// CHECK: %[[B1:.*]] = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
// CHECK-NEXT: "tile.commit"(%[[B1]]) : (!tile.buffer<shared, 1xi64>) -> ()
// CHECK-NEXT: "tile.commit"(%[[B1]]) {cta_group = 1 : i64} : (!tile.buffer<shared, 1xi64>) -> ()
// CHECK-LABEL: sym_name = "commit_group1"
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.commit"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "commit_group1", block = array<i32: 128, 1, 1>} : () -> ()

// CHECK: "tile.commit"(%{{.*}}) {cta_group = 2 : i64, multicast_mask = 3 : i64} : (!tile.buffer<shared, 1xi64>) -> ()
// CHECK: cluster = array<i32: 2, 1, 1>,
// CHECK-LABEL: sym_name = "commit_multicast"
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.commit"(%bar) {cta_group = 2, multicast_mask = 3} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "commit_multicast", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
