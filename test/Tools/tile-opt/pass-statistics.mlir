// RUN: tile-opt %s --tile-lower-copy-async --cse --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s
//
// --mlir-pass-statistics: each pass's statistics, here the ops it removed and added by name (the
// bindings' own statistics are compiled out).

// CHECK: ... Pass statistics report ...
// CHECK: 'builtin.module' Pipeline
// CHECK-NEXT: TileVerifyPass (tile-verify)
// CHECK-NEXT: LowerCopyAsyncPass (tile-lower-copy-async)
// CHECK-NEXT: (S) 1 tile.copy_async - operations removed
// CHECK: (S) 1 nvvm.cp.async.commit.group - operations added
// CHECK: {{^}}  cse
// CHECK: (S) {{ *[0-9]+}} arith.constant - operations removed
!g = !tile.buffer<global, 32x16xui8>
!s = !tile.buffer<shared, 32x16xui8>
"tile.kernel"() ({
^bb0(%A: !g):
  %s = "tile.alloc_shared"() : () -> !s
  "tile.copy_async"(%s, %A) {scope = "cta"} : (!s, !g) -> ()
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "stats", block = array<i32: 128, 1, 1>} : () -> ()
