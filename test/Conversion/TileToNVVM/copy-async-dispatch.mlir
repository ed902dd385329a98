// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-lower-copy-async="chip=sm_90a"
//
// Dispatch across variants: each copy_async tries the variants for its memory pair by (-priority, name)
// and, when none applies, reports one error listing those (every variant with all-variants=1:
// test/Tools/tile-opt/dispatch-variants.mlir); `dispatch = "<variant>"` pins one variant; a target
// without tcgen05 rejects the smem->tmem variant by its predicate.

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error-re@+1 {{no copy_async variant applies to shared -> tmem:{{.*}}smem->tmem: rejected: validate_smem_tmem_copy - tcgen05.cp needs an sm_100a-family target, not sm_90a{{.*}}(5 variants for other memory pairs not shown; the pass option all-variants=1 lists them)}}
  "tile.copy_async"(%t, %s) : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "no_tcgen05_on_hopper", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  // expected-error@+1 {{no copy_async variant applies to global -> shared (dispatch = "smem->tmem"):}}
  "tile.copy_async"(%s, %A) {dispatch = "smem->tmem"} : (!tile.buffer<shared, 32x16xui8>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "pinned_to_a_variant_that_does_not_apply", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x16xi4>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xi4>
  // expected-error@+1 {{global->shared: rejected: validate_global_shared_copy - cp.async moves whole bytes; i4 elements are 4 bits}}
  "tile.copy_async"(%s, %A) {scope = "cta"} : (!tile.buffer<shared, 32x16xi4>, !tile.buffer<global, 32x16xi4>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sub_byte_cp_async", block = array<i32: 128, 1, 1>} : () -> ()
