"""Values the PTX ISA leaves undefined (sim/undefined.py): mapa into a CTA rank outside the cluster
(CUTLASS's CLC scheduler maps in every lane, uses the lanes below the cluster size) and
query_cancel.get_first_ctaid of a response that cancelled nothing: the instruction runs, a use of
its result is the finding (an error in strict mode), a mov of it is no use."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

HEAD = ".version 8.6\n.target sm_100a\n.address_size 64\n"


def mapa_kernel(form="shared::cluster", use=""):
    """Every lane maps ``word`` into CTA ``laneid`` of a 2-CTA cluster (ranks 2..31 do not
    exist); lanes below 2 store their rank + 100 there, then each CTA reads what it received."""
    if form == "shared::cluster":
        setup = "\tmov.u32 %r3, word;\n\tmapa.shared::cluster.u32 %r4, %r3, %r1;\n"
        store = "\t@%p1 st.shared::cluster.u32 [%r5], %r6;\n"
    else:
        setup = ("\tmov.u64 %rd2, word;\n\tcvta.shared.u64 %rd2, %rd2;\n"
                 "\tmapa.u64 %rd3, %rd2, %r1;\n\tmov.b64 %rd4, %rd3;\n")
        store = "\t@%p1 st.u32 [%rd4+4], %r6;\n"
    return HEAD + f""".visible .entry k(.param .u64 out)
.reqntid 32
.reqnctapercluster 2, 1, 1
{{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.shared .align 8 .b32 word[2];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %laneid;
	mov.u32 %r2, %cluster_ctarank;
	setp.lt.u32 %p1, %r1, 2;
	st.shared.v2.u32 [word], {{%r2, %r2}};
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
{setup}	mov.b32 %r5, %r4;
	add.u32 %r6, %r2, 100;
{use}{store}	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ld.shared.v2.u32 {{%r7, %r8}}, [word];
	setp.ne.u32 %p2, %r1, 0;
	@%p2 bra DONE;
	mul.wide.u32 %rd5, %r2, 8;
	add.u64 %rd6, %rd1, %rd5;
	st.global.v2.u32 [%rd6], {{%r7, %r8}};
DONE:
	ret;
}}
"""


def run(ptx, strict):
    out = np.zeros((2, 2), np.uint32)
    res = run_ptx(ptx, "k", [out], grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1),
                  strict=strict)
    return out, res


@pytest.mark.parametrize("form", ["shared::cluster", "generic"])
def test_mapa_outside_the_cluster_unused_is_no_fault(form, assemble):
    ptx = mapa_kernel(form)
    if form == "generic":  # the generic form: no %r4/%r5 (the .u64 path stores through %rd4)
        ptx = ptx.replace("\tmov.b32 %r5, %r4;\n", "")
    assemble(ptx)
    out, res = run(ptx, strict=True)
    col = 0 if form == "shared::cluster" else 1
    # CTA c's word[col] holds 100 + the rank of the last of lanes 0 and 1 of each CTA that wrote
    # it: both CTAs' lane c write CTA c, so it is 100 + 0 or 100 + 1 (the schedule's order)
    assert set(out[:, col].tolist()) <= {100, 101} and res.findings == []
    assert out[:, 1 - col].tolist() == [0, 1]  # the other word is untouched


def test_mapa_outside_the_cluster_used_is_the_finding(assemble):
    use = "\tsetp.eq.u32 %p3, %r5, 0;\n"  # every lane compares its mapped address
    ptx = mapa_kernel(use=use)
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"mapa gives for a CTA rank outside the cluster "
                       r"\(line \d+\) is used at line \d+.*undefined-value"):
        run(ptx, strict=True)
    out, res = run(ptx, strict=False)  # lenient: reported once per mapa, counted per use
    lines = ptx.split("\n")
    assert [(f.rule, "mapa" in lines[f.line - 1]) for f in res.findings] == \
        [("undefined-value", True)]
    assert res.findings[0].count == 2 * 30  # ranks 2..31 of both CTAs
    assert "used at line" in res.findings[0].message


def test_a_store_through_an_address_outside_the_cluster_faults(assemble):
    ptx = mapa_kernel().replace("\t@%p1 st.shared::cluster", "\tst.shared::cluster")
    assemble(ptx)
    with pytest.raises(EmulationError):  # lenient: the finding, then the access faults
        run(ptx, strict=False)


CLC = HEAD.replace("8.6", "8.8") + """.shared .align 16 .b8 resp[16];
.shared .align 8 .b64 bar;
.visible .entry k(.param .u64 pout)
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	.reg .b128 %q<2>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	bar.sync 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;
	@%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra WAIT;
	ld.shared.b128 %q1, [resp];
	clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;
	clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r2, %r3, %r4, %r5}, %q1;
	mov.u32 %r6, 7;
	selp.b32 %r6, %r2, %r6, %p3;
{use}	@%p1 st.global.u32 [%rd1], %r6;
	ret;
}
"""


@pytest.mark.parametrize("grid, want", [(1, 7), (2, 1)])
def test_get_first_ctaid_read_always_used_when_cancelled(grid, want, assemble):
    """CUTLASS's pattern: the ctaid read unconditionally, selected only when is_canceled."""
    ptx = CLC.replace("{use}", "")
    assemble(ptx)
    out = np.zeros(grid, np.uint32)
    res = run_ptx(ptx, "k", [out], grid=(grid, 1, 1), block=(32, 1, 1), strict=True)
    assert out[0] == want and res.findings == []  # grid 2: CTA 0 cancels CTA 1 and gets its x


def test_get_first_ctaid_of_a_failed_response_used_is_the_finding(assemble):
    ptx = CLC.replace("{use}", "\tadd.u32 %r6, %r6, %r3;\n")  # stored by lane 0: a use
    assemble(ptx)
    out = np.zeros(1, np.uint32)
    with pytest.raises(EmulationError, match="clusterlaunchcontrol"):
        run_ptx(ptx, "k", [out], grid=(1, 1, 1), block=(32, 1, 1), strict=True)
    res = run_ptx(ptx, "k", [out], grid=(1, 1, 1), block=(32, 1, 1), strict=False)
    lines = ptx.split("\n")
    assert [(f.rule, "get_first_ctaid" in lines[f.line - 1], f.count) for f in res.findings] == \
        [("clusterlaunchcontrol", True, 1)]


def test_integer_arithmetic_propagates_and_a_comparison_uses(assemble):
    """As a sanitizer's shadow: arithmetic on the undefined ctaid is undefined in turn (NVIDIA's
    compiler adds the CTA offset before the branch on is_canceled); a comparison of it is a use."""
    arith = "\tadd.u32 %r7, %r3, 5;\n\tshl.b32 %r8, %r7, 2;\n\tmov.b32 %r9, %r8;\n"
    ptx = CLC.replace("{use}", arith)
    assemble(ptx)
    out = np.zeros(1, np.uint32)
    res = run_ptx(ptx, "k", [out], grid=(1, 1, 1), block=(32, 1, 1), strict=True)
    assert out[0] == 7 and res.findings == []
    ptx = CLC.replace("{use}", arith + "\tsetp.eq.u32 %p2, %r9, 0;\n")
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"get_first_ctaid .*is used at line \d+"):
        run_ptx(ptx, "k", [out], grid=(1, 1, 1), block=(32, 1, 1), strict=True)
