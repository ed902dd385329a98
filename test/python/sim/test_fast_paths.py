"""tile-sim's fast paths against the paths they replace, in the same process: a kernel run with
each switched on and off gives the same D, steps, warnings and findings, and a fault inside one is
named as before (line, lane, tile IR location).

* lane runs (sim/lane_runs.py): straight-line stretches executed for a warp's lanes at once;
* wgmma chains (sim/handlers/wgmma_chain.py): D computed when first read, a K chain and the
  warpgroup's warps in one call;
* tcgen05.mma chains (sim/handlers/tcgen05_chain.py): the MMAs a commit retires onto one D in one
  call;
* plain tcgen05.ld destinations where no instruction can read one before its wait
  (sim/handlers/ld_poison.py, never_read_unwaited).
"""

from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np
import pytest

from tile_mlir.sim import EmulationError, lane_runs, mma_numerics, run_ptx
from tile_mlir.sim.handlers import ld_poison, tcgen05_chain, wgmma_chain

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import gemm_blockscaled as gemm  # noqa: E402

SWITCHES = {"lane_runs": (lane_runs, "ENABLED"), "wgmma_chain": (wgmma_chain, "ENABLED"),
            "tcgen05_chain": (tcgen05_chain, "ENABLED"), "ld_static": (ld_poison, "STATIC")}


def _gemm(cfg, strict=True):
    """(D bits, SimResult) of cfg's GEMM on tile-sim, in this process."""
    import tile_mlir
    args = gemm.operands(cfg, seed=5)
    d = np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16)
    kern = tile_mlir.jit(gemm.build(cfg), arch=cfg.target, backend="sim", workers=1, strict=strict)
    res = kern(*[args[p] for p in ("A", "B", "SFA", "SFB") if p in args], d)
    return d.view(np.uint16).copy(), res.sim


def _summary(res):
    return res.steps, list(res.warnings), [tuple(vars(f).items()) if hasattr(f, "__dict__") else f
                                           for f in res.findings]


def _off(monkeypatch, *names):
    for n in names:
        mod, attr = SWITCHES[n]
        monkeypatch.setattr(mod, attr, False)


@pytest.mark.parametrize("dtype, m, n, k", [  # (make test: one wgmma GEMM; e4m3 in the slow tier)
    ("bf16", 128, 128, 256), pytest.param("e4m3", 128, 256, 128, marks=pytest.mark.slow)])
def test_wgmma_gemm_same_with_fast_paths_on_and_off(monkeypatch, dtype, m, n, k):
    cfg = gemm.GemmConfig("sm_90a", dtype, m, n, k, tile_n=128)
    calls = []
    real = mma_numerics.wgmma

    def counted(*a, **kw):
        calls.append((a[3].shape[0], kw["k"]))  # (rows, K)
        return real(*a, **kw)
    monkeypatch.setattr(mma_numerics, "wgmma", counted)
    d_fast, r_fast = _gemm(cfg)
    fast_calls = list(calls)
    with monkeypatch.context() as mp:
        _off(mp, "lane_runs", "wgmma_chain")
        calls.clear()
        d_slow, r_slow = _gemm(cfg)
    assert np.array_equal(d_fast, d_slow)
    assert _summary(r_fast) == _summary(r_slow)
    # the slow path: one call per warp and wgmma; the fast one fuses K chains and warps
    assert set(calls) == {(16, 16 if dtype == "bf16" else 32)}
    assert len(fast_calls) <= len(calls) / (k // (16 if dtype == "bf16" else 32))  # whole chains
    assert sum(r * k for r, k in fast_calls) == sum(r * k for r, k in calls)  # the same work
    if dtype == "bf16":  # warps stacked (where a warp's peers issued the chain already)
        assert any(r > 16 for r, _ in fast_calls)


def test_wgmma_gemm_lenient_same_with_fast_paths_on_and_off(monkeypatch):
    cfg = gemm.GemmConfig("sm_90a", "bf16", 128, 128, 128, tile_n=128)
    d_fast, r_fast = _gemm(cfg, strict=False)
    _off(monkeypatch, "lane_runs", "wgmma_chain")
    d_slow, r_slow = _gemm(cfg, strict=False)
    assert np.array_equal(d_fast, d_slow)
    assert _summary(r_fast) == _summary(r_slow)


@pytest.mark.parametrize("dtype, m, n, k, cg", [
    ("mxfp8", 128, 128, 512, 1),
    pytest.param("mxfp8", 256, 256, 256, 2, marks=pytest.mark.slow),  # the CTA pair: slow tier
    pytest.param("nvfp4", 128, 128, 512, 1, marks=pytest.mark.slow)])  # (make test: one tcgen05 GEMM, mxfp8)
def test_tcgen05_gemm_same_with_fast_paths_on_and_off(monkeypatch, dtype, m, n, k, cg):
    cfg = gemm.GemmConfig("sm_100a", dtype, m, n, k, cta_group=cg)
    calls = []
    real = mma_numerics.tcgen05_chain

    def counted(*a, **kw):
        calls.append(a[4].shape)  # A: rows x summed K
        return real(*a, **kw)
    monkeypatch.setattr(mma_numerics, "tcgen05_chain", counted)
    poisoned = []
    real_poison = ld_poison.poison_ld
    monkeypatch.setattr(ld_poison, "poison_ld", lambda *a: poisoned.append(1) or real_poison(*a))
    d_fast, r_fast = _gemm(cfg)
    fast_calls = list(calls)
    assert not poisoned  # the epilogue reads its registers after the wait: plain from the start
    with monkeypatch.context() as mp:
        _off(mp, "lane_runs", "tcgen05_chain", "ld_static")
        calls.clear()
        d_slow, r_slow = _gemm(cfg)
    assert poisoned
    assert np.array_equal(d_fast, d_slow)
    assert _summary(r_fast) == _summary(r_slow)
    assert not calls
    if dtype == "mxfp8":  # a commit's 4 MMAs of K 32 in one call (nvfp4: G-ST-FDPA, never fused)
        assert fast_calls and all(kk == 128 for _, kk in fast_calls)
    else:
        assert not fast_calls


# ------------------------------------------------------------------------------- lane runs
_HEAD = (".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
         "{\n.reg .b32 %r<12>;\n.reg .b64 %rd<6>;\n.reg .pred %p<4>;\n"
         ".shared .align 16 .b8 buf[256];\n")


def _lanes_kernel(body):
    return (_HEAD + "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\n" + body +
            "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r5;\n"
            "ret;\n}\n")


#: divergent lanes (odd lanes branch over a stretch, rejoining mid-stretch), guarded instructions
#: and shared-memory traffic inside stretches
DIVERGENT = _lanes_kernel(
    "and.b32 %r2, %r1, 1;\nsetp.ne.u32 %p1, %r2, 0;\nshl.b32 %r3, %r1, 2;\n"
    "@%p1 bra SKIP;\nadd.s32 %r4, %r1, 100;\nmul.lo.s32 %r4, %r4, 3;\nxor.b32 %r4, %r4, 0x55;\n"
    "SKIP:\nst.shared.u32 [%r3], %r1;\nadd.s32 %r5, %r1, 7;\n@%p1 add.s32 %r5, %r5, %r4;\n"
    "@!%p1 shl.b32 %r5, %r5, 3;\nbar.sync 0;\nxor.b32 %r6, %r3, 4;\nld.shared.u32 %r7, [%r6];\n"
    "add.s32 %r5, %r5, %r7;\ncvt.u64.u32 %rd4, %r5;\nmov.b64 {%r8, %r9}, %rd4;\n"
    "add.s32 %r5, %r8, %r9;\n")


@pytest.mark.parametrize("block", [32, 48, 64])
def test_lane_runs_same_as_per_thread(monkeypatch, block):
    out_fast = np.zeros(block, np.uint32)
    r_fast = run_ptx(DIVERGENT, "k", [out_fast], block=(block, 1, 1))
    _off(monkeypatch, "lane_runs")
    out_slow = np.zeros(block, np.uint32)
    r_slow = run_ptx(DIVERGENT, "k", [out_slow], block=(block, 1, 1))
    assert np.array_equal(out_fast, out_slow)
    assert (r_fast.steps, r_fast.warnings) == (r_slow.steps, r_slow.warnings)
    assert all(np.array_equal(a, b) for a, b in zip(r_fast.shared, r_slow.shared))


def test_lane_runs_are_taken():
    """The stretches run through lane_runs.run (else the test above compares a path with itself)."""
    seen = []
    real = lane_runs.run

    def spy(M, lanes, pc, k, *rest):
        seen.append((len(lanes), k))
        return real(M, lanes, pc, k, *rest)
    lane_runs.run = spy
    try:
        run_ptx(DIVERGENT, "k", [np.zeros(64, np.uint32)], block=(64, 1, 1))
    finally:
        lane_runs.run = real
    assert any(n == 32 and k > 2 for n, k in seen)  # converged warps
    assert any(n == 16 for n, _ in seen)  # the even lanes alone, before the odd ones rejoin


#: lane 5 of warp 1 stores out of bounds in the middle of a stretch
FAULT = _lanes_kernel(
    "mov.u32 %r2, 0;\nsetp.eq.u32 %p1, %r1, 37;\n@%p1 mov.u32 %r2, 4096;\nshl.b32 %r3, %r1, 2;\n"
    "add.s32 %r3, %r3, %r2;\nadd.s32 %r5, %r1, 1;\nst.shared.u32 [%r3], %r5;\n"
    "add.s32 %r5, %r5, 1;\n")


def test_fault_inside_a_lane_run_named_as_before(monkeypatch):
    msgs = []
    for on in (True, False):
        monkeypatch.setattr(lane_runs, "ENABLED", on)
        with pytest.raises(EmulationError) as e:
            run_ptx(FAULT, "k", [np.zeros(64, np.uint32)], block=(64, 1, 1))
        msgs.append((str(e.value), e.value.line, e.value.source))
    assert msgs[0] == msgs[1]
    assert "st.shared.u32 [%r3], %r5" in msgs[0][0] and "warp 1, lane 5" in msgs[0][0]


def test_fault_inside_a_lane_run_names_the_tile_ir_line(monkeypatch):
    """With .loc line info the fault is reported at the tile IR file:line:col, both ways."""
    ptx = FAULT.replace(".visible", '.file 1 "kernel.mlir"\n.visible').replace(
        "st.shared.u32", ".loc 1 42 7\nst.shared.u32")
    msgs = []
    for on in (True, False):
        monkeypatch.setattr(lane_runs, "ENABLED", on)
        with pytest.raises(EmulationError) as e:
            run_ptx(ptx, "k", [np.zeros(64, np.uint32)], block=(64, 1, 1))
        msgs.append((str(e.value), e.value.source))
    assert msgs[0] == msgs[1]
    assert msgs[0][1] is not None and msgs[0][1].endswith("kernel.mlir:42:7")
    assert str(msgs[0][0]).startswith(msgs[0][1] + ": error:")


# ------------------------------------------------------------------------------- TMA observer cache
def test_tma_observer_cache_sees_a_new_load_into_the_same_chunks():
    """The load ids under an operand's chunks are kept only until the CTA's TMA tags change: a
    second load into the same ring slot, not waited for, is still a race."""
    from types import SimpleNamespace as NS

    from tile_mlir.sim.handlers import tma

    class M:
        ext = {}

        def violation(self, msg, key=None, race=False):
            raise EmulationError(msg)

        def where(self, t):
            return "thread 0"

    class CTA:  # (hashable: a TMA record's phases are keyed by CTA)
        ext, idx, smem = {}, 0, NS(size=256)

    m, cta = M(), CTA()
    t = NS(seen={})
    chunks = np.array([0, 16, 32, 48])
    chunks.flags.writeable = False  # as mma_smem's cached layouts are
    recs = tma.RECORDS.of(m)
    sh = tma.SHARED.of(cta)
    for rid in (1, 2):
        mb = NS(uid=rid, describe=lambda: "mbarrier")
        recs[rid] = NS(phase={cta: (mb, 0)}, what="load", line=10 * rid)
    sh.tags[0:64] = 1
    sh.version += 1
    t.seen[1] = 1  # the reader observed load 1's phase
    tma._check_gather(m, t, cta, chunks, "wgmma B")
    assert sh.rids[id(chunks)][2] == [1]
    tma._check_gather(m, t, cta, chunks, "wgmma B")  # from the cache: still fine
    sh.tags[0:64] = 2  # as tma_copy writes a landing load
    sh.version += 1
    with pytest.raises(EmulationError, match="issued at line 20"):
        tma._check_gather(m, t, cta, chunks, "wgmma B")


# ------------------------------------------------------------------------------- tcgen05.ld proof
def _ld_kernel(after_ld):
    """One warp: alloc, tcgen05.ld of 2 columns, ``after_ld``, dealloc."""
    return (".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n"
            ".reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n"
            ".shared .align 16 .b8 slot[16];\n"
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;\n"
            "ld.shared.b32 %r1, [slot];\n"
            "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r2, %r3}, [%r1];\n" + after_ld +
            "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;\n"
            "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\nret;\n}\n")


@pytest.mark.parametrize("after_ld, plain", [
    ("mov.b64 %rd1, {%r2, %r3};\ntcgen05.wait::ld.sync.aligned;\nmov.b64 {%r4, %r5}, %rd1;\n"
     "add.s32 %r6, %r4, %r5;\n", True),  # copies before the wait, uses after it
    ("mov.b64 %rd1, {%r2, %r3};\nmov.b64 {%r4, %r5}, %rd1;\nadd.s32 %r6, %r4, 1;\n"
     "tcgen05.wait::ld.sync.aligned;\n", False),  # a copy's copy used before the wait
    ("setp.eq.u32 %p1, %r1, 0;\n@%p1 bra L;\ntcgen05.wait::ld.sync.aligned;\nL:\n"
     "add.s32 %r6, %r2, 1;\n", False),  # one path skips the wait
    ("@%p1 tcgen05.wait::ld.sync.aligned;\nadd.s32 %r6, %r2, 1;\n", False),  # a guarded wait
])
def test_never_read_unwaited(after_ld, plain):
    from tile_mlir.sim.machine import Machine
    from tile_mlir.sim.ptx_parser import parse

    mod = parse(_ld_kernel(after_ld))
    M = Machine(mod, mod.entry("k"), grid=(1, 1, 1), block=(32, 1, 1), cluster=(1, 1, 1),
                dynamic_smem=0, strict=True, trace=False, max_steps=None)
    assert M.ld_plain is plain


def test_read_before_wait_still_found_with_the_proof_on():
    ptx = _ld_kernel("add.s32 %r6, %r2, 1;\ntcgen05.wait::ld.sync.aligned;\n")
    with pytest.raises(EmulationError, match="read before the tcgen05.wait::ld"):
        run_ptx(ptx, "k", [], block=(32, 1, 1), strict=True)


def test_explored_schedule_repeats_no_known_tcgen05_wait_ld_finding():
    """An explored schedule compares only new (rule, line) findings with its default schedule's,
    so a tcgen05.ld whose read-before-wait finding the default schedule made writes plain values
    there (explore/driver.py passes the known set); unknown, the values stay guarded and the
    finding is made again.  Its stored value is the same either way."""
    from tile_mlir.sim.explore import driver

    ptx = _ld_kernel("add.s32 %r6, %r2, 1;\nst.shared.b32 [slot+4], %r6;\n")
    kw = driver._launch_kw(dict(block=(32, 1, 1), strict=False))
    ref, _, err, _ = driver._run(ptx, "k", [], kw, None)
    assert err is None
    line = next(f.line for f in ref.findings if f.rule == "tcgen05.wait::ld")
    runs = {}
    for known in (None, frozenset({("tcgen05.wait::ld", line)})):
        res, _, err, _ = driver._run(ptx, "k", [], kw, None, known=known)
        assert err is None
        runs[known is None] = res
    assert ("tcgen05.wait::ld", line) in {(f.rule, f.line) for f in runs[True].findings}
    assert "tcgen05.wait::ld" not in {f.rule for f in runs[False].findings}
    assert [s.tobytes() for s in runs[True].shared] == [s.tobytes() for s in runs[False].shared]
