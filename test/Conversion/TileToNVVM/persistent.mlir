// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// The persistent-kernel ops in NVVM: tile.raster.grouped as i32 arithmetic, tile.ring.stage as a chain of
// llvm.select over the stages' addresses, tile.mbarrier.wait_parity as the try_wait spin on bit 0 of its SSA
// parity.

// CHECK: llvm.func @persistent_ops(%[[TM:[a-z0-9]+]]: i32, %[[TN:[a-z0-9]+]]: i32)
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[S0:.*]] = llvm.mlir.addressof @persistent_ops_smem0 : !llvm.ptr<3>
// CHECK: %[[S1:.*]] = llvm.mlir.addressof @persistent_ops_smem1 : !llvm.ptr<3>
// CHECK: %[[S2:.*]] = llvm.mlir.addressof @persistent_ops_smem2 : !llvm.ptr<3>
// CHECK: %[[G:.*]] = arith.constant 8 : i32
// CHECK: %[[PER:.*]] = arith.muli %[[G]], %[[TN]] : i32
// CHECK: %[[GRP:.*]] = arith.divui %[[TID]], %[[PER]] : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[GRP]], %[[G]] : i32
// CHECK: %[[LEFT:.*]] = arith.subi %[[TM]], %[[FIRST]] : i32
// CHECK: %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[G]] : i32
// CHECK: %[[IN:.*]] = arith.remui %[[TID]], %[[PER]] : i32
// CHECK: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]] : i32
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[R]] : i32
// CHECK: %[[COL:.*]] = arith.divui %[[IN]], %[[ROWS]] : i32
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[COL]], %{{.*}} : i32
// CHECK: %[[P1:.*]] = llvm.select %[[IS1]], %[[S1]], %[[S0]] : i1, !llvm.ptr<3>
// CHECK: %[[IS2:.*]] = arith.cmpi eq, %[[COL]], %{{.*}} : i32
// CHECK: %[[BAR:.*]] = llvm.select %[[IS2]], %[[S2]], %[[P1]] : i1, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.init %[[BAR]]
// CHECK: nvvm.mbarrier.arrive %[[BAR]]
// CHECK: %[[PAR:.*]] = arith.andi %[[ROW]], %{{.*}} : i32
// CHECK: scf.while
// CHECK: nvvm.mbarrier.try_wait %[[BAR]], %[[PAR]]
module {
  "tile.kernel"() ({
  ^bb0(%tiles_m: i32, %tiles_n: i32):
    %tid = "tile.thread_id"() : () -> i32
    %b0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
    %b1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
    %b2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
    %row, %col = "tile.raster.grouped"(%tid, %tiles_m, %tiles_n) {group_m = 8} : (i32, i32, i32) -> (i32, i32)
    %bar = "tile.ring.stage"(%col, %b0, %b1, %b2) : (i32, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>) -> !tile.buffer<shared, 1xi64>
    "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
    "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.mbarrier.wait_parity"(%bar, %row) : (!tile.buffer<shared, 1xi64>, i32) -> ()
    "tile.return"() : () -> ()
  }) {sym_name = "persistent_ops", block = array<i32: 128, 1, 1>} : () -> ()
}
