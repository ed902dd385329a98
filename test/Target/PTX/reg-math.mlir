// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,%if nvvm-f32-ops %{SM100%} %else %{SM90%} < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t90.ptx
// RUN: FileCheck %s --check-prefix=NOPACK < %t90.ptx
// RUN: %ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
//
// The tile.reg ops in the two layouts attention uses: the wgmma m64n16 accumulator of warpgroup 0 (a row
// spread over 4 lanes: its row max and sum meet by shfl.sync.bfly 1 and 2, the row values replicated over
// those lanes), and a 128 x 32 tile whose column halves lie in warps w and w + 4 (their partial sums meet
// in shared memory between two bar.sync 1, 256). Every rounding operation carries .rn (ptxas contracts
// none of them); sm_100a pairs adjacent slots in the .f32x2 forms (where the provider has them: LLVM 22,
// without the nvvm-f32-ops feature, makes the scalar forms on sm_100a too).

// CHECK-LABEL: .entry reg_math(
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: lg2.approx.ftz.f32
// CHECK-DAG: rcp.approx.ftz.f32
// CHECK-DAG: rcp.rn.f32
// CHECK-DAG: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-DAG: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-DAG: max.f32
// CHECK-DAG: min.f32
// CHECK-DAG: neg.f32
// CHECK-DAG: selp.f32
// CHECK-DAG: setp.gt.f32
// CHECK-DAG: bar.sync {{.*}}1, 256;
// CHECK-DAG: bar.sync {{.*}}3, 128;
// CHECK-DAG: bar.arrive
// SM100-DAG: add.rn.f32x2
// SM100-DAG: sub.rn.f32x2
// SM100-DAG: mul.rn.f32x2
// SM100-DAG: fma.rn.f32x2
// NOPACK-LABEL: .entry reg_math(
// NOPACK-NOT: f32x2
// SM90-DAG: add.rn.f32
// SM90-DAG: sub.rn.f32
// SM90-DAG: mul.rn.f32
// SM90-DAG: fma.rn.f32

!w = !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
!wr = !tile.buffer<reg, 64x1xf32, "S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)] + R[4 : 1@laneid]">
!x = !tile.buffer<reg, 128x32xf32, "S[(4, 32, 2, 16) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]">
!xr = !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]">
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x16xf32>, %X: !tile.buffer<global, 128x32xf32>, %O: !tile.buffer<global, 64x16xf32>,
     %P: !tile.buffer<global, 128x32xf32>):
  %s = "tile.alloc_reg"() : () -> !w
  %t = "tile.alloc_reg"() : () -> !w
  %m = "tile.alloc_reg"() : () -> !wr
  %l = "tile.alloc_reg"() : () -> !wr
  %x = "tile.alloc_reg"() : () -> !x
  %xs = "tile.alloc_reg"() : () -> !xr
  %scratch = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256xf32>
  %scale = arith.constant 0.18033688 : f32
  %zero = arith.constant 0.0 : f32
  %w = "tile.warp_id"() : () -> i32
  %wi = arith.index_cast %w : i32 to index
  %c4 = arith.constant 4 : i32
  %wg0 = arith.cmpi ult, %w, %c4 : i32
  "tile.copy"(%x, %X) {scope = "cta"} : (!x, !tile.buffer<global, 128x32xf32>) -> ()
  "tile.reg.reduce"(%xs, %x, %scratch) {kind = "sum", axis = 1, barrier_id = 1} : (!xr, !x, !tile.buffer<shared, 256xf32>) -> ()
  "tile.reg.sub"(%x, %x, %xs) : (!x, !x, !xr) -> ()
  "tile.copy"(%P, %x) {scope = "cta"} : (!tile.buffer<global, 128x32xf32>, !x) -> ()
  scf.if %wg0 {
    "tile.copy"(%s, %A) {scope = "warpgroup"} : (!w, !tile.buffer<global, 64x16xf32>) -> ()
    "tile.reg.mask"(%s, %s, %wi) {kind = "causal"} : (!w, !w, index) -> ()
    "tile.reg.reduce"(%m, %s) {kind = "max", axis = 1} : (!wr, !w) -> ()
    "tile.reg.mul"(%m, %m, %m) : (!wr, !wr, !wr) -> ()
    "tile.reg.exp2"(%t, %s, %scale, %m) : (!w, !w, f32, !wr) -> ()
    "tile.reg.exp2"(%s, %s, %scale) : (!w, !w, f32) -> ()
    "tile.reg.reduce"(%l, %t) {kind = "sum", axis = 1} : (!wr, !w) -> ()
    "tile.reg.fill"(%m, %zero) : (!wr, f32) -> ()
    "tile.reg.select"(%t, %t, %s, %l, %t) {predicate = "gt"} : (!w, !w, !w, !wr, !w) -> ()
    "tile.reg.add"(%t, %t, %s) : (!w, !w, !w) -> ()
    "tile.reg.sub"(%t, %t, %s) : (!w, !w, !w) -> ()
    "tile.reg.mul"(%t, %t, %s) : (!w, !w, !w) -> ()
    "tile.reg.fma"(%t, %t, %s, %t) : (!w, !w, !w, !w) -> ()
    "tile.reg.max"(%t, %t, %l) : (!w, !w, !wr) -> ()
    "tile.reg.min"(%t, %t, %m) : (!w, !w, !wr) -> ()
    "tile.reg.neg"(%t, %t) : (!w, !w) -> ()
    "tile.reg.rcp"(%l, %l) {mode = "rn"} : (!wr, !wr) -> ()
    "tile.reg.rcp"(%m, %l) {mode = "approx"} : (!wr, !wr) -> ()
    "tile.reg.lg2"(%m, %m) : (!wr, !wr) -> ()
    "tile.reg.mul"(%t, %t, %m) : (!w, !w, !wr) -> ()
    "tile.copy"(%O, %t) {scope = "warpgroup"} : (!tile.buffer<global, 64x16xf32>, !w) -> ()
    "tile.named_barrier.arrive"() {id = 3, count = 128} : () -> ()
  } else {
    "tile.named_barrier.sync"(%c4) {id = -1, count = 128} : (i32) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "reg_math", block = array<i32: 256, 1, 1>} : () -> ()
