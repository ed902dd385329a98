// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify --no-type-aliases | FileCheck %s
//
// tile.copy_async round trip (its lowering is tested in test/Conversion/TileToNVVM/): operand order
// (dst, src), regions, cta_group, scope, dispatch. A kernel's CHECK-LABEL (its sym_name) follows the
// checks of its body: the generic form prints the kernel's attributes after the body.

// CHECK: %[[S:.*]] = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
// CHECK: %[[T:.*]] = "tile.tmem.buffer"
// CHECK-NEXT: "tile.copy_async"(%[[T]], %[[S]]) {cta_group = 1 : i64, scope = "thread"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
// CHECK-NEXT: "tile.copy_async"(%[[T]], %[[S]]) {dispatch = "smem->tmem"} :
// CHECK-LABEL: sym_name = "smem_to_tmem"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1, scope = "thread"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.copy_async"(%t, %s) {dispatch = "smem->tmem"} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "smem_to_tmem", block = array<i32: 128, 1, 1>} : () -> ()

// A sub-region of a swizzled shared tile into four tiles of tensor memory (multi-cp layout).
// CHECK: "tile.copy_async"(%{{.*}}, %{{.*}}) {dst_offsets = array<i64: 1, 0, 0>, dst_sizes = array<i64: 1, 32, 16>, src_offsets = array<i64: 8, 0>, src_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 4x32x16xui8, "S[(4, 32, 16) : (16@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>) -> ()
// CHECK-LABEL: sym_name = "regions"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 64} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x32x16xui8, "S[(4, 32, 16) : (16@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 8, 0>, src_sizes = array<i64: 32, 16>, dst_offsets = array<i64: 1, 0, 0>, dst_sizes = array<i64: 1, 32, 16>} : (!tile.buffer<tmem, 4x32x16xui8, "S[(4, 32, 16) : (16@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "regions", block = array<i32: 128, 1, 1>} : () -> ()

// cta_group 2 in a 2-CTA cluster.
// CHECK: "tile.copy_async"(%{{.*}}, %{{.*}}) {cta_group = 2 : i64}
// CHECK: cluster = array<i32: 2, 1, 1>,
// CHECK-LABEL: sym_name = "cta_group2"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
