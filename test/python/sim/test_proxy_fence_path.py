"""A generic-proxy store read by the async proxy needs a proxy fence on a causality path from the
store to the read (PTX ISA, memory consistency model: proxy-preserved base causality order): the
writer's fence after its store, or the issuing thread's fence after it synchronised with the
writer (Triton's sm_90a pattern: cp.async.wait_group, bar.sync, fence.proxy.async in every
thread, then the async read).  Clean and faulty variants of both, through a bulk store and wgmma."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

HEAD = ".version 8.4\n.target sm_90a\n.address_size 64\n"


def bulk_kernel(body):
    """Warp 0's lanes 0-3 write buf (4 bytes each); warp 1's lane 0 stores buf to out with a bulk
    copy (the async proxy).  ``body`` orders them."""
    return HEAD + """.visible .entry k(.param .u64 out, .param .u64 src)
.reqntid 64
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.shared .align 128 .b8 buf[16];
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd4, [src];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 4;
	setp.eq.u32 %p2, %r1, 32;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.u32 %r4, %r3, %r2;
	add.u32 %r5, %r1, 7;
	cvt.u64.u32 %rd5, %r2;
	add.u64 %rd6, %rd4, %rd5;
""" + body + """	@!%p2 bra DONE;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 16;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
DONE:
	ret;
}
"""


ST = "\t@%p1 st.shared.u32 [%r4], %r5;\n"
CP = ("\t@%p1 cp.async.ca.shared.global [%r4], [%rd6], 4;\n\tcp.async.wait_all;\n")
FENCE = "\tfence.proxy.async.shared::cta;\n"
BAR = "\tbar.sync 0;\n"
CLEAN = {
    "writer fences, then the barrier": ST + FENCE + BAR,
    "barrier, then every thread fences": ST + BAR + FENCE,
    "cp.async, wait, barrier, every thread fences (Triton)": CP + BAR + FENCE,
    "barrier, then the issuer alone fences": ST + BAR + "\t@%p2 fence.proxy.async.shared::cta;\n",
}
FAULTY = {
    "no fence": ST + BAR,
    "the issuer fences before the barrier": ST + "\t@%p2 fence.proxy.async.shared::cta;\n" + BAR,
    "cp.async, wait, barrier, no fence": CP + BAR,
    "a store after the fences, then a barrier": ST + BAR + FENCE +
    "\t@%p1 st.shared.u32 [%r4], %r1;\n" + BAR,
}


def run(ptx, strict=True):
    out = np.zeros(16, np.uint8)
    src = np.arange(16, dtype=np.uint8)
    return out, run_ptx(ptx, "k", [out, src], grid=(1, 1, 1), block=(64, 1, 1), strict=strict)


@pytest.mark.parametrize("body", list(CLEAN.values()), ids=list(CLEAN))
def test_a_fence_on_the_path_is_clean(body, assemble):
    ptx = bulk_kernel(body)
    assemble(ptx, "sm_90a")
    out, res = run(ptx)
    want = np.arange(16, dtype=np.uint8) if "cp.async" in body else \
        np.arange(7, 11, dtype=np.uint32).view(np.uint8)
    assert (out == want).all() and res.findings == []


@pytest.mark.parametrize("body", list(FAULTY.values()), ids=list(FAULTY))
def test_no_fence_on_the_path_is_the_finding(body, assemble):
    ptx = bulk_kernel(body)
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"cp.async.bulk .*\(async proxy\) reads shared byte "
                       r"0x0 .* with no fence.proxy.async between them"):
        run(ptx)
    _, res = run(ptx, strict=False)
    assert [f.rule for f in res.findings] == ["ordering"]


def test_triton_sm90_matmul_with_and_without_its_fence():
    """Triton's sm_90a matmul (the corpus's, as shipped) is clean; without its
    fence.proxy.async, its wgmma reads cp.async-written operands with no fence on the path."""
    import os
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    sys.path.insert(0, os.path.join(root, "bench", "foreign"))
    import corpus
    fix = os.path.join(root, "test", "fixtures", "foreign")
    outs, refs, res = corpus.run(fix, "triton_matmul_90", strict=True)
    assert all(np.array_equal(outs[n], r) for n, r in refs.items()) and res.findings == []
    man, ptx, data = corpus.load(fix, "triton_matmul_90")
    assert ptx.count("fence.proxy.async.shared::cta;") == 1
    real = corpus.load
    corpus.load = lambda *a: (man, ptx.replace("fence.proxy.async.shared::cta;", ""), data)
    try:
        with pytest.raises(EmulationError, match=r"wgmma [AB] at line \d+ \(async proxy\) reads "
                           r"shared byte .* with no fence.proxy.async between them"):
            corpus.run(fix, "triton_matmul_90", strict=True)
    finally:
        corpus.load = real
