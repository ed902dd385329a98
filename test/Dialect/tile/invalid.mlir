// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify

"tile.kernel"() ({
  // expected-error@+1 {{'tile.alloc_shared' op layout: result #0: malformed layout}}
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) (16, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "bad_layout_text", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  // expected-error@+1 {{'tile.copy_async' op region-in-bounds: src region [16, 48) of dim 0 is outside the buffer's extent 32}}
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 16, 0>, src_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "region_out_of_bounds", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 1xi32>):
  // expected-error@+1 {{'tile.tmem.alloc' op operand-scope: operand #0 (slot) must be a shared buffer, got a global buffer}}
  "tile.tmem.alloc"(%g) {num_cols = 32} : (!tile.buffer<global, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "scope_mismatch", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.tmem.buffer' op operands: expects 1 operand(s) (slot), got 0}}
  %t = "tile.tmem.buffer"() : () -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.return"() : () -> ()
}) {sym_name = "tmem_without_address", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.tmem.buffer' op tmem-address: the slot is not written by any tile.tmem.alloc}}
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.return"() : () -> ()
}) {sym_name = "tmem_slot_never_allocated", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{unknown tile operation 'tile.frobnicate'}}
  "tile.frobnicate"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "unknown_op", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %c = arith.constant 0 : i32
  // expected-error@+1 {{'tile.mbarrier.init' op operand-type: operand #0 (barrier) must be a !tile.buffer, got i32}}
  "tile.mbarrier.init"(%c) {count = 1} : (i32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wrong_operand_type", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.tmem.alloc' op tmem-alloc: num_cols must be a power of two in [32, 512] (PTX tcgen05.alloc), got 16}}
  "tile.tmem.alloc"(%slot) {num_cols = 16} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "seed_listing_16_columns", block = array<i32: 128, 1, 1>} : () -> ()
