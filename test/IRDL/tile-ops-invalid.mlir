// REQUIRES: mlir-opt-22
// RUN: mlir-opt-22 --irdl-file=%root/lib/TileOps.irdl %s --split-input-file --verify-diagnostics
//
// Invalid tile IR that upstream MLIR rejects from lib/TileOps.irdl alone (IRDL spelling: see
// tile-ops.mlir), and the one valid construct it cannot accept: a whole tile.kernel.

// expected-error@+1 {{op expects exactly 1 operands, but got 0}}
"tile.tmem_alloc"() {num_cols = 32} : () -> ()

// -----

func.func @extra_operand(%x: i32) {
  // expected-error@+1 {{op expects exactly 0 operands, but got 1}}
  "tile.barrier"(%x) : (i32) -> ()
  return
}

// -----

// expected-error@+1 {{'"proxy"' does not satisfy the constraint}}
"tile.fence"() {kind = "proxy"} : () -> ()

// -----

// expected-error@+1 {{'tile.fence' op attribute "kind" is expected but not provided}}
"tile.fence"() : () -> ()

// -----

func.func @attribute_kind(%slot: !tile.buffer<"shared", array<i64: 1>, i32, "", 0, "">) {
  // expected-error@+1 {{expected base attribute 'builtin.integer' but got 'builtin.string'}}
  "tile.tmem_alloc"(%slot) {num_cols = "32"} : (!tile.buffer<"shared", array<i64: 1>, i32, "", 0, "">) -> ()
  return
}

// -----

// expected-error@+1 {{expected 'i32' but got 'i64'}}
%0 = "tile.thread_id"() : () -> i64

// -----

func.func @operand_scope(%s: !tile.buffer<"shared", array<i64: 4, 4>, ui8, "", 0, "">,
                         %t: !tile.buffer<"tmem", array<i64: 4, 4>, ui8, "", 0, "">) {
  // expected-error@+1 {{expected '"global"' but got '"shared"'}}
  "tile.tmem_load"(%s, %t) {num_cols = 4} : (!tile.buffer<"shared", array<i64: 4, 4>, ui8, "", 0, "">, !tile.buffer<"tmem", array<i64: 4, 4>, ui8, "", 0, "">) -> ()
  return
}

// -----

// expected-error@+1 {{expected '"shared"' but got '"global"'}}
%0 = "tile.alloc_shared"() : () -> !tile.buffer<"global", array<i64: 1>, i32, "", 0, "">

// -----

// expected-error@+1 {{expected base type 'tile.buffer' but got 'i32'}}
%0 = "tile.alloc_shared"() : () -> i32

// -----

// expected-error@+1 {{'tile.async_wait' op unexpected number of regions: expected 0 but got 1}}
"tile.async_wait"() ({}) : () -> ()

// -----

// expected-error@+1 {{'"local"' does not satisfy the constraint}}
func.func private @scope(!tile.buffer<"local", array<i64: 1>, i8, "", 0, "">)

// -----

// expected-error@+1 {{'f80' does not satisfy the constraint}}
func.func private @element_type(!tile.buffer<"shared", array<i64: 1>, f80, "", 0, "">)

// -----

// expected-error@+1 {{'"b4x16"' does not satisfy the constraint}}
func.func private @packing(!tile.buffer<"shared", array<i64: 16>, i4, "", 0, "b4x16">)

// -----

// expected-error@+1 {{expected 6 type arguments, but had 5}}
func.func private @five_parameters(!tile.buffer<"shared", array<i64: 1>, i8, "", 0>)

// -----

// The tile name, with its dots, is not the IRDL one (tmem.alloc is tmem_alloc).
func.func @dotted_name(%slot: !tile.buffer<"shared", array<i64: 1>, i32, "", 0, "">) {
  // expected-error@+1 {{unregistered operation 'tile.tmem.alloc' found in dialect ('tile') that does not allow unknown operations}}
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<"shared", array<i64: 1>, i32, "", 0, "">) -> ()
  return
}

// -----

// expected-error@+1 {{'tile.kernel' op attribute "block" is expected but not provided}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "no_block"} : () -> ()

// -----

// A valid kernel: IRDL ops have no traits, so upstream does not know tile.return ends the body.
"tile.kernel"() ({
  // expected-error@+1 {{block with no terminator}}
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 128, 1, 1>} : () -> ()
