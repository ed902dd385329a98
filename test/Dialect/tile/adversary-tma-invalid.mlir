// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// Hostile tensor maps and global buffers (the adversary's finds): extents cuTensorMapEncodeTiled refuses
// (globalDim 1 to 2^32, docs/tma.md §2) and buffers past 64-bit byte offsets.

// 2^40 rows: a tensor-map dim over 2^32 elements
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 1099511627776x64xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-extent: dim 0 has 1099511627776 elements; TMA tensors have 1 to 2^32 per dim}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>} : (!tile.buffer<global, 1099511627776x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "extent_2p40", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 2^32 + 16 elements in the inner dim
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 2x4294967312xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-extent: dim 1 has 4294967312 elements; TMA tensors have 1 to 2^32 per dim}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 1, 64>} : (!tile.buffer<global, 2x4294967312xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "extent_inner", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// exactly 2^32 rows is accepted (no diagnostic)
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 4294967296x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>} : (!tile.buffer<global, 4294967296x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "extent_2p32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a global buffer of 2^64 bytes
// expected-error@+1 {{'tile.kernel' op buffer-type: parameter #0: a 9223372036854775807x2xbf16 buffer holds more than 2^63 bytes, beyond 64-bit byte offsets}}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 9223372036854775807x2xbf16>):
  %w = "tile.subview"(%A) {static_offsets = array<i64: 4611686018427387904, 0>, sizes = array<i64: 1, 1>} : (!tile.buffer<global, 9223372036854775807x2xbf16>) -> !tile.buffer<global, 1x1xbf16, "S[(1, 1) : (2, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "past_2p63", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xf32>):
  // expected-error@+1 {{'tile.tensor_map' op attributes: attribute 'oob_fill' must be one of zero, nan, got 'NaN'}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>, oob_fill = "NaN"} : (!tile.buffer<global, 16x64xf32>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "oob_typo", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-box: box dim 0 is -9223372036854775808; TMA boxes are 1 to 256 elements per dim}}
  %m = "tile.tensor_map"(%A) {box = array<i64: -9223372036854775808, 64>} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "box_min", block = array<i32: 128, 1, 1>} : () -> ()
