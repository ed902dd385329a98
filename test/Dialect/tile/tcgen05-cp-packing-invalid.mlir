// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify

// The padded sub-byte forms tcgen05.cp decompresses (.b4x16_p64, .b6x16_p32; docs/tcgen05.md §8) are
// shared-memory packings of 4-bit and 6-bit elements only.

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op packing: result #0: packing b4x16_p64 holds 4-bit elements, not ui8}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, packing b4x16_p64>
  "tile.return"() : () -> ()
}) {sym_name = "b4x16_p64_of_bytes", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op packing: result #0: packing b4x16_p64 holds 4-bit elements, not f6E2M3FN}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xf6E2M3FN, packing b4x16_p64>
  "tile.return"() : () -> ()
}) {sym_name = "b4x16_p64_of_6bit", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  // expected-error@+1 {{'tile.tmem.buffer' op packing: result #0: packing b4x16_p64 is a shared-memory form; tmem buffers hold sub-byte elements packed contiguously}}
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x32xf4E2M1FN, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]", packing b4x16_p64>
  "tile.return"() : () -> ()
}) {sym_name = "b4x16_p64_in_tmem", block = array<i32: 128, 1, 1>} : () -> ()
