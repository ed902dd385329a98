// RUN: tile-opt %s --split-input-file | FileCheck %s
// RUN: tile-opt %s --split-input-file | tile-opt --split-input-file | FileCheck %s
// RUN: tile-opt %s --split-input-file --no-type-aliases | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify --mlir-print-ir-after=tile-verify 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
//
// A kernel's parameters print as the program names them (%A, not %arg0), through passes and round trips,
// so printed IR still runs as `tile-run -i A=...` (python/tile_mlir/opt/param_print.py); a name another value
// of the kernel already prints as (%c0_i32 of an arith.constant) keeps MLIR's %argN for that kernel.

// CHECK-LABEL: module {
// CHECK: ^bb0(%A: !{{.*}}, %out: !{{.*}}, %n: i32):
// CHECK-NEXT: %[[S:.*]] = "tile.alloc_shared"()
// CHECK-NEXT: "tile.copy"(%[[S]], %A)
// CHECK-NEXT: "tile.copy"(%out, %[[S]])
// CHECK: sym_name = "named"
// DUMP: IR Dump After
// DUMP: ^bb0(%A: !{{.*}}, %out: !{{.*}}, %n: i32):
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x16xui8>, %out: !tile.buffer<global, 32x16xui8>, %n: i32):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  "tile.copy"(%s, %A) {scope = "cta"} : (!tile.buffer<shared, 32x16xui8>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.copy"(%out, %s) {scope = "cta"} : (!tile.buffer<global, 32x16xui8>, !tile.buffer<shared, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "named", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module {
// CHECK: ^bb0(%arg0: !tile.buffer<global, 32x16xui8>, %arg1: i32):
// CHECK: %c0_i32 = arith.constant 0 : i32
// CHECK: sym_name = "shadowed"
"tile.kernel"() ({
^bb0(%c0_i32: !tile.buffer<global, 32x16xui8>, %k: i32):
  %z = arith.constant 0 : i32
  %t = "tile.thread_id"() : () -> i32
  %p = arith.cmpi eq, %t, %z : i32
  "tile.return"() : () -> ()
}) {sym_name = "shadowed", block = array<i32: 32, 1, 1>} : () -> ()
