// RUN: tile-opt %s --split-input-file --tile-to-ptx | FileCheck %s
//
// Issue #22 class 3: a tile.copy through a tile.subview window moves vectors no wider than what is
// known of the window's start (lowering/window_align.py): static offsets exactly, dynamic ones by
// element size times what their IR proves (constant multiples). The same region described by the
// copy's own offsets (the last kernel) keeps its 16-byte vectors where they are aligned. (A 16-byte vector is
// v4.b32 from LLVM 23's NVPTX backend, v2.b64 from LLVM 22's: the upstream provider.)

// 1 row + 1 column of f32 = byte 260: 4-byte accesses only (16-byte ones were misaligned).
// CHECK-LABEL: .entry static_unaligned
// CHECK-NOT: .v4
// CHECK: ld.global.b32
// CHECK-NOT: .v{{[24]}}
// CHECK: st.global.b32
// CHECK-NOT: .v{{[24]}}
// CHECK: ret;
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xf32>, %B: !tile.buffer<global, 16x64xf32>):
  %w = "tile.subview"(%A) {static_offsets = array<i64: 1, 1>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x64xf32>) -> !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">
  %v = "tile.subview"(%B) {static_offsets = array<i64: 2, 3>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x64xf32>) -> !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8x32xf32>
  "tile.copy"(%s, %w) : (!tile.buffer<shared, 8x32xf32>, !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%v, %s) : (!tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">, !tile.buffer<shared, 8x32xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "static_unaligned", block = array<i32: 64, 1, 1>} : () -> ()

// -----

// byte 264: 8-byte vectors; byte 256 + 16: 16-byte vectors.
// CHECK-LABEL: .entry static_8_16
// CHECK: ld.global.b64
// CHECK: st.global.{{v4.b32|v2.b64}}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xf32>, %B: !tile.buffer<global, 16x64xf32>):
  %w = "tile.subview"(%A) {static_offsets = array<i64: 1, 2>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x64xf32>) -> !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">
  %v = "tile.subview"(%B) {static_offsets = array<i64: 1, 4>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x64xf32>) -> !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8x32xf32>
  "tile.copy"(%s, %w) : (!tile.buffer<shared, 8x32xf32>, !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%v, %s) : (!tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">, !tile.buffer<shared, 8x32xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "static_8_16", block = array<i32: 64, 1, 1>} : () -> ()

// -----

// A dynamic column (the block index): element size, 4 bytes; the block index times 4 columns: 16 bytes.
// CHECK-LABEL: .entry dynamic
// CHECK: ld.global.b32
// CHECK: st.global.{{v4.b32|v2.b64}}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xf32>, %B: !tile.buffer<global, 16x64xf32>):
  %c = "tile.block_id"() {dim = "x"} : () -> i32
  %four = arith.constant 4 : i32
  %c4 = arith.muli %c, %four : i32
  %w = "tile.subview"(%A, %c) {static_offsets = array<i64: 0, -1>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x64xf32>, i32) -> !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">
  %v = "tile.subview"(%B, %c4) {static_offsets = array<i64: 0, -1>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x64xf32>, i32) -> !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8x32xf32>
  "tile.copy"(%s, %w) : (!tile.buffer<shared, 8x32xf32>, !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%v, %s) : (!tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">, !tile.buffer<shared, 8x32xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "dynamic", block = array<i32: 64, 1, 1>} : () -> ()

// -----

// A window of a window: the inner one's start (byte 4) bounds the outer's.
// CHECK-LABEL: .entry nested
// CHECK: ld.global.{{v4.b32|v2.b64}}
// CHECK: st.global.b32
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 8x32xf32>, %B: !tile.buffer<global, 16x64xf32>):
  %w = "tile.subview"(%B) {static_offsets = array<i64: 0, 1>, sizes = array<i64: 16, 36>} : (!tile.buffer<global, 16x64xf32>) -> !tile.buffer<global, 16x36xf32, "S[(16, 36) : (64, 1)]">
  %x = "tile.subview"(%w) {static_offsets = array<i64: 0, 4>, sizes = array<i64: 8, 32>} : (!tile.buffer<global, 16x36xf32, "S[(16, 36) : (64, 1)]">) -> !tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8x32xf32>
  "tile.copy"(%s, %A) : (!tile.buffer<shared, 8x32xf32>, !tile.buffer<global, 8x32xf32>) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%x, %s) : (!tile.buffer<global, 8x32xf32, "S[(8, 32) : (64, 1)]">, !tile.buffer<shared, 8x32xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "nested", block = array<i32: 64, 1, 1>} : () -> ()
