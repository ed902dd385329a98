// RUN: tile-opt %s --tile-to-nvvm | FileCheck %s
//
// A softmax warpgroup's step on S from tensor memory: tcgen05.ld 32x32b into the rows layout, the row max by
// the tile.reg ops, then a named barrier to the next warpgroup: tcgen05.wait::ld comes before the first user
// of the loaded registers, and a named barrier is a thread sync (a pending load must be complete before it).

// CHECK-LABEL: llvm.func @softmax_wg
// CHECK: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.wait <load>
// CHECK: llvm.intr.maxnum
// CHECK: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.wait <load>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK: "bar.arrive $0, $1;"
!s = !tile.buffer<reg, 128x32xf32, "S[(4, 32, 32) : (1@warpid, 1@laneid, 1@reg)]">
!m = !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">
!t = !tile.buffer<tmem, 128x32xf32, "S[(128, 32) : (1@TLane, 1@TCol)]">
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %tm = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !t
  %s = "tile.alloc_reg"() : () -> !s
  %u = "tile.alloc_reg"() : () -> !s
  %m = "tile.alloc_reg"() : () -> !m
  "tile.copy_async"(%s, %tm) {scope = "warpgroup"} : (!s, !t) -> ()
  "tile.reg.reduce"(%m, %s) {kind = "max", axis = 1} : (!m, !s) -> ()
  "tile.copy_async"(%u, %tm) {scope = "warpgroup"} : (!s, !t) -> ()
  "tile.named_barrier.arrive"() {id = 1, count = 256} : () -> ()
  "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "softmax_wg", block = array<i32: 256, 1, 1>} : () -> ()
