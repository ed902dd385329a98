"""MMA arithmetic (tcgen05.mma, wgmma, mma.sync) looked up across the schedules of an exploration (sim/pure_memo.py) gives each
schedule what computing it gives: the same verdict, output bytes, findings, step count and tensor
and shared memory, schedule for schedule, with lookups made (docs/emulator.md §15)."""

import os
import sys

import numpy as np
import pytest

from tile_mlir.sim import pure_memo
from tile_mlir.sim.explore import driver
from tile_mlir.sim.explore import policy as _policy

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "zoo"))
from zoo_mutants import MUTANTS  # noqa: E402


def _runs(bug, fixed, n):
    """The default run, the probe and schedules 0..n-1 of seed 3 on the launch's first cluster."""
    ptx, given = bug.ptx(fixed), bug.args()
    launch = dict(**bug.launch(), strict=bug.strict, clusters=1)
    box: list = []
    kw, ref, res0 = driver.reference(ptx, bug.kernel, given, launch, box)
    counts = driver.probe(ptx, bug.kernel, given, kw, box)
    out = [([x.tobytes() for x in ref["outputs"]], ref["findings"], res0.steps, counts)]
    for i in range(n):
        pol = _policy.PriorityPolicy(_policy.draw(3, i, depth=driver.DEPTH, **counts))
        res, a, err, m = driver._run(ptx, bug.kernel, given, kw, pol, box)
        v = driver._verdict(ref, res, a, err, m, pol, None)
        seen = None if res is None else (
            res.steps, [str(f) for f in res.findings], [x.tobytes() for x in res.shared],
            [np.asarray(x).tobytes() for x in res.tmem if x is not None], res.warnings)
        out.append((v, [x.tobytes() for x in a if isinstance(x, np.ndarray)], seen, pol.asyncs))
    return out


def _compare(bug, fixed, n):
    computed = _runs(bug, fixed, n)
    h0 = pure_memo.hits
    with pure_memo.active():
        looked_up = _runs(bug, fixed, n)
    assert pure_memo.hits > h0  # (the schedules after the first found the MMAs' results)
    for i, (c, m) in enumerate(zip(computed, looked_up)):
        assert c == m, f"run {i}: {c[0]} != {m[0]}"
    return looked_up


@pytest.mark.slow  # (make test: the table's own tests below)
def test_tcgen05_schedules_with_looked_up_mma_results_run_as_computed():
    """bw_dense_1cta (CuTe DSL, tcgen05.mma onto one accumulator, TMA loads and store): clean."""
    runs = _compare(MUTANTS["staging-bar"], True, 2)
    assert all(r[0] is None for r in runs[1:])


@pytest.mark.slow
def test_our_persistent_gemm_with_looked_up_mma_results_fails_and_passes_as_computed():
    """acc-arrive (examples/gemm_persistent_blackwell.py with one epilogue arrive counted for
    128: an accumulator released early): schedules that fail and schedules that pass, alike."""
    runs = _compare(MUTANTS["acc-arrive"], False, 6)
    assert any(r[0] is not None for r in runs[1:]) and any(r[0] is None for r in runs[1:])


@pytest.mark.slow
def test_wgmma_schedules_with_looked_up_mma_results_run_as_computed():
    """A Hopper wgmma GEMM of the corpus (hopper_dense's first cluster), as clc-reissue's
    Blackwell twin is a tcgen05 one."""
    from zoo_mutants import _foreign, Mutant

    bug = Mutant("hopper_dense", lambda: _foreign("hopper_dense"), lambda p: p, strict=False)
    runs = _compare(bug, True, 2)
    assert all(r[0] is None for r in runs[1:])


@pytest.mark.slow
def test_mma_sync_schedules_with_looked_up_mma_results_run_as_computed():
    """An sm_80 mma.sync GEMM of the corpus (ampere_tensorop_gemm, cp.async into shared memory,
    ldmatrix, mma.sync.m16n8k16)."""
    from zoo_mutants import _foreign, Mutant

    bug = Mutant("ampere_tensorop_gemm", lambda: _foreign("ampere_tensorop_gemm"), lambda p: p,
                 strict=False)
    runs = _compare(bug, True, 2)
    assert all(r[0] is None for r in runs[1:])


def test_the_table_is_off_outside_exploration_and_bounded():
    calls = []

    def f(x):
        calls.append(1)
        return x * 2

    x = np.arange(8, dtype=np.uint32)
    pure_memo.call(f, x)
    pure_memo.call(f, x)
    assert len(calls) == 2  # off: every call computes
    with pure_memo.active():
        a, b = pure_memo.call(f, x), pure_memo.call(f, x)
        assert len(calls) == 3 and np.array_equal(a, b) and a is not b
        b[0] = 99  # a caller's copy: the table's entry is not changed through it
        assert pure_memo.call(f, x)[0] == 0
        pure_memo.call(f, x + 1)  # other bytes: computed
        assert len(calls) == 4
        pure_memo.call(f, x.astype(np.int32))  # the same bytes of another dtype: computed
        assert len(calls) == 5
        g = lambda v, s: np.array([np.copysign(1.0, s)]) * v  # noqa: E731
        y = np.zeros(1)
        assert not np.signbit(pure_memo.call(g, y, 0.0)[0])
        assert np.signbit(pure_memo.call(g, y, -0.0)[0])  # -0.0 is not 0.0's key
        old = pure_memo.LIMIT
        pure_memo.LIMIT = 64  # two 32-byte results fit: the oldest goes first
        try:
            for k in range(2, 5):
                pure_memo.call(f, x + k)
            assert pure_memo._size <= 64
        finally:
            pure_memo.LIMIT = old
