// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// tile.copy and tile.copy_async: regions and element types of the two sides, operand scopes.

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  // expected-error@+1 {{'tile.copy' op region-rank: dst region has 1 offsets and 1 sizes for a rank-2 buffer}}
  "tile.copy"(%s, %g) {dst_offsets = array<i64: 0>, dst_sizes = array<i64: 32>} : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "region_rank", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  // expected-error@+1 {{'tile.copy' op region-size: dst region [16, 16] has 256 elements, src region [32, 16] has 512}}
  "tile.copy"(%s, %g) {dst_sizes = array<i64: 16, 16>} : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "region_size", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 16x32xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  // expected-error@+1 {{'tile.copy' op region-size: tile.copy needs equal region shapes, got [32, 16] and [16, 32]}}
  "tile.copy"(%s, %g) : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>, !tile.buffer<global, 16x32xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "region_shapes", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xf16>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  // expected-error@+1 {{'tile.copy' op element-type: dst element type ui8 and src element type f16 differ in width}}
  "tile.copy"(%s, %g) : (!tile.buffer<shared, 32x16xui8>, !tile.buffer<global, 32x16xf16>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "element_width", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.copy' op operand-scope: operand #0 (dst) must be a global or shared or reg buffer, got a tmem buffer}}
  "tile.copy"(%t, %s) : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "copy_to_tmem", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.copy_async' op region-size: dst region [32, 8] has 256 elements, src region [32, 16] has 512}}
  "tile.copy_async"(%t, %s) {dst_sizes = array<i64: 32, 8>} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "copy_async_region_size", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.copy_async' op region-in-bounds: dst region [0, 0) of dim 1 is outside the buffer's extent 16}}
  "tile.copy_async"(%t, %s) {dst_sizes = array<i64: 32, 0>} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "copy_async_empty_region", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.copy_async' op operand-type: operand #2 (barrier) must be a shared 1xi64 buffer, got !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>}}
  "tile.copy_async"(%t, %s, %s) : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "copy_async_three_operands", block = array<i32: 128, 1, 1>} : () -> ()
