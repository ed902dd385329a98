// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
//
// A TMA store that reduces into global memory (copy_async reduce = "add", docs/tma.md §10): an f32 box added
// into a workspace with runtime extents at the window's SSA coordinates, in the bulk group a bulk_wait drains.

// CHECK-LABEL: .entry reduce_add
// CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{d?[0-9]+}}];
// CHECK: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group 0;
"tile.kernel"() ({
^bb0(%W: !tile.buffer<global, ?x?xf32>):
  %mw = "tile.tensor_map"(%W) {box = array<i64: 64, 32>, swizzle = "128B"} : (!tile.buffer<global, ?x?xf32>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xf32, "Swizzle<128B> o S[(64, 32) : (32, 1)]", align 1024>
  %c64 = arith.constant 64 : i32
  %x = "tile.block_id"() {dim = "x"} : () -> i32
  %row = arith.muli %x, %c64 : i32
  %w = "tile.subview"(%W, %row) {static_offsets = array<i64: -1, 0>, sizes = array<i64: 64, 32>} : (!tile.buffer<global, ?x?xf32>, i32) -> !tile.buffer<global, 64x32xf32, "S[(64, 32) : (2147483647, 1)]">
  "tile.copy_async"(%w, %s) {reduce = "add"} : (!tile.buffer<global, 64x32xf32, "S[(64, 32) : (2147483647, 1)]">, !tile.buffer<shared, 64x32xf32, "Swizzle<128B> o S[(64, 32) : (32, 1)]", align 1024>) -> ()
  "tile.bulk_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_add", block = array<i32: 1, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()
