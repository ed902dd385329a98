// RUN: tile-opt %s --split-input-file --verify-diagnostics --convert-tile-to-nvvm

// tile.copy between registers and memory that the register store cannot do (lowering/registers.py
// plan_register_store): every thread of the tile's warps holds the same slots, and into a swizzled buffer
// each thread's elements share the bits the swizzle reads (here lane = column, so a thread holds 64 rows).

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xbf16, "Swizzle<128B> o S[(64, 32) : (32, 1)]", align 1024>
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xbf16, "S[(64, 32) : (1@reg, 1@laneid)]">
  // expected-error@+1 {{'tile.copy' op lowering: tile.copy from registers: a thread's elements differ in the bits the 128B swizzle reads (bits 7..9 of the byte offset)}}
  "tile.copy"(%s, %r) {scope = "warp"} : (!tile.buffer<shared, 64x32xbf16, "Swizzle<128B> o S[(64, 32) : (32, 1)]", align 1024>, !tile.buffer<reg, 64x32xbf16, "S[(64, 32) : (1@reg, 1@laneid)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "swizzled_destination", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 24x4xf32>):
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 24x4xf32, "S[(24, 4) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{'tile.copy' op lowering: tile.copy to registers: every thread of warps 0..0 must hold the same register slots}}
  "tile.copy"(%r, %g) {scope = "warp"} : (!tile.buffer<reg, 24x4xf32, "S[(24, 4) : (1@laneid, 1@reg)]">, !tile.buffer<global, 24x4xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "lanes_without_elements", block = array<i32: 32, 1, 1>} : () -> ()
