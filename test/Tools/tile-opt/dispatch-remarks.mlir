// RUN: tile-opt %s --split-input-file --verify-diagnostics --remarks-filter=dispatch --tile-lower-copy-async
// RUN: tile-opt %s --split-input-file --tile-lower-copy-async 2>&1 >/dev/null | FileCheck %s --check-prefix=DEFAULT
//
// With --remarks-filter=dispatch, each lowered copy_async gets a remark naming its variant and why the
// variants for its memory pair tried before it did not apply; without it, no remark. A copy_async that
// TMA could have done (the kernel maps its source with tile.tensor_map) but that has no mbarrier takes
// cp.async and gets a warning, since the program's mbarrier wait would never complete; pinning
// dispatch = "global->shared" says cp.async is meant and silences it.

// DEFAULT: dispatch-remarks.mlir:34:5: warning: 'tile.copy_async' op lowered to cp.async (variant 'global->shared'), which completes at tile.async_wait: it has no mbarrier, yet the kernel declares a tile.tensor_map of its source
// DEFAULT-NOT: remark
// DEFAULT-NOT: warning
!gA = !tile.buffer<global, 128x64xbf16>
!sT = !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
!bar = !tile.buffer<shared, 1xi64>

"tile.kernel"() ({
^bb0(%A: !gA):
  %map_a = "tile.tensor_map"(%A) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gA) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !sT
  %bar = "tile.alloc_shared"() : () -> !bar
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is_thread0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %is_thread0 {
    // expected-remark@+1 {{'tile.copy_async' op dispatch: variant 'tma' (the first by priority whose checks passed for global -> shared)}}
    "tile.copy_async"(%smem, %A, %bar) {src_offsets = array<i64: 64, 0>, src_sizes = array<i64: 64, 64>,
                                         scope = "thread"} : (!sT, !gA, !bar) -> ()
  }
  scf.if %is_thread0 {
    // expected-warning@+3 {{lowered to cp.async (variant 'global->shared'), which completes at tile.async_wait: it has no mbarrier, yet the kernel declares a tile.tensor_map of its source; a TMA load completes on an mbarrier given as operand #2}}
    // expected-remark-re@+2 {{variant 'global->shared' (the first by priority whose checks passed for global -> shared); before it:{{.*}}  tma: rejected: validate_tma_copy - a TMA load completes on an mbarrier: give one as operand #2}}
    // (the line the DEFAULT warning names)
    "tile.copy_async"(%smem, %A) {src_offsets = array<i64: 64, 0>, src_sizes = array<i64: 64, 64>,
                                  scope = "thread"} : (!sT, !gA) -> ()
    // expected-remark@+1 {{variant 'global->shared' (pinned by dispatch = "global->shared")}}
    "tile.copy_async"(%smem, %A) {src_offsets = array<i64: 64, 0>, src_sizes = array<i64: 64, 64>,
                                  scope = "thread", dispatch = "global->shared"} : (!sT, !gA) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "tma_meant", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// A cp.async copy of a global tensor that no tensor map describes: no warning.
!g = !tile.buffer<global, 32x16xui8>
!s = !tile.buffer<shared, 32x16xui8>
"tile.kernel"() ({
^bb0(%A: !g):
  %s = "tile.alloc_shared"() : () -> !s
  // expected-remark-re@+1 {{variant 'global->shared' (the first by priority whose checks passed for global -> shared); before it:{{.*}}tma: rejected: validate_tma_copy - a TMA load completes on an mbarrier}}
  "tile.copy_async"(%s, %A) {scope = "cta"} : (!s, !g) -> ()
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cp_async_meant", block = array<i32: 128, 1, 1>} : () -> ()
