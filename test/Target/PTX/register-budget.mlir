// Large CTAs get fewer registers per thread from ptxas (target.register_budget: 72 at 896 threads, 64 at
// 1024), so tcgen05.ld moves fewer per instruction there (tcgen05_ldst_plan.instruction_registers): an
// x128 load would need 146 and ptxas would refuse it (C7602 "Insufficient registers").
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// tile.tmem.load of 512 columns at 896 threads: x32 loads, not x128
// CHECK-LABEL: .entry tmem_load_896(
// CHECK-NOT: .x128
// CHECK-NOT: .x64
// CHECK-COUNT-16: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 128x2048xui8>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %warp = "tile.warp_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %w0 = arith.cmpi eq, %warp, %c0 : i32
  scf.if %w0 {
    "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  }
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.barrier"() : () -> ()
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  %tmem = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x2048xui8, "S[(32, 2048) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.tmem.load"(%out, %tmem) {num_cols = 512} : (!tile.buffer<global, 128x2048xui8>, !tile.buffer<tmem, 32x2048xui8, "S[(32, 2048) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">) -> ()
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.barrier"() : () -> ()
  scf.if %w0 {
    "tile.tmem.relinquish"() : () -> ()
    "tile.tmem.dealloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "tmem_load_896", block = array<i32: 128, 7, 1>} : () -> ()

// a 128-register tile at 512 threads (128 registers each): two x64 loads
// CHECK-LABEL: .entry ld_tile_512(
// CHECK-NOT: .x128
// CHECK-COUNT-2: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK-NOT: tcgen05.ld
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 128x128xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x128xf32, "S[(4, 32, 128) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 128x128xf32, "S[(4, 32, 128) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 128x128xf32>, !tile.buffer<reg, 128x128xf32, "S[(4, 32, 128) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ld_tile_512", block = array<i32: 512, 1, 1>} : () -> ()
