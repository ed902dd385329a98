// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify

"tile.kernel"() ({
  %raw = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>
  // expected-error@+1 {{'tile.reinterpret' op reinterpret-size: the result's layout spans 1024 bytes, the source holds 512}}
  %sf = "tile.reinterpret"(%raw) : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>) -> !tile.buffer<shared, 256x4xui8>
  "tile.return"() : () -> ()
}) {sym_name = "too_large", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %raw = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>
  // expected-error@+1 {{'tile.reinterpret' op alignment: the result claims align 1024, the source guarantees 128}}
  %sf = "tile.reinterpret"(%raw) : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>) -> !tile.buffer<shared, 512xui8, align 1024>
  "tile.return"() : () -> ()
}) {sym_name = "over_aligned", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 512xui8>):
  // expected-error@+1 {{'tile.reinterpret' op operand-scope: operand #0 (source) must be a shared buffer, got a global buffer}}
  %v = "tile.reinterpret"(%g) : (!tile.buffer<global, 512xui8>) -> !tile.buffer<shared, 512xui8>
  "tile.return"() : () -> ()
}) {sym_name = "not_shared", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.block_id' op attributes: attribute 'dim' must be one of x, y, z, got 'w'}}
  %x = "tile.block_id"() {dim = "w"} : () -> i32
  "tile.return"() : () -> ()
}) {sym_name = "bad_dim", block = array<i32: 128, 1, 1>} : () -> ()
