// RUN: tile-opt %s --verify-diagnostics --allow-unregistered-dialect --no-implicit-verify --convert-tile-to-nvvm
//
// Without tile-verify in the pipeline, convert-tile-to-nvvm still refuses an op of another kind on a
// tile buffer before erasing the tile ops it would be left pointing into (this was a SIGSEGV).

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  // expected-error@+1 {{'tiel.copy' op lowering: uses a tile buffer, which only tile ops take (run tile-verify)}}
  "tiel.copy"(%s, %g) : (!tile.buffer<shared, 32x16xui8>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "foreign_user", block = array<i32: 32, 1, 1>} : () -> ()
