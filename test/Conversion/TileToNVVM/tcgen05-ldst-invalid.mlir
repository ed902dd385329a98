// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-lower-copy-async

// copy_async between tensor memory and registers that no tcgen05.ld/st can do: one case per check of
// the planner (tcgen05_ldst_plan.py steps A-F) and the issue-scope predicate. The dispatch reports one
// error per op listing every variant; these match the tmem<->reg variant's row.

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)] + O[32@TLane]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{tmem->reg: declined: lane-quarter - warp 0 holds an element of tmem lane 32, but a warp reaches only the lanes of its quarter, 0..31 (warp % 4)}}
  "tile.copy_async"(%r, %t) {scope = "warp"} : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)] + O[32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "lane_quarter", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x32xf32, "S[(128, 32) : (1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x32xf32, "S[(4, 32, 32) : (1@warpid, 1@reg, 1@laneid)]">
  // expected-error@+1 {{tmem->reg: declined: shape - no tcgen05.ld/st shape covers the copy; 32x32b: register word 0 is in no whole 32x32b atom at lane offset 0 of the quarter}}
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 128x32xf32, "S[(4, 32, 32) : (1@warpid, 1@reg, 1@laneid)]">, !tile.buffer<tmem, 128x32xf32, "S[(128, 32) : (1@TLane, 1@TCol)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "no_shape_transpose", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x8xf32, "S[(128, 8) : (1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (2@warpid, 1@laneid, 1@reg)]">
  // expected-error@+1 {{reg->tmem: declined: scope - scope "warpgroup" issues from 4 consecutive warp(s), but the register layout puts elements in warps [0, 2, 4, 6]}}
  "tile.copy_async"(%t, %r) {scope = "warpgroup"} : (!tile.buffer<tmem, 128x8xf32, "S[(128, 8) : (1@TLane, 1@TCol)]">, !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (2@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "scope_warps", block = array<i32: 256, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x8xf32, "S[(4, 16, 8) : (32@TLane, 1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x8xf32, "S[(4, 16, 8) : (1@warpid, 1@laneid, 1@reg)]">
  // expected-error@+1 {{tmem->reg: declined: threads - every thread of warps [0, 1, 2, 3] must hold the same register words}}
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 64x8xf32, "S[(4, 16, 8) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 64x8xf32, "S[(4, 16, 8) : (32@TLane, 1@TLane, 1@TCol)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "threads_16_lanes", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x8xbf16, "S[(128, 8) : (1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xbf16, "S[(4, 32, 8) : (1@warpid, 1@laneid, 2@reg)]">
  // expected-error@+1 {{tmem->reg: declined: words - element 1 is at position 0 of its register but 1 of its tmem column}}
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 128x8xbf16, "S[(4, 32, 8) : (1@warpid, 1@laneid, 2@reg)]">, !tile.buffer<tmem, 128x8xbf16, "S[(128, 8) : (1@TLane, 1@TCol)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "words_positions", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">
  // expected-error@+1 {{tmem->reg: declined: replica - the tmem layout has a replica (R[4 : 32@TLane])}}
  "tile.copy_async"(%r, %t) {scope = "warp"} : (!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">, !tile.buffer<tmem, 32x8xf32, "S[(32, 8) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "replica", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x16xf32, "S[(2, 2, 16, 2, 8) : (64@TLane, 48@TLane, 1@TLane, 8@TCol, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(2, 2, 16, 2, 8) : (2@warpid, 1@warpid, 1@laneid, 16@laneid, 1@reg)]">
  // expected-error@+1 {{tmem->reg: declined: warps - the warps' elements differ beyond their lane quarters}}
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(2, 2, 16, 2, 8) : (2@warpid, 1@warpid, 1@laneid, 16@laneid, 1@reg)]">, !tile.buffer<tmem, 64x16xf32, "S[(2, 2, 16, 2, 8) : (64@TLane, 48@TLane, 1@TLane, 8@TCol, 1@TCol)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "warps_differ", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x8xf32, "S[(128, 8) : (1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">
  // expected-error@+1 {{tmem->reg: rejected: exec_scope - tcgen05.ld/st are issued by whole warps (scope = "warp" or "warpgroup"), got scope = "thread"}}
  "tile.copy_async"(%r, %t) {scope = "thread"} : (!tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 128x8xf32, "S[(128, 8) : (1@TLane, 1@TCol)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "issue_scope", block = array<i32: 128, 1, 1>} : () -> ()

// -----

"tile.kernel"() ({
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x8xf32, "S[(4, 16, 8) : (32@TLane, 1@TLane, 1@TCol)] + O[8@TLane]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x8xf32, "S[(4, 2, 8, 1, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  // expected-error@+1 {{16x256b: register word 0 is in no whole 16x256b atom at lane offset 0 or 16 of the quarter}}
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 64x8xf32, "S[(4, 2, 8, 1, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 64x8xf32, "S[(4, 16, 8) : (32@TLane, 1@TLane, 1@TCol)] + O[8@TLane]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "lane_offset_8", block = array<i32: 128, 1, 1>} : () -> ()

