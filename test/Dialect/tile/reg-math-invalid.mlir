// RUN: tile-opt %s --split-input-file --verify-diagnostics
//
// The checks of the tile.reg ops (dialect/ops/regmath.py, dialect/regtile.py, dialect/reduce_plan.py) and the
// named barriers (dialect/ops/sync.py), one case each, and the replicated register tiles that only they take.

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %h = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xbf16, "S[(32, 8) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{element-type: operand #1 (lhs) holds bf16: tile.reg ops compute on f32 tiles}}
  "tile.reg.add"(%a, %h, %b) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xbf16, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bf16", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x2xf32, "S[(32, 2) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{shape: operand #2 (rhs) has shape [32, 2]: an operand has the dst's shape [32, 8], or that shape with some dimensions 1}}
  "tile.reg.mul"(%a, %b, %r) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x2xf32, "S[(32, 2) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "broadcast_shape", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %c = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@reg, 1@laneid)]">
  // expected-error@+1 {{layout: operand #2 (rhs): its element (0, 1) is not held by warp 0 lane 0, which computes dst element (0, 1)}}
  "tile.reg.sub"(%a, %b, %c) : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@reg, 1@laneid)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "other_thread", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %m = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x1xf32, "S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)]">
  // expected-error@+1 {{layout: operand #2 (rhs): its element (0, 0) is not held by warp 0 lane 1, which computes dst element (0, 2)}}
  "tile.reg.max"(%s, %s, %m) : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<reg, 64x1xf32, "S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "row_not_replicated", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 4x8x8xf32, "S[(4, 8, 8) : (8@laneid, 1@laneid, 1@reg)]">
  %i = arith.constant 0 : index
  // expected-error@+1 {{shape: tile.reg.mask masks a 2-d (row, col) tile, got shape [4, 8, 8]}}
  "tile.reg.mask"(%a, %a, %i) {kind = "causal"} : (!tile.buffer<reg, 4x8x8xf32, "S[(4, 8, 8) : (8@laneid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 4x8x8xf32, "S[(4, 8, 8) : (8@laneid, 1@laneid, 1@reg)]">, index) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mask_3d", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 8x8xf32, "S[(8, 8) : (3@laneid, 1@reg)]">
  %i = arith.constant 0 : index
  // expected-error@+1 {{layout: operand #0 (dst), dimension 0: a thread's part is not linear in the bits of its index}}
  "tile.reg.mask"(%a, %a, %i) {kind = "residual"} : (!tile.buffer<reg, 8x8xf32, "S[(8, 8) : (3@laneid, 1@reg)]">, !tile.buffer<reg, 8x8xf32, "S[(8, 8) : (3@laneid, 1@reg)]">, index) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mask_not_linear", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{axis: axis 2 is not a dimension of the 2-d src}}
  "tile.reg.reduce"(%r, %a) {kind = "max", axis = 2} : (!tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_axis", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{shape: dst has shape [32, 1]: reducing src [32, 8] along axis 0 gives [1, 8]}}
  "tile.reg.reduce"(%r, %a) {kind = "sum", axis = 0} : (!tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_shape", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{in-place: dst and src are one tile}}
  "tile.reg.reduce"(%a, %a) {kind = "sum", axis = 1} : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_in_place", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 8x24xf32, "S[(8, 3, 8) : (3@laneid, 1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 8x1xf32, "S[(8, 1) : (3@laneid, 1@reg)]">
  // expected-error@+1 {{lanes: output element 0 is held by 3 (lane, partial) pairs of warp 0, not the 1 lanes of a butterfly}}
  "tile.reg.reduce"(%r, %a) {kind = "max", axis = 1} : (!tile.buffer<reg, 8x1xf32, "S[(8, 1) : (3@laneid, 1@reg)]">, !tile.buffer<reg, 8x24xf32, "S[(8, 3, 8) : (3@laneid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_lanes", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)] + O[1@warpid]">
  // expected-error@+1 {{layout: operand #0 (dst): warp 1 lane 0 holds output element 0, which it does not reduce}}
  "tile.reg.reduce"(%r, %a) {kind = "max", axis = 1} : (!tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)] + O[1@warpid]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_dst_elsewhere", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %x = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x32xf32, "S[(4, 32, 2, 16) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">
  // expected-error@+1 {{scratch: the layout spreads the axis over 2 warps: give a shared f32 scratch operand and a barrier_id}}
  "tile.reg.reduce"(%r, %x) {kind = "sum", axis = 1} : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">, !tile.buffer<reg, 128x32xf32, "S[(4, 32, 2, 16) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_no_scratch", block = array<i32: 256, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %x = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x32xf32, "S[(4, 32, 2, 16) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128xf32>
  // expected-error@+1 {{scratch: operand #2 (scratch) must hold at least 256 f32 (one per output element and warp), got 128 f32}}
  "tile.reg.reduce"(%r, %x, %s) {kind = "sum", axis = 1, barrier_id = 2} : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">, !tile.buffer<reg, 128x32xf32, "S[(4, 32, 2, 16) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]">, !tile.buffer<shared, 128xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_small_scratch", block = array<i32: 256, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %x = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x32xf32, "S[(4, 32, 2, 16) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256xf32>
  // expected-error@+1 {{barrier-id: barrier id 16 is not in [0, 16)}}
  "tile.reg.reduce"(%r, %x, %s) {kind = "sum", axis = 1, barrier_id = 16} : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">, !tile.buffer<reg, 128x32xf32, "S[(4, 32, 2, 16) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]">, !tile.buffer<shared, 256xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_barrier_id", block = array<i32: 256, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256xf32>
  // expected-error@+1 {{scratch: the layout keeps each output element inside one warp: the reduction needs no scratch or barrier_id}}
  "tile.reg.reduce"(%r, %a, %s) {kind = "sum", axis = 1, barrier_id = 1} : (!tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">, !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<shared, 256xf32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reduce_needless_scratch", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %c = arith.constant 10 : i32
  // expected-error@+1 {{barrier-id: barrier id 17 is not in [0, 16): a CTA has 16 named barriers}}
  "tile.named_barrier.sync"(%c) {id = 7, count = 128} : (i32) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "named_barrier_id", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{barrier-count: thread count 100 is not a positive multiple of 32 (whole warps)}}
  "tile.named_barrier.arrive"() {id = 1, count = 100} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "named_barrier_count", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  // expected-error@+1 {{barrier-count: thread count 256 is more than the CTA's 128 threads: the barrier would never complete}}
  "tile.named_barrier.sync"() {id = 1, count = 256} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "named_barrier_threads", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 8x1xf32>):
  %m = "tile.alloc_reg"() : () -> !tile.buffer<reg, 8x1xf32, "S[(8, 1) : (3@laneid, 1@reg)] + R[3 : 1@laneid]">
  "tile.copy"(%m, %g) {scope = "warp"} : (!tile.buffer<reg, 8x1xf32, "S[(8, 1) : (3@laneid, 1@reg)] + R[3 : 1@laneid]">, !tile.buffer<global, 8x1xf32>) -> ()
  // expected-error@+1 {{layout: operand #1 (src): replica R[3 : 1@laneid]: a store picks replica 0 by thread bits, so each replica needs a power-of-two extent and stride}}
  "tile.copy"(%g, %m) {scope = "warp"} : (!tile.buffer<global, 8x1xf32>, !tile.buffer<reg, 8x1xf32, "S[(8, 1) : (3@laneid, 1@reg)] + R[3 : 1@laneid]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "store_replicated", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%s) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%s) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x1xf32, "S[(128, 1) : (1@TLane, 1@TCol)]">
  %m = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">
  // expected-error@+1 {{layout: operand #1 (src): a register layout has one holder per element here: no replica (R[2 : 4@warpid]; replicated tiles are for the tile.reg ops and tile.copy)}}
  "tile.copy_async"(%t, %m) {scope = "warpgroup"} : (!tile.buffer<tmem, 128x1xf32, "S[(128, 1) : (1@TLane, 1@TCol)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tcgen05_st_replicated", block = array<i32: 256, 1, 1>} : () -> ()
// -----

"tile.kernel"() ({
  // expected-error@+1 {{layout: result #0: a replica of a register layout spreads copies over threads with a positive stride on warpid or laneid, got R[2 : 1@reg]}}
  %m = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)] + R[2 : 1@reg]">
  "tile.return"() : () -> ()
}) {sym_name = "replica_on_reg", block = array<i32: 128, 1, 1>} : () -> ()
