// RUN: tile-opt %s --verify-diagnostics --tile-lower-copy-async
// RUN: not tile-opt %s --tile-lower-copy-async 2>&1 | FileCheck %s
//
// A failing copy_async next to a succeeding one is reported once, and failures come in source order:
// the greedy rewrite driver revisited a failed op after each changing iteration (two reports each) and
// popped its worklist last line first.

// CHECK: copy-async-diagnostics-invalid.mlir:17:3: error: 'tile.copy_async' op dispatch:
// CHECK: copy-async-diagnostics-invalid.mlir:20:3: error: 'tile.copy_async' op dispatch:
// CHECK-NOT: error:
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{smem->tmem: rejected: exec_scope - tcgen05.cp is issued by a single thread (scope = "thread"), got scope = "warp"}}
  "tile.copy_async"(%t, %s) {scope = "warp"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.copy_async"(%t, %s) : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  // expected-error@+1 {{smem->tmem: rejected: exec_scope - tcgen05.cp is issued by a single thread (scope = "thread"), got scope = "cta"}}
  "tile.copy_async"(%t, %s) {scope = "cta"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "one_report_each", block = array<i32: 128, 1, 1>} : () -> ()
