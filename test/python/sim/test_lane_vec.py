"""Vector lane runs (sim/lane_vec.py): a straight-line stretch of every vectorised form (mov packing and
unpacking, add / sub / mul / fma.rn.f32 and .f32x2, mul.f32 and a fused mul.f32 + sub.f32, max / min / neg.f32,
ex2.approx.ftz.f32, cvt.rn.bf16x2 / f16x2.f32, a guarded instruction) over operands of every f32 class (zeros,
subnormals, infinities, NaNs, cancellations, results that overflow or fall below the normal range) gives the
same registers, steps, warnings and findings with vector stretches on and off; a guarded register value (a
tcgen05.ld destination read before its wait) makes the stretch run per lane, so the finding is counted as
before; the forms are the ones the softmax of examples/attention_sm100.py runs."""
from __future__ import annotations

import numpy as np
import pytest

from tile_mlir.sim import lane_vec, run_ptx

BODY = """
    mov.b64 %rd10, {%r1, %r2};
    mov.b64 %rd11, {%r3, %r4};
    mov.b64 %rd12, {%r2, %r2};
    fma.rn.f32x2 %rd13, %rd10, %rd11, %rd12;
    add.rn.f32x2 %rd14, %rd10, %rd11;
    mul.rn.f32x2 %rd15, %rd10, %rd11;
    sub.rn.f32x2 %rd16, %rd11, %rd10;
    mov.b64 {%r5, %r6}, %rd13;
    mov.b64 {%r7, %r8}, %rd14;
    mov.b64 {%r9, %r10}, %rd15;
    mov.b64 {%r11, %r12}, %rd16;
    add.rn.f32 %r13, %r1, %r2;
    sub.rn.f32 %r14, %r1, %r3;
    mul.rn.f32 %r15, %r2, %r3;
    fma.rn.f32 %r16, %r1, %r2, %r3;
    fma.rn.f32 %r17, %r1, 0f3E0293EE, %r4;
    max.f32 %r18, %r1, %r2;
    min.f32 %r19, %r3, %r4;
    neg.f32 %r20, %r1;
    ex2.approx.ftz.f32 %r21, %r1;
    ex2.approx.ftz.f32 %r22, %r17;
    cvt.rn.bf16x2.f32 %r23, %r1, %r2;
    cvt.rn.f16x2.f32 %r24, %r3, %r4;
    mul.f32 %r37, %r1, %r2;
    sub.f32 %r26, %r37, %r3;
    mul.f32 %r25, %r3, %r4;
    @%p1 add.rn.f32 %r27, %r3, %r4;
    max.f32 %r28, %r18, %r19;
    max.f32 %r29, %r28, %r5;
    mov.b32 %r30, 0f3F800000;
    add.rn.f32 %r31, %r29, %r30;
"""
OUTS = 27  # %r5 .. %r31


def kernel(body: str) -> str:
    stores = "".join(f"    st.global.b32 [%rd3+{4 * i}], %r{5 + i};\n" for i in range(OUTS))
    return (".version 8.8\n.target sm_100a\n.address_size 64\n"
            ".visible .entry k(.param .u64 inp, .param .u64 out)\n{\n"
            "    .reg .b32 %r<40>;\n    .reg .b64 %rd<20>;\n    .reg .pred %p<2>;\n"
            "    ld.param.u64 %rd1, [inp];\n    cvta.to.global.u64 %rd1, %rd1;\n"
            "    ld.param.u64 %rd2, [out];\n    cvta.to.global.u64 %rd2, %rd2;\n"
            "    mov.u32 %r32, %tid.x;\n    mov.u32 %r33, %ctaid.x;\n    mov.u32 %r34, %ntid.x;\n"
            "    mad.lo.u32 %r35, %r33, %r34, %r32;\n"
            "    mul.wide.u32 %rd4, %r35, 16;\n    add.s64 %rd4, %rd1, %rd4;\n"
            f"    mul.wide.u32 %rd3, %r35, {4 * OUTS};\n    add.s64 %rd3, %rd2, %rd3;\n"
            "    ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd4];\n"
            "    and.b32 %r36, %r32, 3;\n    setp.ne.u32 %p1, %r36, 0;\n    mov.b32 %r27, 7;\n"
            + body + stores + "    ret;\n}\n")


def codes(rng, n):
    """f32 codes of every class: uniform bits, one exponent band (cancellations), huge and tiny magnitudes
    (overflowing and subnormal results), literal edges."""
    with np.errstate(over="ignore"):
        wide = (rng.standard_normal(n) * 2.0 ** rng.integers(-140, 128, n)).astype(np.float32).view(np.uint32)
    parts = [rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32),
             (np.float32(1) + rng.standard_normal(n).astype(np.float32)).view(np.uint32), wide,
             np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x00800000, 0x807FFFFF,
                       0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x00000001, 0x477FF000, 0x477FEFFF,
                       0x33000000, 0x33000001, 0x387FC000], np.uint32)]
    c = np.concatenate(parts)
    return c[rng.permutation(len(c))]


def _run(monkeypatch, on: bool, inp, ptx, grid, block):
    monkeypatch.setattr(lane_vec, "ENABLED", on)
    out = np.zeros(grid * block * OUTS, np.uint32)
    res = run_ptx(ptx, "k", [inp, out], grid=(grid, 1, 1), block=(block, 1, 1), workers=1)
    return out, (res.steps, list(res.warnings), [repr(f) for f in res.findings])


def test_vector_stretch_same_as_per_lane(monkeypatch):
    rng = np.random.default_rng(7)
    grid, block = 32, 128
    inp = np.concatenate([codes(rng, 4000) for _ in range(4)])[:grid * block * 4].copy()
    assert len(inp) == grid * block * 4
    ptx = kernel(BODY)
    calls = []
    real = lane_vec.run
    monkeypatch.setattr(lane_vec, "run", lambda *a: calls.append(a[3]) or real(*a))
    fast, fast_summary = _run(monkeypatch, True, inp, ptx, grid, block)
    # (every instruction of BODY, and the mov before it, in one vector stretch)
    assert max(calls) == len(BODY.strip().splitlines()) + 1
    slow, slow_summary = _run(monkeypatch, False, inp, ptx, grid, block)
    assert fast.tolist() == slow.tolist()
    assert fast_summary == slow_summary


def test_unwaited_register_makes_the_stretch_run_per_lane(monkeypatch):
    """A stretch reading a tcgen05.ld destination before tcgen05.wait::ld: the vector stretch declines (the
    value is not a plain int), the per-lane path reports the read, as with vector stretches off."""
    ptx = (".version 8.8\n.target sm_100a\n.address_size 64\n"
           ".visible .entry k(.param .u64 out)\n{\n"
           "    .reg .b32 %r<40>;\n    .reg .b64 %rd<20>;\n    .reg .pred %p<2>;\n"
           "    .shared .b32 slot;\n"
           "    ld.param.u64 %rd2, [out];\n    cvta.to.global.u64 %rd2, %rd2;\n"
           "    mov.u32 %r32, %tid.x;\n    mul.wide.u32 %rd3, %r32, 4;\n    add.s64 %rd3, %rd2, %rd3;\n"
           "    mov.u32 %r33, slot;\n"
           "    setp.lt.u32 %p1, %r32, 32;\n"
           "    @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r33], 32;\n"
           "    bar.sync 0;\n    ld.shared.b32 %r34, [slot];\n"
           "    tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r34];\n"
           "    mov.b64 %rd10, {%r1, %r2};\n    add.rn.f32x2 %rd11, %rd10, %rd10;\n"
           "    mov.b64 {%r5, %r6}, %rd11;\n    max.f32 %r7, %r5, %r6;\n    neg.f32 %r8, %r7;\n"
           "    ex2.approx.ftz.f32 %r9, %r8;\n    add.rn.f32 %r10, %r9, %r9;\n"
           "    tcgen05.wait::ld.sync.aligned;\n"
           "    st.global.b32 [%rd3], %r10;\n"
           "    bar.sync 0;\n"
           "    @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
           "    @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r34, 32;\n"
           "    ret;\n}\n")
    out = {}
    for on in (True, False):
        monkeypatch.setattr(lane_vec, "ENABLED", on)
        o = np.zeros(128, np.uint32)
        res = run_ptx(ptx, "k", [o], block=(128, 1, 1), strict=False, workers=1)
        out[on] = (o.tolist(), res.steps, [repr(f) for f in res.findings])
    assert out[True] == out[False]
    assert any("tcgen05.wait::ld" in f for f in out[True][2])


def _long_stretch_kernel(wait: bool) -> str:
    """Warp 0 runs a 4 x BODY stretch (longer than a warp's slice: computed ahead). With ``wait`` its lanes
    0-15 first wait on mbarrier ``bar``, which warp 1 arrives on once lanes 16-31 have started the stretch
    (they arrive on ``bar2`` before it): lanes 0-15 reach the stretch while lanes 16-31 are inside it, execute
    it, and the others pass it. Warp 1 stores registers it never wrote (the same with vectors on and off)."""
    pre = ""
    if wait:
        pre = ("    mov.u32 %r38, bar;\n    mov.u32 %r39, bar2;\n"
               "    setp.eq.u32 %p1, %r35, 0;\n"
               "    @%p1 mbarrier.init.shared.b64 [%r38], 32;\n"
               "    @%p1 mbarrier.init.shared.b64 [%r39], 16;\n"
               "    bar.sync 0;\n"
               "    setp.lt.u32 %p1, %r35, 32;\n"
               "    @%p1 bra W0;\n"
               "W1:\n    mbarrier.try_wait.parity.shared.b64 %p1, [%r39], 0;\n    @!%p1 bra W1;\n"
               "    mbarrier.arrive.shared.b64 %rd19, [%r38];\n    bra.uni DONE;\n"
               "W0:\n    setp.ge.u32 %p1, %r35, 16;\n    @%p1 bra GO;\n"
               "WAIT:\n    mbarrier.try_wait.parity.shared.b64 %p1, [%r38], 0;\n    @!%p1 bra WAIT;\n"
               "GO:\n    mbarrier.arrive.shared.b64 %rd18, [%r39];\n")
    k = kernel(pre + "    and.b32 %r36, %r32, 3;\n    setp.ne.u32 %p1, %r36, 0;\n" + BODY * 4
               + ("DONE:\n" if wait else ""))
    shared = "    .shared .b64 bar;\n    .shared .b64 bar2;\n"
    return k.replace("    .reg .pred %p<2>;\n", "    .reg .pred %p<2>;\n" + shared)


@pytest.mark.parametrize("wait", [False, True], ids=["together", "half-late"])
def test_stretch_computed_ahead_same_as_per_lane(monkeypatch, wait):
    from tile_mlir.sim import lane_runs
    rng = np.random.default_rng(11)
    block = 64
    inp = codes(rng, 100)[:block * 4].copy()
    ptx = _long_stretch_kernel(wait)
    rest = []
    real = lane_runs._range
    monkeypatch.setattr(lane_runs, "_range", lambda M, lanes, j, end, span_end, w:
                        (w is None and rest.append(len(lanes))) or real(M, lanes, j, end, span_end, w))
    fast, fast_summary = _run(monkeypatch, True, inp, ptx, 1, block)
    slow, slow_summary = _run(monkeypatch, False, inp, ptx, 1, block)
    assert fast.tolist() == slow.tolist()
    assert fast_summary == slow_summary
    if wait:  # (lanes 0-15 executed what lanes 16-31 had computed ahead)
        assert 16 in rest
