// RUN: not tile-opt %s --tile-lower-copy-async 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tile-lower-copy-async=all-variants=1 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not tile-opt %s --tile-to-ptx=all-variants=true 2>&1 | FileCheck %s --check-prefix=ALL
//
// A dispatch failure lists the variants for the op's memory pair (here shared -> tmem: smem->tmem) and
// says how many it leaves out; all-variants=1 lists every one. Every failing op of the module is
// reported, in source order, before the pass fails.

// CHECK: dispatch-variants.mlir:26:3: error: 'tile.copy_async' op dispatch: no copy_async variant applies to shared -> tmem:
// CHECK-NEXT: {{^}}  smem->tmem: rejected: exec_scope - tcgen05.cp is issued by a single thread (scope = "thread"), got scope = "warp"
// CHECK-NEXT: {{^}}  (5 variants for other memory pairs not shown; the pass option all-variants=1 lists them)
// CHECK-NEXT: dispatch-variants.mlir:33:3: error: 'tile.copy_async' op dispatch: no copy_async variant applies to global -> global:
// CHECK-COUNT-6: : not for this memory pair: moves
// CHECK-NOT: error
// ALL: dispatch-variants.mlir:26:3: error: 'tile.copy_async' op dispatch: no copy_async variant applies to shared -> tmem:
// ALL-NEXT: {{^}}  tma: not for this memory pair: moves global -> shared, shared -> global
// ALL: {{^}}  smem->tmem: rejected: exec_scope
// ALL: {{^}}  shared->global: not for this memory pair: moves shared -> global
// ALL-NEXT: dispatch-variants.mlir:33:3: error:
!g = !tile.buffer<global, 32x16xui8>
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {scope = "warp"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wrong_scope", block = array<i32: 128, 1, 1>} : () -> ()

// A pair no variant moves: each variant, with what it moves.
"tile.kernel"() ({
^bb0(%A: !g, %B: !g):
  "tile.copy_async"(%B, %A) : (!g, !g) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "global_to_global", block = array<i32: 128, 1, 1>} : () -> ()
