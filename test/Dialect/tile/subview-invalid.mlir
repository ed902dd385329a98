// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x512xbf16>):
  %r = "tile.block_id"() {dim = "y"} : () -> i32
  // expected-error@+1 {{'tile.subview' op subview-offsets: static_offsets has 2 dynamic entries (-1), the op 1 offset operands}}
  %w = "tile.subview"(%A, %r) {static_offsets = array<i64: -1, -1>, sizes = array<i64: 128, 64>} : (!tile.buffer<global, 256x512xbf16>, i32) -> !tile.buffer<global, 128x64xbf16, "S[(128, 64) : (512, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "too_few_offsets", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x512xbf16>):
  %r = "tile.block_id"() {dim = "y"} : () -> i32
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "S[(128, 64) : (64, 1)]", align 1024>
  // expected-error@+1 {{'tile.subview' op region-in-bounds: window [480, 480 + 64) of dim 1 reaches past the source's extent 512: only a TMA copy (tile.copy_async to or from shared memory), which fills and clips past the edge, may move such a window}}
  %w = "tile.subview"(%A, %r) {static_offsets = array<i64: -1, 480>, sizes = array<i64: 128, 64>} : (!tile.buffer<global, 256x512xbf16>, i32) -> !tile.buffer<global, 128x64xbf16, "S[(128, 64) : (512, 1)]">
  "tile.copy"(%s, %w) : (!tile.buffer<shared, 128x64xbf16, "S[(128, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 128x64xbf16, "S[(128, 64) : (512, 1)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "static_past_the_edge_by_tile_copy", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a window larger than its tensor (dynamic offset), moved by an element copy: refused as above
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 100x64xbf16>):
  %r = "tile.block_id"() {dim = "y"} : () -> i32
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "S[(128, 64) : (64, 1)]", align 1024>
  // expected-error@+1 {{'tile.subview' op region-in-bounds: window of 128 elements from a dynamic start of dim 0 reaches past the source's extent 100}}
  %w = "tile.subview"(%A, %r) {static_offsets = array<i64: -1, 0>, sizes = array<i64: 128, 64>} : (!tile.buffer<global, 100x64xbf16>, i32) -> !tile.buffer<global, 128x64xbf16, "S[(128, 64) : (64, 1)]">
  "tile.copy"(%w, %s) : (!tile.buffer<global, 128x64xbf16, "S[(128, 64) : (64, 1)]">, !tile.buffer<shared, 128x64xbf16, "S[(128, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "larger_than_the_tensor_by_tile_copy", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x512xbf16>):
  %r = "tile.block_id"() {dim = "y"} : () -> i32
  // expected-error@+1 {{'tile.subview' op result-type: the window of this source is !tile.buffer<global, 128x64xbf16, "S[(128, 64) : (512, 1)]">, got !tile.buffer<global, 128x64xbf16>}}
  %w = "tile.subview"(%A, %r) {static_offsets = array<i64: -1, 0>, sizes = array<i64: 128, 64>} : (!tile.buffer<global, 256x512xbf16>, i32) -> !tile.buffer<global, 128x64xbf16>
  "tile.return"() : () -> ()
}) {sym_name = "loses_the_strides", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x512xbf16>):
  %r = "tile.block_id"() {dim = "y"} : () -> i32
  // expected-error@+1 {{'tile.subview' op subview-rank: 1 static_offsets and 1 sizes for a rank-2 source}}
  %w = "tile.subview"(%A, %r) {static_offsets = array<i64: -1>, sizes = array<i64: 128>} : (!tile.buffer<global, 256x512xbf16>, i32) -> !tile.buffer<global, 128xbf16>
  "tile.return"() : () -> ()
}) {sym_name = "rank", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x512xbf16>, %i: i64):
  // expected-error@+1 {{'tile.subview' op operand-type: operand #1 (offsets) must be i32, got i64}}
  %w = "tile.subview"(%A, %i) {static_offsets = array<i64: -1, 0>, sizes = array<i64: 128, 64>} : (!tile.buffer<global, 256x512xbf16>, i64) -> !tile.buffer<global, 128x64xbf16, "S[(128, 64) : (512, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "offset_type", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// Issue #22: a window of 4-bit elements starting mid-byte (its address would be truncated to the byte).
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xi4>):
  // expected-error@+1 {{'tile.subview' op subview-alignment: a window of i4 elements must start on a byte}}
  %w = "tile.subview"(%A) {static_offsets = array<i64: 0, 1>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x64xi4>) -> !tile.buffer<global, 8x32xi4, "S[(8, 32) : (64, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "mid_byte", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xi4>):
  %c = "tile.block_id"() {dim = "x"} : () -> i32
  // expected-error@+1 {{'tile.subview' op subview-alignment: a window of i4 elements must start on a byte}}
  %w = "tile.subview"(%A, %c) {static_offsets = array<i64: 0, -1>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x64xi4>, i32) -> !tile.buffer<global, 8x32xi4, "S[(8, 32) : (64, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "dynamic_mid_byte", block = array<i32: 128, 1, 1>} : () -> ()
