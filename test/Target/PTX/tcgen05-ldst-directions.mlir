// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// The tcgen05.ld/st shapes tcgen05-ldst-shapes.mlir has in one direction only, in the other: with it,
// each of 32x32b, 16x64b, 16x128b, 16x256b and 16x32bx2 is lowered as an ld and as an st, and ptxas
// assembles every kernel (test/python/dialect/test_op_coverage.py checks that every shape has both).

// CHECK-LABEL: .entry st_16x64b(
// CHECK: tcgen05.st.sync.aligned.16x64b.x16.b32
// CHECK: tcgen05.wait::st.sync.aligned;

// CHECK-LABEL: .entry st_16x128b(
// CHECK: tcgen05.st.sync.aligned.16x128b.x8.b32
// CHECK: tcgen05.wait::st.sync.aligned;

// CHECK-LABEL: .entry ld_16x256b(
// CHECK: tcgen05.ld.sync.aligned.16x256b.x4.b32
// CHECK: tcgen05.wait::ld.sync.aligned;

// CHECK-LABEL: .entry st_16x32bx2(
// CHECK: tcgen05.st.sync.aligned.16x32bx2.x8.b32 [%r{{[0-9]+}}], 64, {{{.*}}};
// CHECK: tcgen05.wait::st.sync.aligned;

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 64x32xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 16, 2) : (1@warpid, 1@laneid, 4@laneid, 1@reg, 2@laneid)]">
  "tile.copy"(%r, %g) {scope = "warpgroup"} : (!tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 16, 2) : (1@warpid, 1@laneid, 4@laneid, 1@reg, 2@laneid)]">, !tile.buffer<global, 64x32xf32>) -> ()
  "tile.copy_async"(%t, %r) {scope = "warpgroup"} : (!tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">, !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 16, 2) : (1@warpid, 1@laneid, 4@laneid, 1@reg, 2@laneid)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "st_16x64b", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 64x32xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 8, 4) : (1@warpid, 1@reg, 4@laneid, 2@reg, 1@laneid)]">
  "tile.copy"(%r, %g) {scope = "warpgroup"} : (!tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 8, 4) : (1@warpid, 1@reg, 4@laneid, 2@reg, 1@laneid)]">, !tile.buffer<global, 64x32xf32>) -> ()
  "tile.copy_async"(%t, %r) {scope = "warpgroup"} : (!tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">, !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 8, 4) : (1@warpid, 1@reg, 4@laneid, 2@reg, 1@laneid)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "st_16x128b", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 64x32xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 64x32xf32>, !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ld_16x256b", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 64x16xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x16xf32, "S[(4, 16, 2, 8) : (32@TLane, 1@TLane, 64@TCol, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]">
  "tile.copy"(%r, %g) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]">, !tile.buffer<global, 64x16xf32>) -> ()
  "tile.copy_async"(%t, %r) {scope = "warpgroup"} : (!tile.buffer<tmem, 64x16xf32, "S[(4, 16, 2, 8) : (32@TLane, 1@TLane, 64@TCol, 1@TCol)]">, !tile.buffer<reg, 64x16xf32, "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "st_16x32bx2", block = array<i32: 128, 1, 1>} : () -> ()

