"""clusterlaunchcontrol: a CLC tile scheduler (each CTA takes its own tile, then asks to cancel
a cluster not yet launched and takes the cancelled cluster's tile) covers every tile exactly once;
the response lands in shared memory with 16 bytes of complete_tx on the mbarrier (multicast to the
cluster's CTAs); the ISA's undefined uses are findings (a use of an undefined ctaid, not its read)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

HEAD = ".version 8.8\n.target sm_100a\n.address_size 64\n"


def kernel(multicast=False, cluster=1, misuse=""):
    mc = ".multicast::cluster::all" if multicast else ""
    issuer = "%p4" if multicast else "%p1"  # multicast: rank 0's thread 0 asks for the cluster
    return HEAD + f"""
.shared .align 16 .b8 resp[16];
.shared .align 8 .b64 bar;
.visible .entry k(.param .u64 pout, .param .u64 pwho) .reqnctapercluster {cluster}, 1, 1
{{
	.reg .pred %p<6>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
	.reg .b128 %q<2>;
	ld.param.u64 %rd1, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [pwho];
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r11, %cluster_ctarank;
	mov.u32 %r10, 0;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p5, %r11, 0;
	and.pred %p4, %p1, %p5;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	barrier.cluster.arrive;
	barrier.cluster.wait;
LOOP:
	mad.lo.u32 %r4, %r2, 32, %r1;
	mul.wide.u32 %rd3, %r4, 4;
	add.u64 %rd4, %rd1, %rd3;
	mad.lo.u32 %r5, %r2, 10, 1;
	ld.global.u32 %r6, [%rd4];
	add.u32 %r5, %r5, %r6;
	st.global.u32 [%rd4], %r5;
	mul.wide.u32 %rd5, %r2, 4;
	add.u64 %rd6, %rd2, %rd5;
	@%p1 st.global.u32 [%rd6], %r3;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;
	@{issuer} clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes{mc}.b128 [resp], [bar];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], %r10;
	@!%p2 bra WAIT;
	xor.b32 %r10, %r10, 1;
	ld.shared.b128 %q1, [resp];
	clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;
	barrier.cluster.arrive;
	barrier.cluster.wait;
{misuse}	@!%p3 bra DONE;
	clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r2, %q1;
	add.u32 %r2, %r2, %r11;
	bra LOOP;
DONE:
	ret;
}}
"""


@pytest.mark.parametrize("grid", [1, 5, 8])
def test_clc_scheduler_covers_every_tile_once(grid, assemble):
    ptx = kernel()
    assemble(ptx)
    out, who = np.zeros((grid, 32), np.uint32), np.full(grid, 99, np.uint32)
    res = run_ptx(ptx, "k", [out, who], grid=(grid, 1, 1), block=(32, 1, 1), strict=True)
    assert (out == (10 * np.arange(grid) + 1)[:, None]).all()  # each tile once (adds: twice = 2x)
    assert (who == 0).all()  # tile-sim's schedule: CTA 0 cancels and takes every other one
    assert res.findings == []


def test_multicast_response_reaches_the_cluster(assemble):
    ptx = kernel(multicast=True, cluster=2)
    assemble(ptx)
    grid = 6
    out, who = np.zeros((grid, 32), np.uint32), np.full(grid, 99, np.uint32)
    run_ptx(ptx, "k", [out, who], grid=(grid, 1, 1), block=(32, 1, 1), strict=True)
    assert (out == (10 * np.arange(grid) + 1)[:, None]).all()
    assert who.tolist() == [0, 1] * 3  # cluster 0's CTAs take the cancelled clusters' tiles


def test_using_the_ctaid_of_a_failed_response_is_a_finding(assemble):
    """The read alone is no finding (test_undefined_values.py); its use is."""
    misuse = ("\tclusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r15, %r16, %r17, "
              "%r18}, %q1;\n\tsetp.eq.u32 %p0, %r15, 0;\n")
    ptx = kernel(misuse=misuse)
    assemble(ptx)
    lines = ptx.split("\n")
    out, who = np.zeros((2, 32), np.uint32), np.zeros(2, np.uint32)
    res = run_ptx(ptx, "k", [out, who], grid=(2, 1, 1), block=(32, 1, 1), strict=False)
    assert [(f.rule, "get_first_ctaid.v4" in lines[f.line - 1]) for f in res.findings] == \
        [("clusterlaunchcontrol", True)]
    with pytest.raises(EmulationError, match="clusterlaunchcontrol"):
        run_ptx(ptx, "k", [out, who], grid=(2, 1, 1), block=(32, 1, 1), strict=True)


def test_try_cancel_after_a_failure_is_a_finding():
    ptx = kernel().replace("\t@!%p3 bra DONE;\n", "\t@!%p3 bra AGAIN;\n").replace(
        "DONE:\n\tret;", "AGAIN:\n\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;\n"
        "\t@%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"
        " [resp], [bar];\nDONE:\n\tret;")
    res = run_ptx(ptx, "k", [np.zeros((1, 32), np.uint32), np.zeros(1, np.uint32)],
                  grid=(1, 1, 1), block=(32, 1, 1), strict=False)
    assert [f.rule for f in res.findings] == ["clusterlaunchcontrol"]
    assert "after a try_cancel of this CTA that cancelled nothing" in res.findings[0].message
