// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
//
// tile.reg.rcp and tile.reg.lg2 (dialect/ops/reg_unary.py) on the row values of a wgmma accumulator, as the
// attention epilogue uses them (examples/attention_sm90.py): O * rcp.rn(l), lse = (m + lg2(l)) ln 2; one
// instruction per slot of the replicated [64, 1] tile (two slots a thread), loaded and stored as [64, 4]
// (each lane of a row its copy).

// CHECK-LABEL: .entry rcp_lg2(
// CHECK-COUNT-2: rcp.rn.f32
// CHECK-COUNT-2: lg2.approx.ftz.f32

!wr = !tile.buffer<reg, 64x1xf32, "S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)] + R[4 : 1@laneid]">
!w1 = !tile.buffer<reg, 64x4xf32, "S[(4, 2, 8, 4) : (1@warpid, 1@reg, 4@laneid, 1@laneid)]">
!g = !tile.buffer<global, 64x4xf32>
"tile.kernel"() ({
^bb0(%in: !g, %out: !g, %out2: !g):
  %l = "tile.alloc_reg"() : () -> !wr
  %r = "tile.alloc_reg"() : () -> !wr
  %o = "tile.alloc_reg"() : () -> !w1
  "tile.copy"(%o, %in) {scope = "warpgroup"} : (!w1, !g) -> ()
  "tile.reg.reduce"(%l, %o) {kind = "max", axis = 1} : (!wr, !w1) -> ()
  "tile.reg.rcp"(%r, %l) : (!wr, !wr) -> ()
  "tile.reg.max"(%o, %r, %r) : (!w1, !wr, !wr) -> ()
  "tile.copy"(%out, %o) {scope = "warpgroup"} : (!g, !w1) -> ()
  "tile.reg.lg2"(%r, %l) : (!wr, !wr) -> ()
  "tile.reg.max"(%o, %r, %r) : (!w1, !wr, !wr) -> ()
  "tile.copy"(%out2, %o) {scope = "warpgroup"} : (!g, !w1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "rcp_lg2", block = array<i32: 128, 1, 1>} : () -> ()
