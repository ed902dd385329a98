// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// tile.subview of a global buffer: the window's first element, source + (row * 512 + col) elements of
// 2 bytes, in i64; tile.copy through the window addresses from there with the source's row pitch.

// CHECK-LABEL: llvm.func @window_copy
// CHECK: %[[R:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK: %[[C:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[R64:.*]] = arith.extui %[[R]] : i32 to i64
// CHECK: %[[RS:.*]] = arith.muli %[[R64]], %{{.*}} : i64
// CHECK: %[[C64:.*]] = arith.extui %[[C]] : i32 to i64
// CHECK: %[[CS:.*]] = arith.muli %[[C64]], %{{.*}} : i64
// CHECK: %[[E:.*]] = arith.addi %[[RS]], %[[CS]] : i64
// CHECK: %[[B:.*]] = arith.muli %[[E]], %{{.*}} : i64
// CHECK: %[[BY:.*]] = arith.divui %[[B]], %{{.*}} : i64
// CHECK: %[[W:.*]] = llvm.getelementptr %arg0[%[[BY]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: llvm.getelementptr %[[W]]
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x512xbf16>):
  %r = "tile.block_id"() {dim = "y"} : () -> i32
  %c = "tile.block_id"() {dim = "x"} : () -> i32
  %w = "tile.subview"(%A, %r, %c) {static_offsets = array<i64: -1, -1>, sizes = array<i64: 8, 64>} : (!tile.buffer<global, 256x512xbf16>, i32, i32) -> !tile.buffer<global, 8x64xbf16, "S[(8, 64) : (512, 1)]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8x64xbf16>
  "tile.copy"(%s, %w) : (!tile.buffer<shared, 8x64xbf16>, !tile.buffer<global, 8x64xbf16, "S[(8, 64) : (512, 1)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "window_copy", block = array<i32: 64, 1, 1>} : () -> ()
