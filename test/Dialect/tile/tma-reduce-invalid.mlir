// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// copy_async reduce (docs/tma.md §10): a TMA store's, of an element type its .op reduces.

"tile.kernel"() ({
^bb0(%W: !tile.buffer<global, 64x32xf32>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xf32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op reduce: reduce = "add" is a TMA store's (shared -> global), got global -> shared}}
  "tile.copy_async"(%s, %W, %bar) {reduce = "add"} : (!tile.buffer<shared, 64x32xf32>, !tile.buffer<global, 64x32xf32>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_reduce", block = array<i32: 1, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%W: !tile.buffer<global, 64x32xf32>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xf32>
  // expected-error@+1 {{'tile.copy_async' op reduce: .min reduces ui32, i32, si32, ui64, i64, si64, f16, bf16 elements, not f32 (PTX ISA cp.reduce.async.bulk.tensor)}}
  "tile.copy_async"(%W, %s) {reduce = "min"} : (!tile.buffer<global, 64x32xf32>, !tile.buffer<shared, 64x32xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "min_f32", block = array<i32: 1, 1, 1>} : () -> ()
