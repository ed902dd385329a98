"""The coverage rows that had no test of their results: control flow, hints and cache policies,
dependent launches, setmaxnreg, cluster launch control, tensormap.replace with a state space,
tcgen05 fences and wait::st, wgmma's fence / commit / wait, div.full and mov.b128.  Each test
iterates the rows registered to it (sim/coverage/tests.py) and checks what the PTX ISA says the
form does, in a kernel assembled by ptxas: a branch skips exactly its target's predecessors, exit
and ret end only the threads that execute them, trap and brkpt stop the run at their line, a hint
changes no value, a wgmma read before its wait_group is refused, div.full is within the ISA's 2 ulp
and exact where the quotient is, and so on.  The negative halves (an instruction left out) show
that each check would fail on a wrong implementation."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import EmulationError, TensorMap, run_launches, run_ptx
from tile_mlir.sim.coverage import decode_check
from tile_mlir.sim.tensor_map_bytes import decode, encode

T = "test/python/sim/test_isa_rest_rows.py::"


def rows(name):
    return isa_rows(T + name)


def op_of(row):
    return row["text"].partition(" ")[0].rstrip(";")


def kernel(body, target="sm_90a", params=".param .u64 pout", pre="", directives=""):
    return (f".version 8.8\n.target {target}\n.address_size 64\n{pre}"
            f".visible .entry k({params}){directives}\n{{\n"
            "\t.reg .pred %p<8>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<16>;\n\t.reg .b128 %q<4>;\n"
            "\tld.param.u64 %rd1, [pout];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 5;\n"
            "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd2, %rd1, %rd2;\n" + body + "\tret;\n}\n")


# ------------------------------------------------------------------------------- control flow
@pytest.mark.parametrize("row", rows("test_control_rows"), ids=lambda r: r["form"])
def test_control_rows(row, assemble):
    """bra / bra.uni skip to their label; exit / ret / ret.uni end the threads that execute them
    (the others run on); trap / brkpt stop the run at their line naming the lane."""
    op = op_of(row)
    # lanes 0-4 (divergent) or warp 0 (uniform, as .uni requires) take the instruction
    cond = "setp.lt.u32 %p1, %r2, 1" if op.endswith(".uni") else "setp.lt.u32 %p1, %r1, 5"
    first = np.array([0 if (t < 32 if op.endswith(".uni") else t < 5) else 1 for t in range(64)])
    if op.startswith("bra"):
        body = f"\t{cond};\n\t@%p1 {op} L0;\n\tst.global.u32 [%rd2], 1;\nL0:\n" \
               "\tst.global.u32 [%rd2+256], 2;\n"
        ptx = kernel(body)
        assemble(ptx, "sm_90a")
        out = np.zeros(128, np.uint32)
        run_ptx(ptx, "k", [out], block=(64, 1, 1))
        assert (out[:64] == first).all() and (out[64:] == 2).all()
    elif op in ("exit", "ret", "ret.uni"):
        body = f"\t{cond};\n\t@%p1 {op};\n\tst.global.u32 [%rd2], 1;\n"
        ptx = kernel(body)
        assemble(ptx, "sm_90a")
        out = np.zeros(64, np.uint32)
        run_ptx(ptx, "k", [out], block=(64, 1, 1))
        assert (out == first).all()
    else:  # trap, brkpt
        ptx = kernel(f"\tsetp.eq.u32 %p1, %r1, 3;\n\t@%p1 {op};\n\tst.global.u32 [%rd2], 1;\n")
        assemble(ptx, "sm_90a")
        line = next(i for i, l in enumerate(ptx.split("\n"), 1) if f" {op};" in l)
        with pytest.raises(EmulationError, match=f"{op} executed") as e:
            run_ptx(ptx, "k", [np.zeros(64, np.uint32)], block=(64, 1, 1))
        assert e.value.line == line and "lane 3" in str(e.value)


# ------------------------------------------------------------------------------- hints, policies
def _hint(row):
    """The row's instruction with its operands: a global word, a local one, a policy."""
    form, op = row["form"], op_of(row)
    if form.startswith("createpolicy.cvt"):
        return f"\tmov.b64 %rd6, 0;\n\t{op} %rd5, %rd6;\n"
    if form.startswith("createpolicy.fractional"):
        return f"\t{op} %rd5, 0f3F000000;\n"  # fraction 0.5
    if form.startswith("createpolicy.range"):
        return f"\t{op} %rd5, [%rd2], 4, 256;\n"
    if form.startswith("nanosleep"):
        return f"\t{op} %r9;\n"
    if ".local" in form:
        return f"\tmov.u64 %rd7, loc;\n\t{op} [%rd7];\n"
    if form.startswith("prefetch.L") or form.startswith("prefetchu"):  # generic: either space
        return f"\t{op} [%rd2];\n\tcvta.local.u64 %rd7, loc;\n\t{op} [%rd7];\n"
    return f"\t{op} [%rd2];\n"


@pytest.mark.parametrize("row", rows("test_hint_rows"), ids=lambda r: r["form"])
def test_hint_rows(row, assemble):
    """prefetch / prefetchu / nanosleep are hints and createpolicy makes a cache policy (PTX ISA:
    "performance hints only"): between a store and a load of the same words (global and local)
    the values are unchanged, and a policy made here is accepted by the .L2::cache_hint load and
    store that use it."""
    policy = row["form"].startswith("createpolicy")
    use = ("\tld.global.L2::cache_hint.u32 %r6, [%rd2], %rd5;\n"
           "\tst.global.L2::cache_hint.u32 [%rd2+256], %r6, %rd5;\n" if policy else
           "\tld.global.u32 %r6, [%rd2];\n\tst.global.u32 [%rd2+256], %r6;\n")
    body = ("\tmad.lo.u32 %r9, %r1, 3, 11;\n\tst.global.u32 [%rd2], %r9;\n"
            "\tst.local.u32 [loc], %r9;\n" + _hint(row) + use +
            "\tld.local.u32 %r7, [loc];\n\tst.global.u32 [%rd2+512], %r7;\n")
    ptx = kernel(body).replace("\t.reg .b128 %q<4>;\n", "\t.reg .b128 %q<4>;\n"
                               "\t.local .align 8 .b32 loc;\n")
    assemble(ptx, "sm_90a")
    out = np.zeros(192, np.uint32)
    res = run_ptx(ptx, "k", [out], block=(64, 1, 1), strict=True)
    want = 3 * np.arange(64) + 11
    assert res.findings == [] and (out.reshape(3, 64) == want).all()


# ------------------------------------------------------------------------------- griddepcontrol
def test_griddepcontrol_rows(assemble):
    """A primary that triggers its dependents early (launch_dependents) and a dependent launched
    programmatically that waits (wait) before reading the primary's results: the dependent sees
    them all, in one launch and in a sequence (W6)."""
    assert {r["form"] for r in rows("test_griddepcontrol_rows")} == {
        "griddepcontrol.launch_dependents", "griddepcontrol.wait"}
    prim = kernel("\tmul.lo.u32 %r3, %r1, 5;\n\tst.global.u32 [%rd2], %r3;\n"
                  "\tgriddepcontrol.launch_dependents;\n\tst.global.u32 [%rd2+256], %r3;\n")
    dep = kernel("\tgriddepcontrol.wait;\n\tld.global.u32 %r3, [%rd2];\n"
                 "\tld.global.u32 %r4, [%rd2+256];\n\tadd.u32 %r3, %r3, %r4;\n"
                 "\tst.global.u32 [%rd2+512], %r3;\n")
    for p in (prim, dep):
        assemble(p, "sm_90a")
    buf = np.zeros(192, np.uint32)
    run_ptx(dep, "k", [buf], block=(64, 1, 1))  # alone: nothing to wait for
    assert (buf == 0).all()
    run_launches([{"ptx": prim, "kernel": "k", "args": [buf]},
                  {"ptx": dep, "kernel": "k", "args": [buf], "programmatic": True}],
                 block=(64, 1, 1))
    assert (buf[128:] == 10 * np.arange(64)).all()


# ------------------------------------------------------------------------------- setmaxnreg
def test_setmaxnreg_rows(assemble):
    """.dec returns registers to the CTA's pool, .inc takes them (blocking until the pool has
    them): with .maxnreg 168 and 384 threads, two warpgroups' .inc to 232 run only after the
    third's .dec to 40; without the .dec the .inc is a deadlock at its line."""
    assert {r["form"] for r in rows("test_setmaxnreg_rows")} == {
        "setmaxnreg.inc.sync.aligned.u32", "setmaxnreg.dec.sync.aligned.u32"}
    split = ("\tshr.u32 %r3, %r1, 7;\n\tsetp.eq.u32 %p1, %r3, 0;\n\t@%p1 bra PRODUCER;\n"
             "\tsetmaxnreg.inc.sync.aligned.u32 232;\n\tbra.uni DONE;\n"
             "PRODUCER:\n\tsetmaxnreg.dec.sync.aligned.u32 40;\nDONE:\n\tst.global.u32 [%rd2], %r1;\n")
    ptx = kernel(split, directives=" .maxnreg 168")
    assemble(ptx, "sm_90a")
    out = np.zeros(384, np.uint32)
    res = run_ptx(ptx, "k", [out], block=(384, 1, 1), strict=True)
    assert res.findings == [] and (out == np.arange(384)).all()
    no_dec = ptx.replace("\tsetmaxnreg.dec.sync.aligned.u32 40;\n", "")
    with pytest.raises(EmulationError, match="deadlock in setmaxnreg.inc"):
        run_ptx(no_dec, "k", [out], block=(384, 1, 1), strict=True)


# ------------------------------------------------------------------------------- CLC
def _clc(form):
    generic = ".shared::cta" not in form
    mc = ".multicast::cluster::all" in form
    cl = 2 if mc else 1
    issue = "%p4" if mc else "%p1"
    addr = ("\tmov.u64 %rd8, resp;\n\tcvta.shared.u64 %rd8, %rd8;\n\tmov.u64 %rd9, bar;\n"
            "\tcvta.shared.u64 %rd9, %rd9;\n" if generic else "")
    ops = "[%rd8], [%rd9]" if generic else "[resp], [bar]"
    body = f"""\tmov.u32 %r11, %cluster_ctarank;\n\tsetp.eq.u32 %p1, %r1, 0;
\tsetp.eq.u32 %p5, %r11, 0;\n\tand.pred %p4, %p1, %p5;
\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;
{addr}\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;
\t@{issue} {form} {ops};
WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\t@!%p2 bra WAIT;
\tld.shared.b128 %q1, [resp];
\tclusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;
\tclusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r12, %q1;
\tclusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r13, %q1;
\tclusterlaunchcontrol.query_cancel.get_first_ctaid::z.b32.b128 %r14, %q1;
\tselp.u32 %r15, 1, 0, %p3;\n\tmov.u32 %r16, %ctaid.x;\n\tmul.wide.u32 %rd10, %r16, 16;
\tadd.u64 %rd10, %rd1, %rd10;\n\t@%p1 st.global.v4.u32 [%rd10], {{%r15, %r12, %r13, %r14}};
\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n"""
    pre = ".shared .align 16 .b8 resp[16];\n.shared .align 8 .b64 bar;\n"
    return kernel(body, "sm_100a", pre=pre, directives=f" .reqnctapercluster {cl}, 1, 1"), cl


@pytest.mark.parametrize("row", [r for r in rows("test_clc_rows") if "try_cancel" in r["form"]],
                         ids=lambda r: r["form"])
def test_clc_rows(row, assemble):
    """try_cancel (each form: .shared::cta or generic addresses, with or without multicast)
    cancels a cluster not yet launched, and query_cancel (is_canceled, get_first_ctaid::x/y/z)
    reads its response: in a grid of 2 clusters the first (the one that runs, in tile-sim's launch
    order, W5) cancels the second, which never runs; with multicast both CTAs of the cluster get
    the response.  A single cluster cancels nothing."""
    assert {r["form"] for r in rows("test_clc_rows")} >= {
        "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128"} | {
        f"clusterlaunchcontrol.query_cancel.get_first_ctaid::{a}.b32.b128" for a in "xyz"}
    ptx, cl = _clc(op_of(row))
    assemble(ptx, "sm_100a")
    out = np.full((2 * cl, 4), 7, np.uint32)
    run_ptx(ptx, "k", [out], grid=(2 * cl, 1, 1), block=(32, 1, 1), strict=True)
    assert out[:cl].tolist() == [[1, cl, 0, 0]] * cl  # cancelled: the next cluster's first ctaid
    assert (out[cl:] == 7).all()  # the cancelled cluster never ran
    one = np.full((cl, 4), 7, np.uint32)
    run_ptx(ptx, "k", [one], grid=(cl, 1, 1), block=(32, 1, 1), strict=False)
    assert (one[:, 0] == 0).all()  # nothing left to cancel


# ------------------------------------------------------------------------------- tensormap.replace
@pytest.mark.parametrize("row", rows("test_tensormap_space_rows"), ids=lambda r: r["form"])
def test_tensormap_space_rows(row, assemble):
    """tensormap.replace with .global or .shared::cta edits the map at an address of that space
    (a global or a .shared::cta one, not a generic one): the map copied there from the parameter,
    edited, read back decodes to the new field."""
    form, op = row["form"], op_of(row)
    shared = ".shared::cta" in form
    to = "mov.u64 %rd5, %rd3;" if not shared else "mov.u64 %rd5, tm_s; cvta.shared.u64 %rd5, %rd5;"
    where = "%rd3" if not shared else "%rd6"
    copy = "".join(f"\tld.param.v2.b64 {{%rd10, %rd11}}, [tmap+{16 * i}];\n"
                   f"\tst.v2.b64 [%rd5+{16 * i}], {{%rd10, %rd11}};\n" for i in range(8))
    back = "".join(f"\tld.v2.b64 {{%rd10, %rd11}}, [%rd5+{16 * i}];\n"
                   f"\tst.global.v2.b64 [%rd1+{16 * i}], {{%rd10, %rd11}};\n" for i in range(8))
    val = "%rd7" if "global_address" in form else "%r8"
    body = (f"\tld.param.u64 %rd3, [pws];\n\tcvta.to.global.u64 %rd3, %rd3;\n\t{to}\n"
            "\tmov.u64 %rd6, tm_s;\n" + copy +
            f"\tmov.u64 %rd7, 0x7f0000002000;\n\tmov.u32 %r8, 0;\n\t{op} [{where}], {val};\n" + back)
    ptx = kernel(body, "sm_100a", params=".param .align 64 .b8 tmap[128], .param .u64 pws, "
                 ".param .u64 pout", pre=".shared .align 128 .b8 tm_s[128];\n")
    assemble(ptx, "sm_100a")
    tm = TensorMap("float32", np.zeros(64, np.float32), (8, 8), (32,), (8, 2))
    out = np.zeros(128, np.uint8)
    run_ptx(ptx, "k", [tm, np.zeros(128, np.uint8), out], block=(1, 1, 1), workers=1)
    m, addr = decode(out.tobytes(), "edited map")
    assert out.tobytes() != encode(tm, 0)
    if "global_address" in form:
        assert addr == 0x7F0000002000 and m.rank == 2  # the rank unchanged
    else:
        assert m.rank == 1 and addr != 0x7F0000002000  # the field holds rank - 1


# ------------------------------------------------------------------------------- tcgen05 fences
TC = """\t.shared .align 8 .b32 slot;
\tsetp.eq.u32 %p1, %r2, 0;
\t@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
\t@%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n\ttcgen05.fence::after_thread_sync;
\tld.shared.u32 %r3, [slot];\n\tshl.b32 %r4, %r2, 21;\n\tadd.u32 %r5, %r3, %r4;
\tmad.lo.u32 %r6, %r1, 7, 3;\n\tadd.u32 %r7, %r6, 1;
\ttcgen05.st.sync.aligned.32x32b.x2.b32 [%r5], {%r6, %r7};
\ttcgen05.wait::st.sync.aligned;
\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n\ttcgen05.fence::after_thread_sync;
\ttcgen05.ld.sync.aligned.32x32b.x2.b32 {%r8, %r9}, [%r5];
\ttcgen05.wait::ld.sync.aligned;
\tst.global.u32 [%rd2], %r8;\n\tst.global.u32 [%rd2+512], %r9;
\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n\ttcgen05.fence::after_thread_sync;
\t@%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;
"""


def test_tcgen05_fence_rows(assemble):
    """tcgen05.wait::st, fence::before_thread_sync and fence::after_thread_sync in the ISA's
    canonical pattern (store, wait, fence, barrier, fence, load): the values stored come back and
    the run is clean in strict mode; tile-sim writes a tcgen05.st at issue, so wait::st and
    before_thread_sync have nothing left to order.  Without fence::after_thread_sync after a
    commit's mbarrier wait, the tcgen05.ld is the rule's finding (test_errors.py)."""
    assert {r["form"] for r in rows("test_tcgen05_fence_rows")} == {
        "tcgen05.fence::after_thread_sync", "tcgen05.fence::before_thread_sync",
        "tcgen05.wait::st.sync.aligned"}
    ptx = kernel(TC, "sm_100a")
    assemble(ptx, "sm_100a")
    out = np.zeros(256, np.uint32)
    res = run_ptx(ptx, "k", [out], block=(128, 1, 1), strict=True)
    want = 7 * np.arange(128) + 3
    assert res.findings == [] and (out[:128] == want).all() and (out[128:] == want + 1).all()
    from ptxgen import cp_kernel  # the after_thread_sync rule, checked where a commit is waited
    from cp_model import make_desc
    bad = cp_kernel([("32x128b.warpx4", 0, 0, make_desc(1024, 0, 128, 0))], smem_bytes=4096,
                    after_fence=False)
    bad = bad.replace("\ttcgen05.fence::after_thread_sync;\n\tld.shared.b32 %r11",
                      "\tld.shared.b32 %r11")
    with pytest.raises(EmulationError, match="fence::after_thread_sync"):
        run_ptx(bad, "k", [np.zeros(4096, np.uint8), np.zeros((128, 32), np.uint32)])


# ------------------------------------------------------------------------------- wgmma sync
def test_wgmma_sync_rows(assemble):
    """wgmma.fence before the first wgmma, commit_group, wait_group N: with all three the s8
    product is exact; without the fence the wgmma is refused; waiting with N = 1 (the one group
    still pending) or without a commit, the accumulators are read in flight and refused (A32)."""
    import wgmma_cases as wc
    assert {r["form"] for r in rows("test_wgmma_sync_rows")} == {
        "wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned",
        "wgmma.wait_group.sync.aligned"}
    cfg = wc.config(atype="s8", dtype="s32", n=16)
    ptx = wc.ptx_of(cfg)
    assemble(ptx, "sm_90a")
    words, res = wc.run(cfg)
    a, b, _, _ = wc.cases.logical(cfg, 0)
    want = a.astype(np.uint8).view(np.int8).astype(np.int64) @ \
        b.astype(np.uint8).view(np.int8).astype(np.int64).T
    got = wc.d_matrix(words[0], 16, "s32").view(np.int32)
    assert (got == want).all()
    for old, new, why in [("\twgmma.fence.sync.aligned;\n", "", "wgmma.fence"),
                          ("wgmma.wait_group.sync.aligned 0;", "wgmma.wait_group.sync.aligned 1;",
                           "wait_group"),
                          ("\twgmma.commit_group.sync.aligned;\n", "", "wait_group")]:
        assert old in ptx
        with pytest.raises(EmulationError, match=why):
            wc.run(cfg, ptx.replace(old, new))


# ------------------------------------------------------------------------------- div.full, mov.b128
def _ulps(got, exact):
    """|got - exact| in units of the f32 spacing at exact."""
    g = np.float32(got)
    if exact == 0:
        return 0 if g == 0 else 99
    m, e = np.frexp(np.float32(float(exact)))
    ulp = Fraction(2) ** (int(e) - 24) if abs(float(exact)) >= 2.0 ** -126 else Fraction(2) ** -149
    return abs(Fraction(float(g)) - exact) / ulp


@pytest.mark.parametrize("row", rows("test_div_full_rows"), ids=lambda r: r["form"])
def test_div_full_rows(row, assemble):
    """div.full.f32{.ftz}: the PTX ISA bounds it at 2 ulp (it defines no bits): within 2 ulp of the
    exact quotient over random operands of every magnitude, exact where the quotient is a small
    dyadic, IEEE specials (x/0 = inf, 0/0 and inf/inf NaN, x/inf = 0), and .ftz flushes subnormal
    operands and results to zero of their sign."""
    op = op_of(row)
    ftz = ".ftz" in op
    rng = np.random.default_rng(5)
    a = np.concatenate([rng.standard_normal(400) * 10.0 ** rng.integers(-30, 30, 400),
                        [6, 1, -3, 0, 1, 0, np.inf, 5, 1e-40, 3e-39]]).astype(np.float32)
    b = np.concatenate([rng.standard_normal(400) * 10.0 ** rng.integers(-30, 30, 400),
                        [3, 4, 8, 0, 0, np.inf, np.inf, -np.inf, 1, 1e38]]).astype(np.float32)
    body = ("\tmul.wide.u32 %rd3, %r1, 4;\n\tld.param.u64 %rd4, [pa];\n\tadd.u64 %rd4, %rd4, %rd3;\n"
            "\tld.param.u64 %rd5, [pb];\n\tadd.u64 %rd5, %rd5, %rd3;\n"
            "\tsetp.lt.u32 %p1, %r1, 410;\n\t@!%p1 bra END;\n"
            f"\tld.global.f32 %r3, [%rd4];\n\tld.global.f32 %r4, [%rd5];\n\t{op} %r5, %r3, %r4;\n"
            "\tst.global.f32 [%rd2], %r5;\nEND:\n")
    ptx = kernel(body, params=".param .u64 pa, .param .u64 pb, .param .u64 pout")
    assemble(ptx, "sm_90a")
    out = np.zeros(416, np.float32)
    run_ptx(ptx, "k", [a, b, out], block=(416, 1, 1))
    out = out[:410]
    for x, y, q in zip(a[:400], b[:400], out[:400]):
        if ftz and (0 < abs(x) < 2.0 ** -126 or 0 < abs(y) < 2.0 ** -126):
            continue
        exact = Fraction(float(x)) / Fraction(float(y))
        if ftz and 0 < abs(exact) < Fraction(2) ** -126:
            assert q == 0
            continue
        if abs(exact) >= Fraction(2) ** 128 or abs(exact) < Fraction(2) ** -149:
            continue
        assert _ulps(q, exact) <= 2, (x, y, q)
    s = out[400:].tolist()
    assert s[:3] == [2.0, 0.25, -0.375] and np.isnan(s[3]) and s[4] == np.inf
    assert s[5] == 0 and np.isnan(s[6]) and s[7] == 0 and np.signbit(s[7])
    if ftz:
        assert s[8] == 0 and s[9] == 0  # a subnormal dividend; a subnormal quotient
    else:
        assert _ulps(s[8], Fraction(float(np.float32(1e-40)))) <= 2


def test_mov_b128_rows(assemble):
    """mov.b128 copies 128 bits; packing {lo, hi} from two .b64 puts lo in the low half (the
    vector-operand rule of mov), and unpacking gives them back."""
    assert [r["form"] for r in rows("test_mov_b128_rows")] == ["mov.b128"]
    body = ("\tmov.b64 %rd3, 0x0123456789abcdef;\n\tmov.b64 %rd4, 0xfedcba9876543210;\n"
            "\tmov.b128 %q2, {%rd3, %rd4};\n\tmov.b128 %q1, %q2;\n\tst.global.b128 [%rd1], %q1;\n"
            "\tmov.b128 {%rd5, %rd6}, %q1;\n\tst.global.v2.b64 [%rd1+16], {%rd6, %rd5};\n")
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    out = np.zeros(4, np.uint64)
    run_ptx(ptx, "k", [out], block=(1, 1, 1))
    assert out.tolist() == [0x0123456789ABCDEF, 0xFEDCBA9876543210,
                            0xFEDCBA9876543210, 0x0123456789ABCDEF]


def test_generic_u32_cluster_addresses_are_refused():
    """mapa.u32 / getctarank.u32 of a generic address: refused by name (32-bit generic addresses
    need .address_size 32, which ptxas refuses)."""
    why = decode_check(["mapa.u32 %r1, %r2, %r3;", "getctarank.u32 %r1, %r2;",
                        "mapa.u64 %rd1, %rd2, %r3;"])
    assert "address_size 32" in why[0] and "address_size 32" in why[1] and why[2] is None
