// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// tile.mbarrier.arrive with a CTA rank: the peer's barrier at the same offset through mapa, and the
// .shared::cluster arrive, which returns no state (a sink); the local arrive beside it keeps its state.
// (LLVM 23 maps 32-bit shared addresses, LLVM 22, the upstream provider's, 64-bit generic ones.)

// CHECK: .visible .entry remote_arrive(
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// CHECK: xor.b32 [[PEER:%r[0-9]+]], [[RANK]], 1;
// CHECK: mbarrier.init.shared.b64 [remote_arrive_smem0]
// CHECK: barrier.cluster.arrive.aligned;
// CHECK: mapa.shared::cluster.{{u32|u64}} [[REMOTE:%rd?[0-9]+]], {{%rd?[0-9]+}}, [[PEER]];
// CHECK: mbarrier.arrive.shared::cluster.b64 _, [[[REMOTE]]]
// CHECK: mbarrier.arrive.shared.b64 {{%rd[0-9]+}}, [remote_arrive_smem0];
module {
  "tile.kernel"() ({
    %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
    %r = "tile.cta_rank"() : () -> i32
    %one = arith.constant 1 : i32
    %peer = arith.xori %r, %one : i32
    "tile.mbarrier.init"(%bar) <{count = 2 : i64}> : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.barrier"() <{scope = "cluster"}> : () -> ()
    "tile.mbarrier.arrive"(%bar, %peer) : (!tile.buffer<shared, 1xi64>, i32) -> ()
    "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.mbarrier.wait"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.barrier"() <{scope = "cluster"}> : () -> ()
    "tile.return"() : () -> ()
  }) {sym_name = "remote_arrive", block = array<i32: 32, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()
}
