"""st.async / red.async: CTA 1 stores and reduces into CTA 0's shared memory; the bytes complete on
CTA 0's mbarrier, whose waiter then reads them; an mbarrier outside the destination CTA is an
error (PTX ISA: it must be in the same CTA as the destination)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

PTX = """.version 8.8
.target sm_90a
.address_size 64
.shared .align 16 .b8 buf[16];
.shared .align 8 .b64 bar;
.visible .entry k(.param .u64 pout) .reqnctapercluster 2, 1, 1
{{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, buf;
	mov.u32 %r4, bar;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p2, %r2, 0;
	and.pred %p3, %p1, %p2;
	@%p1 st.shared.u32 [buf+8], 100;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	@%p3 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 12;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	mapa.shared::cluster.u32 %r5, %r3, 0;
	mapa.shared::cluster.u32 %r6, %r4, {mbar_rank};
	@!%p1 bra WAIT;
	@%p2 bra WAIT;
	mov.u32 %r7, 0x11223344;
	mov.u32 %r8, 0x55667788;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%r5], {{%r7, %r8}}, [%r6];
	red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r5+8], 23, [%r6];
WAIT:
	@!%p3 bra DONE;
LOOP:
	mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
	@!%p1 bra LOOP;
	ld.shared.v4.u32 {{%r9, %r10, %r11, %r12}}, [buf];
	st.global.v4.u32 [%rd1], {{%r9, %r10, %r11, %r12}};
DONE:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}}
"""


def test_peer_store_and_reduction_complete_on_the_destination_barrier(assemble):
    ptx = PTX.format(mbar_rank=0)
    assemble(ptx, "sm_90a")
    out = np.zeros(4, np.uint32)
    run_ptx(ptx, "k", [out], grid=(2, 1, 1), block=(32, 1, 1), strict=True)
    assert out.tolist() == [0x11223344, 0x55667788, 123, 0]


def test_barrier_outside_the_destination_cta_is_an_error():
    with pytest.raises(EmulationError, match="must be in the CTA of the destination"):
        run_ptx(PTX.format(mbar_rank=1), "k", [np.zeros(4, np.uint32)], grid=(2, 1, 1),
                block=(32, 1, 1))


@pytest.mark.parametrize("inst,why", [
    ("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b64 [%r5], {%rd1, %rd1, %rd1, %rd1}, [%r6]",
     "no form .v4.b64"),
    ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s64 [%r5], %rd1, [%r6]",
     "red.async takes"),
])
def test_forms_outside_the_isa_are_refused(inst, why):
    ptx = PTX.format(mbar_rank=0).replace(
        "\tred.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r5+8], 23, [%r6];",
        "\t" + inst + ";")
    with pytest.raises(EmulationError, match=why):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], grid=(2, 1, 1), block=(32, 1, 1))
