// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify

// Register tiles and the ops on them that the verifier refuses (dialect/checks.py
// _check_register_buffer, dialect/ops/copy.py ConvertOp / CopyOp / CopyAsyncOp .verify).

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: a reg buffer needs a layout saying which thread holds each element (axes warpid, laneid, reg)}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32>
  "tile.return"() : () -> ()
}) {sym_name = "no_layout", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: a register layout maps onto warpid, laneid and reg, got TCol}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@TCol)]">
  "tile.return"() : () -> ()
}) {sym_name = "tmem_axis", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: elements 0 and 1 (flat indices) share warp 0 lane 0 slot 0: a register layout must be injective}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 0@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "not_injective", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: a thread holds 256 32-bit registers of it, more than the 255 a thread has}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x256xf32, "S[(32, 256) : (1@laneid, 1@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "too_many_registers", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: laneid reaches 63, beyond the 32 lanes of a warp}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x4xf32, "S[(64, 4) : (1@laneid, 1@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "lanes_beyond_a_warp", block = array<i32: 64, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf8E4M3FN, "S[(32, 4) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{'tile.convert' op rounding: f32 -> f8E4M3FN rounds rn_satfinite, got 'rn'}}
  "tile.convert"(%b, %a) {rounding = "rn"} : (!tile.buffer<reg, 32x4xf8E4M3FN, "S[(32, 4) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "f8_needs_satfinite", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xbf16, "S[(32, 4) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{'tile.convert' op element-type: no conversion bf16 -> f32}}
  "tile.convert"(%b, %a) : (!tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x4xbf16, "S[(32, 4) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "no_such_conversion", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xbf16, "S[(32, 4) : (1@reg, 1@laneid)]">
  // expected-error@+1 {{'tile.convert' op layout: dst and src must put every element in the same thread (warpid, laneid equal): a conversion moves no data between threads}}
  "tile.convert"(%b, %a) : (!tile.buffer<reg, 32x4xbf16, "S[(32, 4) : (1@reg, 1@laneid)]">, !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "convert_moves_data", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{'tile.copy' op operand-scope: tile.copy between two register tiles moves no memory}}
  "tile.copy"(%b, %a) : (!tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "copy_reg_to_reg", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x4xf32>):
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{'tile.copy_async' op operand-scope: tile.copy_async moves registers only to or from tmem (tcgen05.ld / tcgen05.st), got reg -> global; use tile.copy to store registers to global or shared memory}}
  "tile.copy_async"(%g, %a) : (!tile.buffer<global, 32x4xf32>, !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "copy_async_reg_to_global", block = array<i32: 32, 1, 1>} : () -> ()
