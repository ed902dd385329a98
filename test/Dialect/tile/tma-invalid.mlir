// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-verify
//
// TMA in the dialect (docs/tma.md): tile.tensor_map against what cuTensorMapEncodeTiled accepts,
// copy_async's mbarrier operand and multicast_mask, expect_tx and bulk_wait.

// rank 1 to 5
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 2x2x2x2x2x16xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-rank: TMA tensors have rank 1 to 5, got rank 6}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 1, 1, 1, 1, 1, 16>} : (!tile.buffer<global, 2x2x2x2x2x16xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "rank6", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// sub-byte element types have no plain TMA data type
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xi4>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-dtype: TMA cannot move i4 elements (its data types are 8, 16, 32 and 64-bit; sub-byte types need packed forms not supported here)}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>} : (!tile.buffer<global, 16x64xi4>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "dtype_i4", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// one box dim per tensor dim
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-box: box has 1 dims for a rank-2 tensor}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 64>} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "box_rank", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// at most 256 elements per box dim
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 512x64xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-box: box dim 0 is 257; TMA boxes are 1 to 256 elements per dim}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 257, 64>} : (!tile.buffer<global, 512x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "box_257", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// at least one element per box dim
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-box: box dim 0 is 0; TMA boxes are 1 to 256 elements per dim}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 0, 64>} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "box_zero", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// inner box row of 8 B: not a multiple of 16
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xbf16>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-box: the inner box row is 4 x 2 B = 8 B; TMA needs a multiple of 16 B}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 4>} : (!tile.buffer<global, 16x64xbf16>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "inner_bytes", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 128-byte rows under a 64B swizzle
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xbf16>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-swizzle: the inner box row is 128 B, more than the 64B swizzle span}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>, swizzle = "64B"} : (!tile.buffer<global, 16x64xbf16>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "swizzle_span", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// dim 1 stride 24 B is not a multiple of 16
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 4x16x24xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-stride: dim 1 has a stride of 24 B; TMA global strides are multiples of 16 B below 2^40}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 1, 1, 16>} : (!tile.buffer<global, 4x16x24xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "stride_bad", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// NaN fill needs a float type
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-oob-fill: oob_fill = "nan" needs a floating-point type, not ui8}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>, oob_fill = "nan"} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "oob_nan_int", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a column-major global layout
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8, "S[(16, 64) : (1, 16)]">):
  // expected-error@+1 {{'tile.tensor_map' op tensor-map-layout: the buffer's layout "S[(16, 64) : (1, 16)]" is not row-major; TMA maps describe row-major tensors here}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>} : (!tile.buffer<global, 16x64xui8, "S[(16, 64) : (1, 16)]">) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "layout", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// swizzle choices
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  // expected-error@+1 {{'tile.tensor_map' op attributes: attribute 'swizzle' must be one of none, 32B, 64B, 128B, got '96B'}}
  %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>, swizzle = "96B"} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "swizzle_choice", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// the map describes a global buffer (a kernel parameter)
"tile.kernel"() ({
^bb0():
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8>
  // expected-error@+1 {{'tile.tensor_map' op operand-scope: operand #0 (buffer) must be a global buffer, got a shared buffer}}
  %m = "tile.tensor_map"(%s) {box = array<i64: 8, 64>} : (!tile.buffer<shared, 16x64xui8>) -> !tile.tensormap
  "tile.return"() : () -> ()
}) {sym_name = "not_param", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// a declaration sits at the top level of the kernel
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %t = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %p = arith.cmpi eq, %t, %c0 : i32
  scf.if %p {
    // expected-error@+1 {{'tile.tensor_map' op placement: tile.tensor_map must be directly in the kernel body: it declares a kernel parameter}}
    %m = "tile.tensor_map"(%A) {box = array<i64: 8, 64>} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  }
  "tile.return"() : () -> ()
}) {sym_name = "nested", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// only a global -> shared copy takes an mbarrier
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op barrier: only a global -> shared copy (a TMA load) completes on an mbarrier, got shared -> global}}
  "tile.copy_async"(%A, %s, %b) : (!tile.buffer<global, 16x64xui8>, !tile.buffer<shared, 16x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "barrier_store", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// the mbarrier is a shared 1xi64
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  // expected-error@+1 {{'tile.copy_async' op operand-type: operand #2 (barrier) must be a shared 1xi64 buffer, got !tile.buffer<shared, 1xi32>}}
  "tile.copy_async"(%s, %A, %b) : (!tile.buffer<shared, 16x64xui8>, !tile.buffer<global, 16x64xui8>, !tile.buffer<shared, 1xi32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "barrier_i32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// multicast_mask needs the mbarrier
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8>
  // expected-error@+1 {{'tile.copy_async' op multicast: multicast_mask is for TMA loads: give the mbarrier operand}}
  "tile.copy_async"(%s, %A) {multicast_mask = 3} : (!tile.buffer<shared, 16x64xui8>, !tile.buffer<global, 16x64xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mc_no_barrier", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// multicast_mask is a non-zero 16-bit mask
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op multicast: multicast_mask must be a non-zero 16-bit mask of CTA ranks (PTX ctaMask), got 0}}
  "tile.copy_async"(%s, %A, %b) {multicast_mask = 0} : (!tile.buffer<shared, 16x64xui8>, !tile.buffer<global, 16x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mc_zero", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// multicast_mask names CTAs of the cluster only
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op multicast: multicast_mask 0x5 names CTA ranks beyond the cluster of 2}}
  "tile.copy_async"(%s, %A, %b) {multicast_mask = 5} : (!tile.buffer<shared, 16x64xui8>, !tile.buffer<global, 16x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mc_beyond", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// four operands are too many
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.copy_async' op operands: expects 2 to 3 operand(s) (dst, src, barrier), got 4}}
  "tile.copy_async"(%s, %A, %b, %b) : (!tile.buffer<shared, 16x64xui8>, !tile.buffer<global, 16x64xui8>, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "four_operands", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// expect_tx counts within the tx-count range
"tile.kernel"() ({
^bb0():
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.mbarrier.arrive_expect_tx' op mbarrier: bytes must be in [0, 2^20 - 1] (the mbarrier tx-count range), got 1048576}}
  "tile.mbarrier.arrive_expect_tx"(%b) {bytes = 1048576} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tx_range", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// expect_tx needs a non-negative count
"tile.kernel"() ({
^bb0():
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  // expected-error@+1 {{'tile.mbarrier.expect_tx' op mbarrier: bytes must be in [0, 2^20 - 1] (the mbarrier tx-count range), got -1}}
  "tile.mbarrier.expect_tx"(%b) {bytes = -1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tx_negative", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// expect_tx names a barrier
"tile.kernel"() ({
^bb0():
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 2xi64>
  // expected-error@+1 {{'tile.mbarrier.expect_tx' op operand-type: operand #0 (barrier) must be a shared 1xi64 buffer, got !tile.buffer<shared, 2xi64>}}
  "tile.mbarrier.expect_tx"(%b) {bytes = 16} : (!tile.buffer<shared, 2xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tx_slot", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// bulk_wait's pending count
"tile.kernel"() ({
^bb0():
  // expected-error@+1 {{'tile.bulk_wait' op bulk-wait: pending must be in [0, 63], got 64}}
  "tile.bulk_wait"() {pending = 64} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bulk_pending", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// bulk_wait's kind
"tile.kernel"() ({
^bb0():
  // expected-error@+1 {{'tile.bulk_wait' op attributes: attribute 'kind' must be one of all, read, got 'write'}}
  "tile.bulk_wait"() {kind = "write"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bulk_kind", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// tensor_map.prefetch takes a tensor map (a tile.tensor_map's result), not the buffer
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  // expected-error@+1 {{'tile.tensor_map.prefetch' op operand-type: operand #0 (map) must be !tile.tensormap, got !tile.buffer<global, 16x64xui8>}}
  "tile.tensor_map.prefetch"(%A) : (!tile.buffer<global, 16x64xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "prefetch_buffer", block = array<i32: 128, 1, 1>} : () -> ()
