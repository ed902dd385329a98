// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify | FileCheck %s
//
// The CTA's index in the grid and the grid's extent (examples/gemm_blockscaled.py: the tile origin).

// CHECK: %[[X:.*]] = "tile.block_id"() {dim = "x"} : () -> i32
// CHECK-NEXT: %[[Z:.*]] = "tile.block_id"() {dim = "z"} : () -> i32
// CHECK-NEXT: %[[N:.*]] = "tile.grid_dim"() {dim = "y"} : () -> i32
// CHECK-NEXT: arith.addi %[[X]], %[[Z]] : i32
// CHECK-LABEL: sym_name = "grid_ids"
"tile.kernel"() ({
  %x = "tile.block_id"() {dim = "x"} : () -> i32
  %z = "tile.block_id"() {dim = "z"} : () -> i32
  %n = "tile.grid_dim"() {dim = "y"} : () -> i32
  %s = arith.addi %x, %z : i32
  %t = arith.addi %s, %n : i32
  "tile.return"() : () -> ()
}) {sym_name = "grid_ids", block = array<i32: 32, 1, 1>, grid = array<i32: 2, 3, 4>} : () -> ()
