// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// !tile.buffer parse errors, layouts that do not fit their buffer or scope, and result checks.

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: unknown buffer scope 'local' (expected one of global, shared, tmem, reg)}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<local, 4xi32>
  "tile.return"() : () -> ()
}) {sym_name = "unknown_scope", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: unsupported element type 'q32'}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4xq32>
  "tile.return"() : () -> ()
}) {sym_name = "bad_element_type", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: expected a shape like 32x16xui8, got '4 x i32'}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4 x i32>
  "tile.return"() : () -> ()
}) {sym_name = "bad_shape", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: buffer dimensions must be positive, got 0x4xi32}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 0x4xi32>
  "tile.return"() : () -> ()
}) {sym_name = "zero_dimension", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: expected '<scope>, <shape>x<element type>'}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared>
  "tile.return"() : () -> ()
}) {sym_name = "missing_shape", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: alignment must be a power of two, got 24}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4xi32, align 24>
  "tile.return"() : () -> ()
}) {sym_name = "align_not_power_of_two", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: unexpected 'volatile' in buffer type}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4xi32, volatile>
  "tile.return"() : () -> ()
}) {sym_name = "unexpected_part", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op layout: result #0: layout covers 256 elements but the buffer shape 32x16 has 512}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(16, 16) : (16, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "layout_size_mismatch", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op layout: result #0: a shared layout maps onto memory (axis m), got axes ['TCol', 'TLane']}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)]">
  "tile.return"() : () -> ()
}) {sym_name = "shared_layout_on_tmem_axes", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op layout: result #0: a shared layout cannot have replicas}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)] + R[2 : 512]">
  "tile.return"() : () -> ()
}) {sym_name = "shared_replica", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op layout: parameter #0: only shared buffers can be swizzled}}
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]">):
  "tile.return"() : () -> ()
}) {sym_name = "swizzled_global", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op swizzle-alignment: result #0: 128B swizzle is applied to absolute shared addresses, so the buffer needs align 1024 (the swizzle repeat), got 256}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 256>
  "tile.return"() : () -> ()
}) {sym_name = "swizzle_underaligned", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op swizzle-alignment: result #0: 32B swizzle is applied to absolute shared addresses, so the buffer needs align 256 (the swizzle repeat), got 16}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "swizzle_default_alignment", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op layout: negative stride -16 on m}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (-16, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "negative_stride", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op result-scope: result #0 must be a shared buffer, got a global buffer}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<global, 16xi32>
  "tile.return"() : () -> ()
}) {sym_name = "alloc_global", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op results: expects 1 result(s), got 2}}
  %0:2 = "tile.alloc_shared"() : () -> (!tile.buffer<shared, 16xi32>, !tile.buffer<shared, 16xi32>)
  "tile.return"() : () -> ()
}) {sym_name = "two_results", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.thread_id' op result-type: result #0 must be i32, got i64}}
  %0 = "tile.thread_id"() : () -> i64
  "tile.return"() : () -> ()
}) {sym_name = "thread_id_i64", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: unknown packing 'b6x16' (known: b6x16_p32, b4x16_p64)}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xf6E2M3FN, packing b6x16>
  "tile.return"() : () -> ()
}) {sym_name = "unknown_packing", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op packing: result #0: packing b6x16_p32 holds 6-bit elements, not ui8}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, packing b6x16_p32>
  "tile.return"() : () -> ()
}) {sym_name = "packing_of_8_bit_elements", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op packing: parameter #0: packing b6x16_p32 is a shared-memory form; global buffers hold sub-byte elements packed contiguously}}
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xf6E2M3FN, packing b6x16_p32>):
  "tile.return"() : () -> ()
}) {sym_name = "packing_in_global_memory", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op buffer-type: result #0: alignment must be at most 65536 bytes, got 18446744073709551616}}
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64xui8, align 18446744073709551616>
  "tile.return"() : () -> ()
}) {sym_name = "align_beyond_any_use", block = array<i32: 32, 1, 1>} : () -> ()
