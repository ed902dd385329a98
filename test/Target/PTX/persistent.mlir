// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// The persistent-kernel ops down to PTX: the grouped raster order (integer division, remainder, min), a ring
// stage of barriers picked by a run-time index (setp + selp over the stages' addresses), a wait on a run-time
// parity.

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
}
