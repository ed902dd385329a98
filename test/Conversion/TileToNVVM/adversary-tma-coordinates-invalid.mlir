// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-lower-copy-async=chip=sm_90a
//
// A TMA region starting at row 3e9 of a 2^32-row tensor (the adversary's find): PTX tensorCoords are
// .s32, so the coordinate became -1294967296 and TMA read zeros out of bounds. The planner declines it
// (tma_plan step A, `coordinate`).

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 4294967296x128xbf16>):
  %mA = "tile.tensor_map"(%A) {box = array<i64: 32, 64>, swizzle = "128B"} : (!tile.buffer<global, 4294967296x128xbf16>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{tma: declined: coordinate - the region starts at 3000000000 in dim 0; TMA coordinates are signed 32-bit (below 2^31)}}
  "tile.copy_async"(%smem, %A, %bar) {dispatch = "tma", src_offsets = array<i64: 3000000000, 64>, src_sizes = array<i64: 32, 64>} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 4294967296x128xbf16>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "row_3e9", block = array<i32: 128, 1, 1>} : () -> ()
