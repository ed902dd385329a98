// RUN: tile-opt %s | FileCheck %s --check-prefix=ALIAS
// RUN: tile-opt %s --mlir-print-local-scope | FileCheck %s --check-prefix=LOCAL
// RUN: tile-opt %s --mlir-elide-elementsattrs-if-larger=2 | FileCheck %s --check-prefix=ELIDE
//
// By default a repeated buffer type is printed once, as an alias; --mlir-print-local-scope prints every
// type and attribute in full; --mlir-elide-elementsattrs-if-larger=N elides elements attributes of
// more than N elements.

// ALIAS: !global_32x16xui8 = !tile.buffer<global, 32x16xui8>
// ALIAS: ^bb0(%A: !global_32x16xui8, %B: !global_32x16xui8):
// ALIAS: dense<[1, 2, 3, 4]>
// LOCAL-NOT: !global_32x16xui8 =
// LOCAL: ^bb0(%A: !tile.buffer<global, 32x16xui8>, %B: !tile.buffer<global, 32x16xui8>):
// LOCAL: dense<[1, 2, 3, 4]>
// ELIDE: arith.constant dense_resource<__elided__> : tensor<4xi32>
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x16xui8>, %B: !tile.buffer<global, 32x16xui8>):
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()
func.func @f() -> tensor<4xi32> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  return %c : tensor<4xi32>
}
