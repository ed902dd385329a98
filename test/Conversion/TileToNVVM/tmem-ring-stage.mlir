// RUN: tile-opt %s --tile-verify --tile-lower-copy-async --convert-tile-to-nvvm | FileCheck %s
//
// A ring of tensor-memory buffers (the persistent Blackwell GEMM's double-buffered accumulator): each
// tile.tmem.buffer is the allocation's address plus its col_offset columns, tile.ring.stage selects among the
// i32 addresses, and the tcgen05.ld reads from the one picked at run time (its warp's lane quarter added).

// CHECK: llvm.func @tmem_ring
// CHECK: %[[BID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @tmem_ring_smem0 : !llvm.ptr<3>
// CHECK: nvvm.tcgen05.alloc %[[SLOT]]
// CHECK: %[[T0:.*]] = llvm.load %[[SLOT]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: %[[BASE1:.*]] = llvm.load %[[SLOT]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: %[[T1:.*]] = arith.addi %[[BASE1]], %[[C64]] : i32
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[BID]], %{{.*}} : i32
// CHECK: %[[T:.*]] = llvm.select %[[IS1]], %[[T1]], %[[T0]] : i1, i32
// CHECK: %[[A:.*]] = arith.addi %[[T]], %{{.*}} : i32
// CHECK: %[[P:.*]] = llvm.inttoptr %[[A]] : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.ld %[[P]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
!acc = !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">
!regs = !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">
module {
  "tile.kernel"() ({
  ^bb0(%g: !tile.buffer<global, 128x64xf32>):
    %bid = "tile.block_id"() {dim = "x"} : () -> i32
    %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
    "tile.tmem.alloc"(%slot) {num_cols = 128} : (!tile.buffer<shared, 1xi32>) -> ()
    %t0 = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !acc
    %t1 = "tile.tmem.buffer"(%slot) {col_offset = 64} : (!tile.buffer<shared, 1xi32>) -> !acc
    %acc = "tile.ring.stage"(%bid, %t0, %t1) : (i32, !acc, !acc) -> !acc
    %r = "tile.alloc_reg"() : () -> !regs
    "tile.copy_async"(%r, %acc) {scope = "warpgroup"} : (!regs, !acc) -> ()
    "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 128x64xf32>, !regs) -> ()
    "tile.return"() : () -> ()
  }) {sym_name = "tmem_ring", block = array<i32: 128, 1, 1>} : () -> ()
}
