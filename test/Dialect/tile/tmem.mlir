// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify --no-type-aliases | FileCheck %s
//
// Tensor memory: alloc / relinquish / dealloc, tmem.buffer over the allocated address, tmem.load.
// A kernel's CHECK-LABEL (its sym_name) follows the checks of its body: the generic form prints the
// kernel's attributes after the body.

// CHECK: %[[SLOT:.*]] = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
// CHECK-NEXT: "tile.tmem.alloc"(%[[SLOT]]) {num_cols = 32 : i64} : (!tile.buffer<shared, 1xi32>) -> ()
// CHECK-NEXT: "tile.tmem.relinquish"() : () -> ()
// CHECK-NEXT: %[[T:.*]] = "tile.tmem.buffer"(%[[SLOT]]) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
// CHECK-NEXT: "tile.tmem.load"(%{{.*}}, %[[T]]) {num_cols = 4 : i64} : (!tile.buffer<global, 128x16xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
// CHECK-NEXT: "tile.tmem.dealloc"(%[[SLOT]]) {num_cols = 32 : i64} : (!tile.buffer<shared, 1xi32>) -> ()
// CHECK-LABEL: sym_name = "alloc_load_dealloc"
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x16xui8>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.tmem.relinquish"() : () -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.tmem.load"(%out, %t) {num_cols = 4} : (!tile.buffer<global, 128x16xui8>, !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.tmem.dealloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "alloc_load_dealloc", block = array<i32: 128, 1, 1>} : () -> ()

// cta_group 2 needs an even cluster; 512 columns is the whole tensor memory.
// CHECK: "tile.tmem.alloc"(%{{.*}}) {cta_group = 2 : i64, num_cols = 512 : i64}
// CHECK-NEXT: "tile.tmem.relinquish"() {cta_group = 2 : i64} : () -> ()
// CHECK-NEXT: "tile.tmem.dealloc"(%{{.*}}) {cta_group = 2 : i64, num_cols = 512 : i64}
// CHECK-LABEL: sym_name = "cta_group2"
"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xui32>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xui32>) -> ()
  "tile.tmem.relinquish"() {cta_group = 2} : () -> ()
  "tile.tmem.dealloc"(%slot) {num_cols = 512, cta_group = 2} : (!tile.buffer<shared, 1xui32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// tmem.load by one warp (32 lanes) with a column offset, f32 elements.
// CHECK: %[[T2:.*]] = "tile.tmem.buffer"(%{{.*}}) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)]">
// CHECK-NEXT: "tile.tmem.load"(%{{.*}}, %[[T2]]) {col_offset = 8 : i64, num_cols = 8 : i64, scope = "warp"} : (!tile.buffer<global, 32x8xf32>, !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)]">) -> ()
// CHECK-LABEL: sym_name = "load_warp"
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 32x8xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 64} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)]">
  "tile.tmem.load"(%out, %t) {num_cols = 8, col_offset = 8, scope = "warp"} : (!tile.buffer<global, 32x8xf32>, !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)]">) -> ()
  "tile.tmem.dealloc"(%slot) {num_cols = 64} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "load_warp", block = array<i32: 32, 1, 1>} : () -> ()
