// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// The persistent-kernel ops down to PTX: the grouped raster order (integer division, remainder, min), a ring
// stage of barriers picked by a run-time index (setp + selp over the stages' addresses), a wait on a run-time
// parity; a ring of tensor-memory buffers (double-buffered accumulators: tile.tmem.buffer's col_offset added to
// the allocation's address, selp over the i32 addresses) read by tcgen05.ld.

// CHECK: .visible .entry persistent_ops(
// CHECK: div.u32
// CHECK: min.u32 {{.*}}, 8;
// CHECK: setp.eq.{{[bsu]}}{{16|32}} [[P1:%p[0-9]+]], [[IDX:%rs?[0-9]+]], 1;
// CHECK: mov.b{{32|64}} [[S0:%rd?[0-9]+]], persistent_ops_smem0;
// CHECK: mov.b{{32|64}} [[S1:%rd?[0-9]+]], persistent_ops_smem1;
// CHECK: selp.b{{32|64}} [[PICK:%rd?[0-9]+]], [[S1]], [[S0]], [[P1]];
// CHECK: setp.eq.{{[bsu]}}{{16|32}} [[P2:%p[0-9]+]], [[IDX]], 2;
// CHECK: mov.b{{32|64}} [[S2:%rd?[0-9]+]], persistent_ops_smem2;
// CHECK: selp.b{{32|64}} [[BAR:%rd?[0-9]+]], [[S2]], [[PICK]], [[P2]];
// CHECK: mbarrier.init.shared.b64 [[[BAR]]]
// CHECK: mbarrier.arrive.shared.b64 {{.*}}, [[[BAR]]];
// CHECK: and.b{{16|32}} {{.*}}, 1;
// CHECK: mbarrier.try_wait.parity.shared.b64 {{%p[0-9]+}}, [[[BAR]]], {{%r[0-9]+}};
// CHECK: .visible .entry tmem_ring(
// CHECK: ld.shared.b32 [[BASE:%r[0-9]+]], [tmem_ring_smem0];
// CHECK: add.s32 [[T1:%r[0-9]+]], [[BASE]], 64;
// CHECK: setp.eq.b32 [[P:%p[0-9]+]], {{%r[0-9]+}}, 1;
// CHECK: selp.b32 [[T:%r[0-9]+]], [[T1]], [[BASE]], [[P]];
// CHECK: add.s32 [[A:%r[0-9]+]], [[T]], {{%r[0-9]+}};
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32 {{{.*}}}, [[[A]]];
!acc = !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">
!regs = !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">
module {
  "tile.kernel"() ({
  ^bb0(%tiles_m: i32, %tiles_n: i32):
    %tid = "tile.thread_id"() : () -> i32
    %b0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
    %b1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
    %b2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
    %row, %col = "tile.raster.grouped"(%tid, %tiles_m, %tiles_n) {group_m = 8} : (i32, i32, i32) -> (i32, i32)
    %bar = "tile.ring.stage"(%col, %b0, %b1, %b2) : (i32, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>) -> !tile.buffer<shared, 1xi64>
    "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
    "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.mbarrier.wait_parity"(%bar, %row) : (!tile.buffer<shared, 1xi64>, i32) -> ()
    "tile.return"() : () -> ()
  }) {sym_name = "persistent_ops", block = array<i32: 128, 1, 1>} : () -> ()
  "tile.kernel"() ({
  ^bb0(%g: !tile.buffer<global, 128x64xf32>):
    %bid = "tile.block_id"() {dim = "x"} : () -> i32
    %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
    "tile.tmem.alloc"(%slot) {num_cols = 128} : (!tile.buffer<shared, 1xi32>) -> ()
    %t0 = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !acc
    %t1 = "tile.tmem.buffer"(%slot) {col_offset = 64} : (!tile.buffer<shared, 1xi32>) -> !acc
    %acc = "tile.ring.stage"(%bid, %t0, %t1) : (i32, !acc, !acc) -> !acc
    %r = "tile.alloc_reg"() : () -> !regs
    "tile.copy_async"(%r, %acc) {scope = "warpgroup"} : (!regs, !acc) -> ()
    "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 128x64xf32>, !regs) -> ()
    "tile.tmem.relinquish"() : () -> ()
    "tile.tmem.dealloc"(%slot) {num_cols = 128} : (!tile.buffer<shared, 1xi32>) -> ()
    "tile.return"() : () -> ()
  }) {sym_name = "tmem_ring", block = array<i32: 128, 1, 1>} : () -> ()
}
