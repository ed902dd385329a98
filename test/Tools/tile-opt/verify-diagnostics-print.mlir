// RUN: tile-opt %s --split-input-file --verify-diagnostics | FileCheck %s
//
// As mlir-opt: with --verify-diagnostics, a chunk whose pipeline succeeds is printed and one that fails
// (as the comment expecting its error says) is not, so one file holds both kinds of test.

// CHECK-NOT: sym_name = "bad_fence"
// CHECK: "tile.barrier"() : () -> ()
// CHECK: sym_name = "first"
"tile.kernel"() ({
  "tile.barrier"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "first", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{attribute 'kind' must be one of}}
  "tile.fence"() {kind = "bogus"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bad_fence", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// CHECK: // -----
// CHECK: "tile.fence"() {kind = "proxy_async"} : () -> ()
// CHECK: sym_name = "third"
// CHECK-NOT: bad_fence
"tile.kernel"() ({
  "tile.fence"() {kind = "proxy_async"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "third", block = array<i32: 32, 1, 1>} : () -> ()
