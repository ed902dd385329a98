// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// tile.copy: an scf.for over 16-byte chunks, strided by the number of threads of the scope, each a
// vector<4xi32> load and store; a swizzled destination XORs its byte offset.

// Whole CTA (128 threads) copying 512 bytes from global to shared: chunks tid, tid + 128, ... < 32.
// CHECK-LABEL: llvm.func @global_to_shared(
// CHECK-SAME: %[[A:.*]]: !llvm.ptr<1>)
// CHECK: %[[S:.*]] = llvm.mlir.addressof @global_to_shared_smem0 : !llvm.ptr<3>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-DAG: %[[LB:.*]] = arith.index_cast %[[TID]] : i32 to index
// CHECK-DAG: %[[UB:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 128 : index
// CHECK: scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[STEP]] {
// CHECK-DAG: %[[DST:.*]] = llvm.getelementptr %[[S]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-DAG: %[[SRC:.*]] = llvm.getelementptr %[[A]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
// CHECK: %[[V:.*]] = llvm.load %[[SRC]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NEXT: llvm.store %[[V]], %[[DST]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT: }
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  "tile.copy"(%s, %A) {scope = "cta"} : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "global_to_shared", block = array<i32: 128, 1, 1>} : () -> ()

// One warp into a 128B-swizzled tile: lane = tid & 31, step 32, and the destination's byte offset is
// XOR-ed with ((offset >> 7) & 7) << 4 (16-byte chunk index by row within the 1024-byte repeat).
// CHECK-LABEL: llvm.func @swizzled_destination(
// CHECK-SAME: %[[G:.*]]: !llvm.ptr<1>)
// CHECK: %[[S:.*]] = llvm.mlir.addressof @swizzled_destination_smem0 : !llvm.ptr<3>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C31:.*]] = arith.constant 31 : i32
// CHECK: %[[LANE:.*]] = arith.andi %[[TID]], %[[C31]] : i32
// CHECK-DAG: %[[LB:.*]] = arith.index_cast %[[LANE]] : i32 to index
// CHECK-DAG: %[[UB:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 32 : index
// CHECK: scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[STEP]] {
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}} : i32
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[ROW:.*]] = arith.shrui %[[OFF]], %[[C7]] : i32
// CHECK-NEXT: %[[M7:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[ROW8:.*]] = arith.andi %[[ROW]], %[[M7]] : i32
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[BITS:.*]] = arith.shli %[[ROW8]], %[[C4]] : i32
// CHECK-NEXT: %[[SWZ:.*]] = arith.xori %[[OFF]], %[[BITS]] : i32
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[S]][%[[SWZ]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NEXT: llvm.store %[[V]], %[[DST]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT: }
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x128xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
  "tile.copy"(%s, %g) {scope = "warp"} : (!tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>, !tile.buffer<global, 32x128xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "swizzled_destination", block = array<i32: 128, 1, 1>} : () -> ()

// Shared back to global by one thread, whole tile with 4-byte f32 elements: still 16-byte accesses.
// CHECK-LABEL: llvm.func @shared_to_global_thread(
// CHECK-SAME: %[[OUT:.*]]: !llvm.ptr<1>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[LB:.*]] = arith.index_cast %[[ZERO]] : i32 to index
// CHECK-DAG: %[[UB:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 1 : index
// CHECK: scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[STEP]] {
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 16x16xf32>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xf32>
  "tile.copy"(%out, %s) {scope = "thread"} : (!tile.buffer<global, 16x16xf32>, !tile.buffer<shared, 16x16xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shared_to_global_thread", block = array<i32: 128, 1, 1>} : () -> ()
