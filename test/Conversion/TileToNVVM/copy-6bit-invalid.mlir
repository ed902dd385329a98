// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify --convert-tile-to-nvvm
//
// tile.copy of 6-bit elements moves whole groups of 16 (12 bytes packed, one 16-byte unit in packing
// b6x16_p32); copies that would split a group, or packed 6-bit data in a swizzled buffer, are refused.

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x32xf6E2M3FN>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xf6E2M3FN, "S[(32, 32) : (32, 1)]", packing b6x16_p32>
  // expected-error@+1 {{'tile.copy' op lowering: tile.copy of 6-bit elements moves whole groups of 16 (12 bytes packed, 16 bytes in packing b6x16_p32): every run of 16 elements of the dst region must be contiguous and start at a multiple of 16 elements}}
  "tile.copy"(%s, %A) {scope = "cta", dst_offsets = array<i64: 0, 8>, dst_sizes = array<i64: 32, 16>, src_offsets = array<i64: 0, 8>, src_sizes = array<i64: 32, 16>} : (!tile.buffer<shared, 32x32xf6E2M3FN, "S[(32, 32) : (32, 1)]", packing b6x16_p32>, !tile.buffer<global, 32x32xf6E2M3FN>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "group_split", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x8xi6>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x8xi6>
  // expected-error@+1 {{'tile.copy' op lowering: tile.copy of 6-bit elements moves whole groups of 16 (12 bytes packed, 16 bytes in packing b6x16_p32): every run of 16 elements of the dst region must be contiguous and start at a multiple of 16 elements}}
  "tile.copy"(%s, %A) {scope = "cta", dst_sizes = array<i64: 32, 4>, src_sizes = array<i64: 32, 4>} : (!tile.buffer<shared, 32x8xi6>, !tile.buffer<global, 32x8xi6>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "runs_of_4", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x128xf6E3M2FN>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xf6E3M2FN, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
  // expected-error@+1 {{'tile.copy' op lowering: tile.copy of 6-bit elements: the dst buffer is swizzled but holds packed 6-bit data, whose 12-byte groups straddle swizzle units; declare it with packing b6x16_p32}}
  "tile.copy"(%s, %A) {scope = "cta"} : (!tile.buffer<shared, 32x128xf6E3M2FN, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>, !tile.buffer<global, 32x128xf6E3M2FN>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "packed_6_bit_swizzled", block = array<i32: 128, 1, 1>} : () -> ()
