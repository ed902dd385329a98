// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// Tensor memory: tcgen05.alloc writes the address to the shared slot; tmem.buffer loads it back;
// dealloc and relinquish carry the cta_group; tmem.load is tcgen05.ld.32x32b.xN, wait::ld and a store
// of the N 32-bit columns to the lane's row of dst.

// CHECK-LABEL: llvm.func @alloc_load_dealloc(
// CHECK-SAME: %[[OUT:.*]]: !llvm.ptr<1>)
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @alloc_load_dealloc_smem0 : !llvm.ptr<3>
// CHECK: %[[NCOLS:.*]] = arith.constant 32 : i32
// CHECK: nvvm.tcgen05.alloc %[[SLOT]], %[[NCOLS]] : !llvm.ptr<3>, i32
// CHECK: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: %[[BASE:.*]] = llvm.load %[[SLOT]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// The lane quarter of the warp goes to the address's lane field (bits 16 and up).
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C21:.*]] = arith.constant 21 : i32
// CHECK: arith.shli %{{.*}}, %[[C21]] : i32
// CHECK: %[[ADDR:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: %[[V:.*]] = nvvm.tcgen05.ld %[[ADDR]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<4xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
// CHECK-NEXT: llvm.store %[[V]], %{{.*}} {alignment = {{[0-9]+}} : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: %[[A2:.*]] = llvm.load %[[SLOT]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: %[[P2:.*]] = llvm.inttoptr %[[A2]] : i32 to !llvm.ptr<6>
// CHECK: %[[N2:.*]] = arith.constant 32 : i32
// CHECK: nvvm.tcgen05.dealloc %[[P2]], %[[N2]] : !llvm.ptr<6>, i32
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x16xui8>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.tmem.relinquish"() : () -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.tmem.load"(%out, %t) {num_cols = 4} : (!tile.buffer<global, 128x16xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "alloc_load_dealloc", block = array<i32: 128, 1, 1>} : () -> ()

// cta_group 2 on alloc, relinquish and dealloc.
// CHECK-LABEL: llvm.func @cta_group2
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
// CHECK: nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 64, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.tmem.relinquish"() {cta_group = 2} : () -> ()
  "tile.tmem.dealloc"(%slot) {num_cols = 64, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// One warp, 8 columns from column 8: x8, the column offset added to the address, rows of 32 bytes.
// CHECK-LABEL: llvm.func @load_warp
// CHECK: %[[COL:.*]] = arith.constant 8 : i32
// CHECK: arith.addi %{{.*}}, %[[COL]] : i32
// CHECK: %[[V8:.*]] = nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<8xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
// CHECK-NEXT: llvm.store %[[V8]], %{{.*}} : vector<8xi32>, !llvm.ptr<1>
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 32x8xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)]">
  "tile.tmem.load"(%out, %t) {num_cols = 8, col_offset = 8, scope = "warp"} : (!tile.buffer<global, 32x8xf32>, !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_warp", block = array<i32: 32, 1, 1>} : () -> ()
