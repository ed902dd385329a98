// RUN: tile-opt %s --allow-unregistered-dialect --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// Index ops: tid.x (linear in a 1-D block), warp = tid >> 5, %laneid, %cluster_ctarank, elect.sync.

// CHECK-LABEL: llvm.func @ids_1d
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[T2:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C5:.*]] = arith.constant 5 : i32
// CHECK: %[[W:.*]] = arith.shrui %[[T2]], %[[C5]] : i32
// CHECK: %[[L:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK: %[[R:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK: arith.addi %[[T]], %[[W]] : i32
// CHECK: arith.addi %[[L]], %[[R]] : i32
// CHECK: scf.if %[[E]]
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
}) {sym_name = "ids_1d", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// In a 3-D block the linear index is x + (y + z * by) * bx.
// CHECK-LABEL: llvm.func @ids_3d
// CHECK-DAG: %[[X:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-DAG: %[[Y:.*]] = nvvm.read.ptx.sreg.tid.y : i32
// CHECK-DAG: %[[Z:.*]] = nvvm.read.ptx.sreg.tid.z : i32
// CHECK-DAG: %[[BY:.*]] = arith.constant 4 : i32
// CHECK: %[[ZBY:.*]] = arith.muli %[[Z]], %[[BY]] : i32
// CHECK: %[[YZ:.*]] = arith.addi %[[Y]], %[[ZBY]] : i32
// CHECK: %[[BX:.*]] = arith.constant 8 : i32
// CHECK: %[[ROW:.*]] = arith.muli %[[YZ]], %[[BX]] : i32
// CHECK: %[[LIN:.*]] = arith.addi %[[X]], %[[ROW]] : i32
// CHECK: "test.use"(%[[LIN]]) : (i32) -> ()
"tile.kernel"() ({
  %t = "tile.thread_id"() : () -> i32
  "test.use"(%t) : (i32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ids_3d", block = array<i32: 8, 4, 2>} : () -> ()
