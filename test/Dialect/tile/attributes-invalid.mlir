// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// Attributes against OP_SPECS (unknown, missing, wrong kind, outside the choices) and regions.

"tile.kernel"() ({
  // expected-error@+1 {{'tile.barrier' op attributes: unknown attribute 'sync' (allowed: scope)}}
  "tile.barrier"() {sync = true} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "unknown_attribute", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.fence' op attributes: requires attribute 'kind'}}
  "tile.fence"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "missing_attribute", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op attributes: requires attribute 'sym_name'}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.tmem.alloc' op attributes: attribute 'num_cols' must be an integer, got "32"}}
  "tile.tmem.alloc"(%slot) {num_cols = "32"} : (!tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "string_for_integer", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.fence' op attributes: attribute 'kind' must be a string, got 1 : i64}}
  "tile.fence"() {kind = 1} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "integer_for_string", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op attributes: attribute 'block' must be array<i32: x, y, z>, got array<i32: 128, 1>}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "block_rank_2", block = array<i32: 128, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op attributes: attribute 'block' must be array<i32: x, y, z>, got array<i64: 128, 1, 1>}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "block_i64", block = array<i64: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  // expected-error@+1 {{'tile.copy' op attributes: attribute 'dst_offsets' must be array<i64: ...>, got [0, 0]}}
  "tile.copy"(%s, %g) {dst_offsets = [0, 0]} : (!tile.buffer<shared, 32x16xui8>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "array_attr_for_dense", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.fence' op attributes: attribute 'kind' must be one of proxy_async, tcgen05_before_sync, tcgen05_after_sync, mbarrier_init, got 'acquire'}}
  "tile.fence"() {kind = "acquire"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bad_fence_kind", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.barrier' op attributes: attribute 'scope' must be one of cta, cluster, got 'warp'}}
  "tile.barrier"() {scope = "warp"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bad_barrier_scope", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.tmem.relinquish' op attributes: attribute 'cta_group' must be one of 1, 2, got 3}}
  "tile.tmem.relinquish"() {cta_group = 3} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bad_cta_group", block = array<i32: 32, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{'tile.barrier' op regions: expects 0 region(s), got 1}}
  "tile.barrier"() ({
  }) : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "region_on_barrier", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op regions: expects 1 region(s), got 0}}
"tile.kernel"() {sym_name = "no_body", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// A cluster of the wrong rank is an attribute error (it once crashed the cta_group bookkeeping).
// expected-error@+1 {{'tile.kernel' op attributes: attribute 'cluster' must be array<i32: x, y, z>, got array<i32: 2, 1>}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "cluster_rank_2", block = array<i32: 32, 1, 1>, cluster = array<i32: 2, 1>} : () -> ()

// -----

// Dense arrays of signed or unsigned elements are of no kind the bindings can read (their read was a
// TypeError, an internal error of tile-verify): the kind check says what is expected.
// expected-error@+1 {{'tile.kernel' op attributes: attribute 'block' must be array<i32: x, y, z>}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "block_si32", block = array<si32: 128, 1, 1>} : () -> ()

// -----

// expected-error@+1 {{'tile.kernel' op attributes: attribute 'cluster' must be array<i32: x, y, z>}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "cluster_ui32", block = array<i32: 32, 1, 1>, cluster = array<ui32: 2, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  // expected-error@+1 {{'tile.copy' op attributes: attribute 'src_sizes' must be array<i64: ...>}}
  "tile.copy"(%s, %g) {src_sizes = array<ui64: 32, 16>} : (!tile.buffer<shared, 32x16xui8>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "region_ui64", block = array<i32: 32, 1, 1>} : () -> ()

// -----

// A string of bytes that are not UTF-8 reads with U+FFFD for them (reading it was a RuntimeError).
"tile.kernel"() ({
  // expected-error@+1 {{'tile.barrier' op attributes: attribute 'scope' must be one of cta, cluster, got 'c}}
  "tile.barrier"() {scope = "c\FFta"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "scope_not_utf8", block = array<i32: 32, 1, 1>} : () -> ()
