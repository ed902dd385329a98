// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt --no-type-aliases | FileCheck %s --check-prefix=FULL
// RUN: tile-opt %s --no-type-aliases | FileCheck %s --check-prefix=FULL
//
// tile-opt names each repeated !tile.buffer type once, as an alias at the top (the bindings cannot
// register an alias hook for a Python type: python/tile_mlir/opt/alias_print.py); a type used once stays
// written out, and the output parses back to the same module.

// CHECK:      !global_32x16xui8 = !tile.buffer<global, 32x16xui8>
// CHECK-NEXT: !shared_32x16xui8 = !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]">
// CHECK-NEXT: module {
// CHECK:      ^bb0(%A: !global_32x16xui8, %out: !global_32x16xui8, %unused: !tile.buffer<global, 4xi32>):
// CHECK:      "tile.alloc_shared"() : () -> !shared_32x16xui8
// CHECK:      "tile.copy"(%{{.*}}, %A) {scope = "cta"} : (!shared_32x16xui8, !global_32x16xui8) -> ()
// CHECK:      "tile.copy"(%out, %{{.*}}) {scope = "cta"} : (!global_32x16xui8, !shared_32x16xui8) -> ()

// FULL-NOT:   = !tile.buffer
// FULL:       ^bb0(%A: !tile.buffer<global, 32x16xui8>, %out: !tile.buffer<global, 32x16xui8>, %unused: !tile.buffer<global, 4xi32>):
// FULL:       "tile.copy"(%{{.*}}, %A) {scope = "cta"} : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]">, !tile.buffer<global, 32x16xui8>) -> ()

!g = !tile.buffer<global, 32x16xui8>
!s = !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]">
"tile.kernel"() ({
^bb0(%A: !g, %out: !g, %unused: !tile.buffer<global, 4xi32>):
  %smem = "tile.alloc_shared"() : () -> !s
  "tile.copy"(%smem, %A) {scope = "cta"} : (!s, !g) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%out, %smem) {scope = "cta"} : (!g, !s) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "aliases", block = array<i32: 128, 1, 1>} : () -> ()
