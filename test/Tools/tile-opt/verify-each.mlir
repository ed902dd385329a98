// RUN: tile-opt %s --tile-verify --canonicalize --verify-each=false | FileCheck %s
// RUN: tile-opt %s --tile-verify --canonicalize --verify-each | FileCheck %s
// RUN: not tile-opt %s --verify-each=maybe 2>&1 | FileCheck %s --check-prefix=BAD
//
// --verify-each[=true|false], as mlir-opt: the verifier after each pass (on by default).

// CHECK: sym_name = "k"
// BAD: tile-opt: error: --verify-each: expected true or false, got 'maybe'
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()
