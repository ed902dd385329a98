// RUN: tile-opt %s --tile-to-nvvm="chip=sm_100a" | FileCheck %s
//
// copy_async's barrier_cta = "pair_leader" (docs/tma.md §8): the odd CTA's cta_group 2 TMA load completes
// on the even CTA's mbarrier at the same offset, mapa.shared::cluster to rank & ~1; the 32-bit mapped
// address is the instruction's mbar operand.

// CHECK-LABEL: llvm.func @tma_pair_leader(
// CHECK: %[[BAR:.+]] = llvm.mlir.addressof @tma_pair_leader_smem1 : !llvm.ptr<3>
// CHECK: %[[RANK:.+]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[M2:.+]] = llvm.mlir.constant(-2 : i32) : i32
// CHECK: %[[EVEN:.+]] = llvm.and %[[RANK]], %[[M2]] : i32
// CHECK: %[[REMOTE:.+]] = nvvm.mapa %[[BAR]], %[[EVEN]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[BITS:.+]] = llvm.ptrtoint %[[REMOTE]] : !llvm.ptr<7> to i32
// CHECK: %[[MBAR:.+]] = llvm.inttoptr %[[BITS]] : i32 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %{{.+}}, %[[MBAR]], box[%{{.+}}, %{{.+}}] {group = #nvvm.cta_group<cta_2>}
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x64xf8E4M3FN>):
  %map = "tile.tensor_map"(%A) {box = array<i64: 128, 64>} : (!tile.buffer<global, 256x64xf8E4M3FN>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 128, 0>, src_sizes = array<i64: 128, 64>, cta_group = 2, barrier_cta = "pair_leader"} : (!tile.buffer<shared, 128x64xf8E4M3FN, align 128>, !tile.buffer<global, 256x64xf8E4M3FN>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tma_pair_leader", block = array<i32: 32, 1, 1>, grid = array<i32: 4, 1, 1>, cluster = array<i32: 4, 1, 1>} : () -> ()
