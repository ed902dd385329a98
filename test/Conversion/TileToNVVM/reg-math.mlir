// RUN: tile-opt %s --split-input-file --tile-verify --convert-tile-to-nvvm | FileCheck %s --check-prefix=%if nvvm-f32-ops %{CHECK%} %else %{INTRIN%}
// RUN: tile-opt %s --split-input-file --tile-verify --convert-tile-to-nvvm=chip=sm_90a | FileCheck %s --check-prefix=%if nvvm-f32-ops %{SM90%} %else %{INTRIN%}
//
// The tile.reg ops (lowering/nvvm/regmath.py) on a 4-column tile of one row per thread: per slot of the
// slot map, loads of the allocas' words, one operation with its rounding written out, a store; on sm_100a
// two adjacent slots in one packed f32x2 operation, on sm_90a the scalar ones. Where the provider's NVVM
// ops do not translate (LLVM 22: no nvvm-f32-ops), the scalar intrinsics on either chip (INTRIN).

// CHECK-LABEL: llvm.func @math
// CHECK: nvvm.add.packed.f32x2 %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>} : vector<2xf32>
// CHECK: nvvm.add.packed.f32x2
// CHECK-NOT: nvvm.add.packed.f32x2
// CHECK: nvvm.subf
// CHECK-SAME: rnd = #nvvm.fp_rnd_mode<rn>
// CHECK: llvm.call_intrinsic "llvm.nvvm.mul.rn.f"
// CHECK: llvm.intr.maxnum
// CHECK: nvvm.fma.packed.f32x2
// CHECK: nvvm.ex2 %{{.*}} {ftz = true} : f32
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// SM90-LABEL: llvm.func @math
// SM90-NOT: packed
// SM90: nvvm.addf %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>} : f32
// SM90: nvvm.fma %{{.*}}, %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>} : f32
// INTRIN-LABEL: llvm.func @math
// INTRIN-NOT: packed
// INTRIN: llvm.call_intrinsic "llvm.nvvm.add.rn.f"
// INTRIN: llvm.fneg
// INTRIN-NEXT: llvm.call_intrinsic "llvm.nvvm.add.rn.f"
// INTRIN: llvm.call_intrinsic "llvm.nvvm.mul.rn.f"
// INTRIN: llvm.call_intrinsic "llvm.nvvm.fma.rn.f"
// INTRIN: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// INTRIN: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// INTRIN: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 128x4xf32>, %O: !tile.buffer<global, 128x4xf32>):
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">
  %o = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">
  %c = arith.constant 0.5 : f32
  "tile.copy"(%a, %A) {scope = "warpgroup"} : (!tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<global, 128x4xf32>) -> ()
  "tile.reg.add"(%o, %a, %a) : (!tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.reduce"(%r, %o) {kind = "max", axis = 1} : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.sub"(%r, %r, %r) : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.mul"(%r, %r, %r) : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.max"(%r, %r, %r) : (!tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.fma"(%o, %a, %r, %o) : (!tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.reg.exp2"(%o, %o, %c, %r) : (!tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">, f32, !tile.buffer<reg, 128x1xf32, "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.named_barrier.sync"() {id = 1, count = 128} : () -> ()
  "tile.named_barrier.arrive"() {id = 2, count = 128} : () -> ()
  "tile.copy"(%O, %o) {scope = "warpgroup"} : (!tile.buffer<global, 128x4xf32>, !tile.buffer<reg, 128x4xf32, "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "math", block = array<i32: 128, 1, 1>} : () -> ()
