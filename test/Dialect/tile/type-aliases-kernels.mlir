// RUN: tile-opt %s | FileCheck %s
// RUN: sed -e '42s/"cta"/"warpgroupx"/' %s > %t.mlir
// RUN: not tile-opt %t.mlir 2>&1 | FileCheck %s --check-prefix=LINE
//
// Type and attribute aliases before several top-level kernels: parse_source wraps the kernels in a module
// as mlir-opt's implicit module does, opening it after the alias definitions (python/tile_mlir/frontend/top_level.py),
// which the parser refuses inside a region. A diagnostic keeps the line of the op it names.

// CHECK:      !global_32x16xui8 = !tile.buffer<global, 32x16xui8>
// CHECK:      module {
// CHECK:      sym_name = "first"
// CHECK:      sym_name = "second"
// LINE:       .mlir:42:3: error: 'tile.copy' op attributes: attribute 'scope' must be one of thread, warp, warpgroup, cta, got 'warpgroupx'

!g = !tile.buffer<global, 32x16xui8>   // (a comment after the value)
!s = !tile.buffer<shared, 32x16xui8,
                  "S[(32, 16) : (16, 1)]">
#unused = {note = "a > b -> c \" }"}
!fn = (i32) -> i32

"tile.kernel"() ({
^bb0(%A: !g, %out: !g):
  %smem = "tile.alloc_shared"() : () -> !s
  "tile.copy"(%smem, %A) {scope = "cta"} : (!s, !g) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%out, %smem) {scope = "cta"} : (!g, !s) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "first", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
^bb0(%A: !g, %out: !g):
  %smem = "tile.alloc_shared"() : () -> !s
  "tile.copy"(%smem, %A) {scope = "cta"} : (!s, !g) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%out, %smem) {scope = "cta"} : (!g, !s) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "second", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
^bb0(%A: !g, %out: !g):
  %smem = "tile.alloc_shared"() : () -> !s
  "tile.copy"(%smem, %A) {scope = "cta"} : (!s, !g) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "third", block = array<i32: 128, 1, 1>} : () -> ()

// Aliases defined between kernels (blanked there, written again before the module): one with a comment after
// it, one over two lines with a comment inside.
// CHECK:      sym_name = "fourth"
!h = !tile.buffer<global, 4xi32>   // (a comment that must not swallow the module)
!t = !tile.buffer<shared, 32x16xui8, // (a comment inside)
                  "S[(32, 16) : (16, 1)]">
"tile.kernel"() ({
^bb0(%S: !h, %A: !g):
  %smem = "tile.alloc_shared"() : () -> !t
  "tile.copy"(%smem, %A) {scope = "cta"} : (!t, !g) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "fourth", block = array<i32: 128, 1, 1>} : () -> ()
