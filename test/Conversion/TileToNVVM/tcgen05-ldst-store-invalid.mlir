// RUN: tile-opt %s --split-input-file --verify-diagnostics --convert-tile-to-nvvm

// tile.copy between registers and memory that the register store cannot do (lowering/registers.py
// plan_register_store): every thread of the tile's warps holds the same slots, and the buffer is not
// swizzled.

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x64xbf16, "S[(32, 64) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{'tile.copy' op lowering: tile.copy from registers: registers move to and from unswizzled buffers only}}
  "tile.copy"(%s, %r) {scope = "warp"} : (!tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>, !tile.buffer<reg, 32x64xbf16, "S[(32, 64) : (1@laneid, 1@reg)]">) -> ()
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
