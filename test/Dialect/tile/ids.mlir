// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify | FileCheck %s
//
// Thread, warp, lane and CTA indices and elect_one. A kernel's CHECK-LABEL (its sym_name) follows the
// checks of its body: the generic form prints the kernel's attributes after the body.

// CHECK: %[[T:.*]] = "tile.thread_id"() : () -> i32
// CHECK-NEXT: %[[W:.*]] = "tile.warp_id"() : () -> i32
// CHECK-NEXT: %[[L:.*]] = "tile.lane_id"() : () -> i32
// CHECK-NEXT: %[[R:.*]] = "tile.cta_rank"() : () -> i32
// CHECK-NEXT: %[[E:.*]] = "tile.elect_one"() : () -> i1
// CHECK-NEXT: arith.addi %[[T]], %[[W]] : i32
// CHECK-NEXT: arith.addi %[[L]], %[[R]] : i32
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-LABEL: sym_name = "ids"
"tile.kernel"() ({
  %t = "tile.thread_id"() : () -> i32
  %w = "tile.warp_id"() : () -> i32
  %l = "tile.lane_id"() : () -> i32
  %r = "tile.cta_rank"() : () -> i32
  %e = "tile.elect_one"() : () -> i1
  %s0 = arith.addi %t, %w : i32
  %s1 = arith.addi %l, %r : i32
  scf.if %e {
    "tile.barrier"() : () -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "ids", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// Index ops in a 3-D block (tile.thread_id is the linear index).
// CHECK: "tile.thread_id"() : () -> i32
// CHECK: "tile.warp_id"() : () -> i32
// CHECK-LABEL: sym_name = "ids_3d"
"tile.kernel"() ({
  %t = "tile.thread_id"() : () -> i32
  %w = "tile.warp_id"() : () -> i32
  "tile.return"() : () -> ()
}) {sym_name = "ids_3d", block = array<i32: 8, 4, 4>} : () -> ()
