// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
//
// Only the CTA whose linear index ctaid.x + nctaid.x * ctaid.y is 4 copies `in` to `out`.

// CHECK-LABEL: .entry grid_ids(
// CHECK-DAG: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// CHECK-DAG: mov.u32 %r{{[0-9]+}}, %ctaid.y;
// CHECK-DAG: mov.u32 %r{{[0-9]+}}, %nctaid.x;
// CHECK: mad.lo.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: setp.{{.*}}, 4;
// CHECK: st.global
"tile.kernel"() ({
^bb0(%in: !tile.buffer<global, 32xi32>, %out: !tile.buffer<global, 32xi32>):
  %x = "tile.block_id"() {dim = "x"} : () -> i32
  %y = "tile.block_id"() {dim = "y"} : () -> i32
  %nx = "tile.grid_dim"() {dim = "x"} : () -> i32
  %row = arith.muli %y, %nx : i32
  %i = arith.addi %row, %x : i32
  %c4 = arith.constant 4 : i32
  %mine = arith.cmpi eq, %i, %c4 : i32
  scf.if %mine {
    %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32xi32>
    "tile.copy"(%s, %in) : (!tile.buffer<shared, 32xi32>, !tile.buffer<global, 32xi32>) -> ()
    "tile.copy"(%out, %s) : (!tile.buffer<global, 32xi32>, !tile.buffer<shared, 32xi32>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "grid_ids", block = array<i32: 32, 1, 1>, grid = array<i32: 3, 2, 1>} : () -> ()
