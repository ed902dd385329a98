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
