// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify=chip=sm_90a
// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-to-ptx=chip=sm_90a
// RUN: tile-opt %s --split-input-file --tile-verify=chip=sm_100a | FileCheck %s --check-prefix=BW
// RUN: tile-opt %s --split-input-file --tile-verify | FileCheck %s --check-prefix=BW
//
// Tensor memory on a chip without it (sm_90a): refused by tile-verify{chip=...} at the kernel's first op
// that uses it, naming the target, before any lowering (compile() and the pipeline aliases give
// tile-verify the chip); a dispatch error naming tcgen05.cp would otherwise be the first word. Without a
// chip tile-verify checks no target; a tcgen05 chip accepts the same kernels.

// BW: sym_name = "alloc_first"
// BW: sym_name = "tmem_operand_first"
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.tmem.alloc' op target: tensor memory needs a tcgen05 target (sm_100a, sm_100f, sm_101a, sm_101f, sm_103a, sm_103f, sm_110a, sm_110f), not sm_90a}}
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf32, "S[(128, 4) : (1@TLane, 1@TCol)]">
  "tile.tmem.relinquish"() : () -> ()
  "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "alloc_first", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// The tmem buffer is made before the alloc in program order (the verifier's own checks pass): the first
// op using tensor memory is the one refused.
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.tmem.buffer' op target: tensor memory needs a tcgen05 target}}
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf32, "S[(128, 4) : (1@TLane, 1@TCol)]">
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tmem_operand_first", block = array<i32: 128, 1, 1>} : () -> ()
