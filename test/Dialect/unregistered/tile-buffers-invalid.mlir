// RUN: tile-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --tile-verify
//
// Only tile ops take or make tile buffers (and the casts to pointers that tile-lower-copy-async
// leaves): an op of an unknown dialect on them passed tile-verify, and the lowering, which erases the
// tile ops, left it using freed values (SIGSEGV in convert-tile-to-nvvm). compile() parses ops of
// unknown dialects, and tile-opt does with --allow-unregistered-dialect, so the verifier reports them
// (not in Dialect/tile, whose files run without that flag).

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  // expected-error@+1 {{op 'tiel.copy_async' of an unknown dialect uses tile buffers; did you mean 'tile.copy_async'?}}
  "tiel.copy_async"(%s, %g) : (!tile.buffer<shared, 32x16xui8>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "misspelt_dialect", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{op 'my.alloc' of an unknown dialect uses tile buffers}}
  %s = "my.alloc"() : () -> !tile.buffer<shared, 32x16xui8>
  "tile.return"() : () -> ()
}) {sym_name = "foreign_result", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %t = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %t, %c0 : i32
  // expected-error@+1 {{op 'arith.select' uses tile buffers, which only tile ops take or make}}
  %bar = arith.select %first, %a, %b : !tile.buffer<shared, 1xi64>
  "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "registered_op_on_buffers", block = array<i32: 32, 1, 1>} : () -> ()
