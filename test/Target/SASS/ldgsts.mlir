// REQUIRES: nvdisasm
// RUN: tile-run %s --arch sm_90a --no-run --dump-sass | FileCheck %s
//
// copy_async global -> shared on Hopper is cp.async.cg: LDGSTS.E.BYPASS.128 in SASS, waited for with
// DEPBAR (cp.async.wait_group 0).

// CHECK: LDGSTS.E.BYPASS.128 [{{R[0-9]+}}], desc[{{UR[0-9]+}}][{{R[0-9]+}}.64]
// CHECK: LDGDEPBAR
// CHECK: DEPBAR.LE SB0, 0x0
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x64xf32>, %out: !tile.buffer<global, 64x64xf32>):
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xf32, "Swizzle<128B> o S[(64, 2, 32) : (32, 2048, 1)]", align 1024>
  "tile.copy_async"(%smem, %A) {scope = "cta"} : (!tile.buffer<shared, 64x64xf32, "Swizzle<128B> o S[(64, 2, 32) : (32, 2048, 1)]", align 1024>, !tile.buffer<global, 64x64xf32>) -> ()
  "tile.async_wait"() : () -> ()
  "tile.barrier"() : () -> ()
  "tile.copy_async"(%out, %smem) {scope = "cta"} : (!tile.buffer<global, 64x64xf32>, !tile.buffer<shared, 64x64xf32, "Swizzle<128B> o S[(64, 2, 32) : (32, 2048, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ldgsts", block = array<i32: 256, 1, 1>} : () -> ()
