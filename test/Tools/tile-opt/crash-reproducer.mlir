// RUN: rm -f %t.repro %t.local
// RUN: not tile-opt %s --tile-to-ptx --mlir-pass-pipeline-crash-reproducer=%t.repro 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --input-file=%t.repro --check-prefix=REPRO
// RUN: not tile-opt --run-reproducer %t.repro 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: not tile-opt %s --tile-to-ptx --mlir-pass-pipeline-crash-reproducer=%t.local --mlir-pass-pipeline-local-reproducer 2>&1
// RUN: FileCheck %s --input-file=%t.local --check-prefix=LOCAL
// RUN: not tile-opt --run-reproducer %t.local 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: not tile-opt --run-reproducer %S/verify-each.mlir 2>&1 | FileCheck %s --check-prefix=NONE
//
// A crash reproducer, in mlir-opt's format: when the pipeline fails, the file holds the IR it started
// from (locations included) and the pipeline; local: the IR before the failing pass and that pass.
// --run-reproducer runs it again, with the errors at the original lines.

// NOTE: crash-reproducer.mlir:34:3: error: 'tile.copy_async' op dispatch: no copy_async variant applies to shared -> tmem:
// NOTE: tile-opt: note: pipeline failed while executing 'tile-lower-copy-async': reproducer generated at '{{.*}}.repro' (tile-opt --run-reproducer {{.*}}.repro)
// REPRO: "tile.copy_async"
// REPRO: {-#
// REPRO-NEXT: external_resources: {
// REPRO-NEXT: mlir_reproducer: {
// REPRO-NEXT: pipeline: "builtin.module(tile-verify,tile-lower-copy-async,tile-lower-gemm-async,convert-tile-to-nvvm,{{.*}},gpu-module-to-binary{format=isa})",
// REPRO: verify_each: true
// REPRO: #-}
// LOCAL: pipeline: "builtin.module(tile-lower-copy-async)",
// AGAIN: crash-reproducer.mlir:34:3: error: 'tile.copy_async' op dispatch: no copy_async variant applies to shared -> tmem:
// AGAIN-NOT: warning
// NONE: tile-opt: error: --run-reproducer: '{{.*}}verify-each.mlir': no '{-# external_resources: { mlir_reproducer: {...} } #-}' block in the input
!s = !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
!t = !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !s
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !t
  "tile.copy_async"(%t, %s) {scope = "warp"} : (!t, !s) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "fails", block = array<i32: 128, 1, 1>} : () -> ()
