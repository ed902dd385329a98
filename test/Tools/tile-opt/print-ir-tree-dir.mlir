// RUN: rm -rf %t && tile-opt %s --tile-verify --canonicalize --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: cat %t/002_After_canonicalize.mlir | FileCheck %s
// RUN: not tile-opt %s --tile-verify --canonicalize --mlir-print-ir-after=canonicalise 2>&1 | FileCheck %s --check-prefix=TYPO
//
// --mlir-print-ir-tree-dir=DIR: each IR dump a file under DIR instead of stderr. A
// --mlir-print-ir-before/after name that is no pass of the pipeline is an error, not silence.

// FILES: 001_After_TileVerifyPass__tile-verify_.mlir
// FILES-NEXT: 002_After_canonicalize.mlir
// CHECK: // -----// IR Dump After canonicalize //----- //
// CHECK: sym_name = "k"
// TYPO: tile-opt: error: --mlir-print-ir-before/after: no pass 'canonicalise' in the pipeline (its passes: canonicalize, tile-verify); did you mean 'canonicalize'?
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()
