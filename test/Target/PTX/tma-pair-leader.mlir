// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_100a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// A cta_group 2 TMA load completing on the pair leader's mbarrier (barrier_cta = "pair_leader", docs/tma.md
// §8): mapa.shared::cluster of the barrier to the even rank of the pair (LLVM knows the rank is below the
// cluster's 4, so rank & ~1 is rank & 2), as the load's mbar operand.

// CHECK: .target sm_100a
// CHECK-LABEL: .entry tma_pair_leader(
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// CHECK: and.b32 [[EVEN:%r[0-9]+]], [[RANK]], 2;
// (the mapped address travels as its 32 bits: NVPTX, whose shared pointers are 64-bit, masks it)
// CHECK: mapa.shared::cluster.{{u32|u64}} %r{{d?[0-9]+}}, %r{{d?[0-9]+}}, [[EVEN]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{d?[0-9]+}}];
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x64xf8E4M3FN>):
  %map = "tile.tensor_map"(%A) {box = array<i64: 128, 64>} : (!tile.buffer<global, 256x64xf8E4M3FN>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.copy_async"(%s, %A, %bar) {src_offsets = array<i64: 128, 0>, src_sizes = array<i64: 128, 64>, cta_group = 2, barrier_cta = "pair_leader"} : (!tile.buffer<shared, 128x64xf8E4M3FN, align 128>, !tile.buffer<global, 256x64xf8E4M3FN>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tma_pair_leader", block = array<i32: 32, 1, 1>, grid = array<i32: 4, 1, 1>, cluster = array<i32: 4, 1, 1>} : () -> ()
