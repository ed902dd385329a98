// RUN: tile-opt %s --split-input-file --verify-diagnostics
//
// tile.semaphore.arrive's checks: a global 1xi32 counter, a named barrier id in [0, 16) and a count of whole
// warps within the CTA.

"tile.kernel"() ({
^bb0(%C: !tile.buffer<global, 2xi32>):
  %c3 = arith.constant 3 : i32
  // expected-error@+1 {{operand #0 (counter) must be a global 1xi32 buffer}}
  %last = "tile.semaphore.arrive"(%C, %c3) {id = 1, count = 128} : (!tile.buffer<global, 2xi32>, i32) -> i1
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%C: !tile.buffer<global, 1xi32>):
  %c3 = arith.constant 3 : i32
  // expected-error@+1 {{barrier id 16 is not in [0, 16)}}
  %last = "tile.semaphore.arrive"(%C, %c3) {id = 16, count = 128} : (!tile.buffer<global, 1xi32>, i32) -> i1
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%C: !tile.buffer<global, 1xi32>):
  %c3 = arith.constant 3 : i32
  // expected-error@+1 {{thread count 256 is more than the CTA's 128 threads}}
  %last = "tile.semaphore.arrive"(%C, %c3) {id = 1, count = 256} : (!tile.buffer<global, 1xi32>, i32) -> i1
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%C: !tile.buffer<global, 1xf32>):
  %c3 = arith.constant 3 : i32
  // expected-error@+1 {{operand #0 (counter) must be a global 1xi32 buffer}}
  %last = "tile.semaphore.arrive"(%C, %c3) {id = 1, count = 128} : (!tile.buffer<global, 1xf32>, i32) -> i1
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 128, 1, 1>} : () -> ()
