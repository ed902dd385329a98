// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// Runtime extents (`?`, dialect/types.py): row-major global buffers of whole bytes, reached only by TMA.

// a shared buffer's extents are the kernel's own
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xbf16>):
  // expected-error@+1 {{runtime extents ('?') are for row-major global buffers of whole-byte elements}}
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, ?x64xbf16>
  "tile.return"() : () -> ()
}) {sym_name = "shared_dynamic", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a layout would fix the strides the launch decides
// expected-error@+1 {{runtime extents ('?') are for row-major global buffers of whole-byte elements}}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, ?x64xbf16, "S[(4, 64) : (64, 1)]">):
  "tile.return"() : () -> ()
}) {sym_name = "layout_dynamic", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a plain copy would address the rows with strides known only at launch
// expected-error@+1 {{'tile.kernel' op runtime-extent: parameter #0 has runtime extents ('?'): only tile.tensor_map and tile.subview windows for TMA copies may use it (its strides are known at launch), not tile.copy}}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, ?x?xbf16>, %m: i32):
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xbf16, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy"(%r, %A) {scope = "cta"} : (!tile.buffer<reg, 128x8xbf16, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<global, ?x?xbf16>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "copy_dynamic", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a window of it moves only by TMA
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, ?x?xbf16>, %m: i32):
  %w = "tile.subview"(%A, %m) {static_offsets = array<i64: -1, 0>, sizes = array<i64: 128, 8>} : (!tile.buffer<global, ?x?xbf16>, i32) -> !tile.buffer<global, 128x8xbf16, "S[(128, 8) : (2147483647, 1)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xbf16, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">
  // expected-error@-2 {{'tile.subview' op region-in-bounds: a window of a buffer with runtime extents ('?': its strides are known at launch): only a TMA copy (tile.copy_async to or from shared memory), which fills and clips past the edge, may move such a window}}
  "tile.copy"(%r, %w) {scope = "cta"} : (!tile.buffer<reg, 128x8xbf16, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<global, 128x8xbf16, "S[(128, 8) : (2147483647, 1)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "window_copy_dynamic", block = array<i32: 128, 1, 1>} : () -> ()
