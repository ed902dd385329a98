// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// tile.kernel: launch shape, parameters, body, and where kernels and tile ops may appear.

// expected-error@+1 {{'tile.kernel' op launch-shape: block [0, 1, 1] must be positive with at most 1024 threads}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "zero_block", block = array<i32: 0, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op launch-shape: block [64, 32, 1] must be positive with at most 1024 threads}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "block_too_large", block = array<i32: 64, 32, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op launch-shape: cluster [4, 4, 2] must be positive with at most 16 CTAs}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "cluster_too_large", block = array<i32: 128, 1, 1>, cluster = array<i32: 4, 4, 2>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op launch-shape: cluster [0, 1, 1] must be positive}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "zero_cluster", block = array<i32: 128, 1, 1>, cluster = array<i32: 0, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op body: expects a single-block body, got 2 blocks}}
"tile.kernel"() ({
  cf.br ^bb1
^bb1:
  "tile.return"() : () -> ()
}) {sym_name = "two_blocks", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op body: the body must end with tile.return}}
"tile.kernel"() ({
  "tile.barrier"() : () -> ()
}) {sym_name = "no_return", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op parameter: parameter #1 must be a global buffer or a scalar, got a shared buffer}}
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 16xi32>, %b: !tile.buffer<shared, 16xi32>):
  "tile.return"() : () -> ()
}) {sym_name = "shared_parameter", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op parameter: parameter #0 must be a global buffer or an i32/i64/f32 scalar, got i16}}
"tile.kernel"() ({
^bb0(%n: i16):
  "tile.return"() : () -> ()
}) {sym_name = "i16_parameter", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op buffer-type: parameter #0: expected a shape like 32x16xui8, got '32 by 16'}}
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 32 by 16>):
  "tile.return"() : () -> ()
}) {sym_name = "bad_parameter_type", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op layout: parameter #0: a global layout maps onto memory (axis m), got axes ['TCol', 'TLane']}}
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)]">):
  "tile.return"() : () -> ()
}) {sym_name = "parameter_with_tmem_layout", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.kernel' op placement: kernels cannot nest}}
  "tile.kernel"() ({
    "tile.return"() : () -> ()
  }) {sym_name = "inner", block = array<i32: 32, 1, 1>} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "outer", block = array<i32: 32, 1, 1>} : () -> ()

// -----

func.func @host() {
  // expected-error@+1 {{'tile.kernel' op placement: must be at module level}}
  "tile.kernel"() ({
    "tile.return"() : () -> ()
  }) {sym_name = "in_func", block = array<i32: 32, 1, 1>} : () -> ()
  return
}

// -----

func.func @outside() {
  // expected-error@+1 {{'tile.barrier' op placement: must be nested in a tile.kernel}}
  "tile.barrier"() : () -> ()
  return
}

// -----

// expected-error@+1 {{'tile.thread_id' op placement: must be nested in a tile.kernel}}
%t = "tile.thread_id"() : () -> i32

// -----

// The name becomes the llvm.func symbol and the PTX .entry: '.' or '#' in it ended in a libNVVM error
// with a module dump, and quotes and braces in it once reached the IR's text.
// expected-error@+1 {{'tile.kernel' op kernel-name: sym_name 'a.b' must be a PTX identifier of at most 1000 characters}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "a.b", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op kernel-name: sym_name 'k"() {nvvm.reqntid = array<i32: 1, 1, 1>...' must be a PTX identifier}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "k\"() {nvvm.reqntid = array<i32: 1, 1, 1>} : () -> ()", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op kernel-name: sym_name '9lives' must be a PTX identifier}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "9lives", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op kernel-name: sym_name '_' must be a PTX identifier}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "_", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op kernel-name: sym_name '' must be a PTX identifier}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op launch-shape: grid [4, 0, 1] must be positive, with y and z at most 65535}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "zero_grid", block = array<i32: 32, 1, 1>, grid = array<i32: 4, 0, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op launch-shape: grid [1, 65536, 1] must be positive, with y and z at most 65535}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "tall_grid", block = array<i32: 32, 1, 1>, grid = array<i32: 1, 65536, 1>} : () -> ()

// -----

// arg_names: one valid, unique identifier per parameter.
// expected-error@+1 {{'tile.kernel' op arg-names: arg_names has 1 names for 2 parameters}}
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 4xf32>, %n: i32):
  "tile.return"() : () -> ()
}) {sym_name = "names_count", block = array<i32: 32, 1, 1>, arg_names = ["a"]} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op arg-names: parameter #1's name '2n' is not an identifier}}
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 4xf32>, %n: i32):
  "tile.return"() : () -> ()
}) {sym_name = "names_identifier", block = array<i32: 32, 1, 1>, arg_names = ["a", "2n"]} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op arg-names: parameter #0's name 'lambda' is not an identifier}}
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 4xf32>):
  "tile.return"() : () -> ()
}) {sym_name = "names_keyword", block = array<i32: 32, 1, 1>, arg_names = ["lambda"]} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op arg-names: parameter #1's name 'a' is given twice}}
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 4xf32>, %b: i32):
  "tile.return"() : () -> ()
}) {sym_name = "names_twice", block = array<i32: 32, 1, 1>, arg_names = ["a", "a"]} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op attributes: attribute 'arg_names' must be an array of strings, got [1]}}
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 4xf32>):
  "tile.return"() : () -> ()
}) {sym_name = "names_type", block = array<i32: 32, 1, 1>, arg_names = [1]} : () -> ()
