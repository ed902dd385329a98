// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify --no-type-aliases | FileCheck %s
//
// tile.subview: a window of a global buffer at SSA offsets (the CTA's tile of A in
// examples/gemm_blockscaled.py), keeping the source's strides in its layout.

// CHECK: %[[W:.*]] = "tile.subview"(%{{.*}}, %[[R:.*]], %[[C:.*]]) {sizes = array<i64: 128, 64>, static_offsets = array<i64: -1, -1>} : (!tile.buffer<global, 256x512xbf16>, i32, i32) -> !tile.buffer<global, 128x64xbf16, "S[(128, 64) : (512, 1)]">
// CHECK: "tile.subview"(%{{.*}}, %[[C]]) {sizes = array<i64: 2, 32, 16>, static_offsets = array<i64: 1, -1, 0>} : (!tile.buffer<global, 4x64x16xui8>, i32) -> !tile.buffer<global, 2x32x16xui8, "S[(2, 32, 16) : (1024, 16, 1)]">
// CHECK-LABEL: sym_name = "windows"
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x512xbf16>, %S: !tile.buffer<global, 4x64x16xui8>):
  %r = "tile.block_id"() {dim = "y"} : () -> i32
  %c = "tile.block_id"() {dim = "x"} : () -> i32
  %w = "tile.subview"(%A, %r, %c) {static_offsets = array<i64: -1, -1>, sizes = array<i64: 128, 64>} : (!tile.buffer<global, 256x512xbf16>, i32, i32) -> !tile.buffer<global, 128x64xbf16, "S[(128, 64) : (512, 1)]">
  %s = "tile.subview"(%S, %c) {static_offsets = array<i64: 1, -1, 0>, sizes = array<i64: 2, 32, 16>} : (!tile.buffer<global, 4x64x16xui8>, i32) -> !tile.buffer<global, 2x32x16xui8, "S[(2, 32, 16) : (1024, 16, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "windows", block = array<i32: 128, 1, 1>} : () -> ()

// Issue #22: an 8x8 window of a 16 x 2^24 tensor (its layout spans the source's rows: only 64-bit byte
// offsets bound a global layout's span, not a multiple of its element count).
// CHECK: "tile.subview"(%{{.*}}) {sizes = array<i64: 8, 8>, static_offsets = array<i64: 8, 16777208>} : (!tile.buffer<global, 16x16777216xf32>) -> !tile.buffer<global, 8x8xf32, "S[(8, 8) : (16777216, 1)]">
// CHECK-LABEL: sym_name = "wide_rows"
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x16777216xf32>):
  %w = "tile.subview"(%A) {static_offsets = array<i64: 8, 16777208>, sizes = array<i64: 8, 8>} : (!tile.buffer<global, 16x16777216xf32>) -> !tile.buffer<global, 8x8xf32, "S[(8, 8) : (16777216, 1)]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8x8xf32>
  "tile.copy"(%s, %w) : (!tile.buffer<shared, 8x8xf32>, !tile.buffer<global, 8x8xf32, "S[(8, 8) : (16777216, 1)]">) -> ()
  "tile.copy"(%w, %s) : (!tile.buffer<global, 8x8xf32, "S[(8, 8) : (16777216, 1)]">, !tile.buffer<shared, 8x8xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wide_rows", block = array<i32: 64, 1, 1>} : () -> ()
