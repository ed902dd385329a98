// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// tile.kernel is an op MLIR does not know, so MLIR checks neither dominance in its body nor that the
// body is isolated from above; tile-verify does (a use before the definition was a KeyError, an
// internal error of convert-tile-to-nvvm).

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  // expected-error@+1 {{operand #0 of 'tile.copy' is used before its definition}}
  "tile.copy"(%s, %g) : (!tile.buffer<shared, 32x16xui8>, !tile.buffer<global, 32x16xui8>) -> ()
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  "tile.return"() : () -> ()
}) {sym_name = "buffer_before_alloc", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %t = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %t, %c0 : i32
  scf.if %first {
    // expected-error@+1 {{operand #1 of 'arith.addi' is used before its definition}}
    %x = arith.addi %t, %later : i32
  }
  %later = arith.addi %t, %t : i32
  "tile.return"() : () -> ()
}) {sym_name = "nested_use_before_definition", block = array<i32: 32, 1, 1>} : () -> ()

// -----

%outside = arith.constant 1 : i32
"tile.kernel"() ({
  %t = "tile.thread_id"() : () -> i32
  // expected-error@+1 {{operand #1 of 'arith.addi' is defined outside the tile.kernel, which is isolated from above}}
  %x = arith.addi %t, %outside : i32
  "tile.return"() : () -> ()
}) {sym_name = "value_from_outside", block = array<i32: 32, 1, 1>} : () -> ()
