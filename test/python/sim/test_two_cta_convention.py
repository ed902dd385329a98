"""How a CTA names its pair leader's mbarrier in NVIDIA's 2-CTA kernels (docs/emulator.md, "The
2-CTA convention"): its own .shared::cta address of the barrier with bit 24 cleared (CUTLASS's
Sm100MmaPeerBitMask, 0xFEFFFFFF), used as a .shared::cluster address, names the barrier at the
same offset in the even CTA of its pair -- the address mapa gives for rank & ~1."""

import numpy as np

from tile_mlir.sim import run_ptx

PTX = """.version 8.8
.target sm_100a
.address_size 64
.shared .align 8 .b64 bar;
.visible .entry k(.param .u64 pout) .reqnctapercluster 4, 1, 1
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, bar;
	and.b32 %r4, %r3, -16777217;
	and.b32 %r5, %r2, -2;
	mapa.shared::cluster.u32 %r6, %r3, %r5;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 2;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	@%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];
	and.b32 %r7, %r2, 1;
	setp.eq.u32 %p2, %r7, 0;
	and.pred %p2, %p2, %p1;
	@!%p2 bra DONE;
WAIT:
	mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p3, [bar], 0;
	@!%p3 bra WAIT;
DONE:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	mov.u32 %r8, %ctaid.x;
	mul.wide.u32 %rd2, %r8, 16;
	add.u64 %rd2, %rd1, %rd2;
	@%p1 st.global.v4.u32 [%rd2], {%r3, %r4, %r6, %r2};
	ret;
}
"""


def test_peer_bit_mask_names_the_pair_leaders_barrier(assemble):
    assemble(PTX)
    out = np.zeros((8, 4), np.uint32)
    run_ptx(PTX, "k", [out], grid=(8, 1, 1), block=(32, 1, 1), strict=True)
    own, masked, mapped, rank = out[:, 0], out[:, 1], out[:, 2], out[:, 3]
    assert rank.tolist() == [0, 1, 2, 3] * 2
    assert ((own >> 24) == rank).all()  # a CTA's own address carries its rank in bits 24 up
    assert (masked == mapped).all()  # & 0xFEFFFFFF is mapa to the pair's even rank
    assert ((masked >> 24) == (rank & 0xFE)).all()
    # both CTAs of each pair arrived on the even CTA's barrier (count 2): its wait returned, so
    # the run completed (a barrier named wrongly deadlocks, as bw_dense_2cta did)
