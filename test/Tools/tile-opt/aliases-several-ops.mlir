// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
//
// Type aliases in a file of several top-level ops (tile-opt wraps them in one module, the aliases kept
// outside it, where they are legal), one defined between the kernels; errors keep their lines.

// CHECK: !global_32x16xui8 = !tile.buffer<global, 32x16xui8>
// CHECK: module {
// CHECK: ^bb0(%A: !global_32x16xui8):
// CHECK: sym_name = "first"
// CHECK: ^bb0(%S: !tile.buffer<global, 4xi32>, %A: !global_32x16xui8):
// CHECK: sym_name = "second"
!g = !tile.buffer<global, 32x16xui8>
"tile.kernel"() ({
^bb0(%A: !g):
  "tile.return"() : () -> ()
}) {sym_name = "first", block = array<i32: 32, 1, 1>} : () -> ()
!h = !tile.buffer<global, 4xi32>
"tile.kernel"() ({
^bb0(%S: !h, %A: !g):
  "tile.return"() : () -> ()
}) {sym_name = "second", block = array<i32: 32, 1, 1>} : () -> ()
