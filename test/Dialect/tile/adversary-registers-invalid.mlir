// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// Hostile register tiles (the adversary's finds): sizes that must be refused before the layout is
// tabulated, tiles beyond the register budget ptxas gives a thread of the kernel's CTA
// (target.register_budget), and layouts naming threads the CTA does not have.

// 3.2e13 elements: refused by count, not by an out-of-memory in the layout's table
"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: 32000000000000 elements are more than the 261120 f32 that the 255 registers of 1024 threads hold}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1000000000000xf32, "S[(32, 1000000000000) : (1@laneid, 1@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "huge", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a register stride of 2^62: the slot count, not the layout, is what is too large
"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: a thread holds 4611686018427387905 32-bit registers of it, more than the 255 a thread has}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 4611686018427387904@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "huge_stride", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 896 threads: ptxas gives each 72 registers, fewer than this tile's 192
"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op register-budget: result #0: a thread holds 192 32-bit registers of it, more than the 72 ptxas gives each thread of a 896-thread CTA}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x384xbf16, "S[(4, 32, 384) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "over_budget", block = array<i32: 128, 7, 1>} : () -> ()

// -----

// 1024 threads: 64 registers each, and the tile holds 65
"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op register-budget: result #0: a thread holds 65 32-bit registers of it, more than the 64 ptxas gives each thread of a 1024-thread CTA}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x65xf32, "S[(32, 65) : (1@laneid, 1@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "one_over", block = array<i32: 1024, 1, 1>} : () -> ()

// -----

// warps 4..7 of a 4-warp CTA
"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: warp 7 lane 31 holds elements of it, but the CTA has 128 threads}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@warpid)]">
  "tile.return"() : () -> ()
}) {sym_name = "warps_beyond", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a whole warp's lanes in a one-thread CTA
"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: warp 0 lane 31 holds elements of it, but the CTA has 1 thread}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">
  "tile.return"() : () -> ()
}) {sym_name = "lanes_beyond", block = array<i32: 1, 1, 1>} : () -> ()

// -----

// two strides onto laneid that collide
"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: laneid reaches 34, beyond the 32 lanes of a warp}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@laneid)]">
  "tile.return"() : () -> ()
}) {sym_name = "overlap", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_reg' op layout: result #0: a register layout maps onto warpid, laneid and reg, got foo}}
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@foo)]">
  "tile.return"() : () -> ()
}) {sym_name = "unknown_axis", block = array<i32: 128, 1, 1>} : () -> ()
