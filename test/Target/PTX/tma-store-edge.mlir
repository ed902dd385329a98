// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-to-ptx=chip=sm_90a
// RUN: sed '1,/^\/\/ -----/d' %s | tile-opt --tile-to-ptx=chip=sm_90a --split-input-file > %t.ptx
// RUN: FileCheck %s < %t.ptx
//
// Issue #22 class 5, docs/tma.md §6 (A27): a TMA store writes dimension 0 to 16-byte granularity where
// its box crosses the tensor's edge. A window at an SSA offset into a 1-D tensor of 34 f32 (136 bytes)
// may cross it: refused at the op. The same store into 36 f32 (144 bytes), or at a static offset, compiles.

"tile.kernel"() ({
^bb0(%D: !tile.buffer<global, 34xf32>):
  %md = "tile.tensor_map"(%D) {box = array<i64: 8>} : (!tile.buffer<global, 34xf32>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8xf32, align 128>
  %c28 = arith.constant 28 : i32
  %x = "tile.block_id"() {dim = "x"} : () -> i32
  %off = arith.muli %x, %c28 : i32
  %o = "tile.subview"(%D, %off) {static_offsets = array<i64: -1>, sizes = array<i64: 8>} : (!tile.buffer<global, 34xf32>, i32) -> !tile.buffer<global, 8xf32, "S[(8,) : (1,)]">
  // expected-error@+1 {{tma-store-edge - a TMA store through a window at an SSA offset into a tensor of 136 bytes per row (not a multiple of 16): where the box crosses the edge the H200 writes the row's last 16-byte chunk whole (A27), 8 bytes past the tensor}}
  "tile.copy_async"(%o, %s) : (!tile.buffer<global, 8xf32, "S[(8,) : (1,)]">, !tile.buffer<shared, 8xf32, align 128>) -> ()
  "tile.bulk_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "crosses", block = array<i32: 1, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: .entry whole_chunks
// CHECK: cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group
"tile.kernel"() ({
^bb0(%D: !tile.buffer<global, 36xf32>):
  %md = "tile.tensor_map"(%D) {box = array<i64: 8>} : (!tile.buffer<global, 36xf32>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8xf32, align 128>
  %c28 = arith.constant 28 : i32
  %x = "tile.block_id"() {dim = "x"} : () -> i32
  %off = arith.muli %x, %c28 : i32
  %o = "tile.subview"(%D, %off) {static_offsets = array<i64: -1>, sizes = array<i64: 8>} : (!tile.buffer<global, 36xf32>, i32) -> !tile.buffer<global, 8xf32, "S[(8,) : (1,)]">
  "tile.copy_async"(%o, %s) : (!tile.buffer<global, 8xf32, "S[(8,) : (1,)]">, !tile.buffer<shared, 8xf32, align 128>) -> ()
  "tile.bulk_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "whole_chunks", block = array<i32: 1, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: .entry static_inside
// CHECK: cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group
"tile.kernel"() ({
^bb0(%D: !tile.buffer<global, 34xf32>):
  %md = "tile.tensor_map"(%D) {box = array<i64: 8>} : (!tile.buffer<global, 34xf32>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8xf32, align 128>
  %o = "tile.subview"(%D) {static_offsets = array<i64: 24>, sizes = array<i64: 8>} : (!tile.buffer<global, 34xf32>) -> !tile.buffer<global, 8xf32, "S[(8,) : (1,)]">
  "tile.copy_async"(%o, %s) : (!tile.buffer<global, 8xf32, "S[(8,) : (1,)]">, !tile.buffer<shared, 8xf32, align 128>) -> ()
  "tile.bulk_wait"() {pending = 0} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "static_inside", block = array<i32: 1, 1, 1>} : () -> ()
