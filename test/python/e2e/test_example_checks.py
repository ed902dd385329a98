"""The GEMM examples' --run check (issue 35 item 5): D against the exact model of MMA-Sim's arithmetic
(gemm_reference.fast_blockscaled / fast_wgmma, tile-sim's integer formulation), the model itself against
MMA-Sim on sampled tiles, which catches a model that differs."""
from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir, "examples"))

import gemm_reference as ref  # noqa: E402


def test_fast_blockscaled_is_mmasim_bit_for_bit():
    a, sfa, b, sfb = ref.random_blockscaled(ref.MXFP8, 130, 16, 96, seed=3)  # (an M edge tile of 2 rows)
    fast = ref.fast_blockscaled(a, sfa, b, sfb, ref.MXFP8, progress=False)
    want = ref.mmasim_blockscaled(a, sfa, b, sfb, ref.MXFP8)
    assert np.array_equal(fast.view(np.uint32), want.view(np.uint32))


def test_fast_wgmma_is_mmasim_bit_for_bit():
    a, b = ref.random_dense(ml_dtypes.bfloat16, 64, 16, 48, seed=4)
    assert np.array_equal(ref.fast_wgmma(a, b, progress=False).view(np.uint32), ref.mmasim_wgmma(a, b).view(np.uint32))
    a, b = ref.random_dense(ml_dtypes.float8_e4m3fn, 64, 8, 64, seed=5)
    assert np.array_equal(ref.fast_wgmma(a, b, progress=False).view(np.uint32), ref.mmasim_wgmma(a, b).view(np.uint32))


def test_sampled_check_catches_a_model_that_differs():
    a, sfa, b, sfb = ref.random_blockscaled(ref.MXFP8, 128, 8, 64, seed=6)
    fast = ref.fast_blockscaled(a, sfa, b, sfb, ref.MXFP8, progress=False)
    mmasim = lambda r, c: ref.mmasim_blockscaled(a[r], sfa[r], b[c], sfb[c], ref.MXFP8)  # noqa: E731
    assert ref.check_sampled(fast, mmasim, 128, samples=1, progress=False) == (0, 0, 1024)
    wrong = fast.copy()
    wrong[5, 3] = np.nextafter(wrong[5, 3], np.float32(np.inf))  # one fp32 ulp: the same bf16 (a finding)
    wrong[6, 2] = -wrong[6, 2] if wrong[6, 2] else 1.0  # another bf16 value: a failed check
    assert ref.check_sampled(wrong, mmasim, 128, samples=1, progress=False) == (1, 2, 1024)


def test_example_run_line(capsys):
    import gemm_blockscaled as gemm

    assert gemm.main(["--run", "sim", "-M", "128", "-N", "256", "-K", "128", "--samples", "1"]) == 0
    out = capsys.readouterr().out
    assert "gemm_mxfp8_128x256x128 on sim: D == the exact model of MMA-Sim's arithmetic, bit for bit (0 of 32768 " \
           "differ); the model == MMA-Sim on sampled tiles (0 of 1024 differ)" in out


def test_started_check_on_workers_equals_the_serial_check():
    """start_check's reference computed on two forked workers (rows in tasks, MMA-Sim's tiles in one) is
    check_blockscaled's / check_wgmma's, for an M edge block and a wgmma tile of 2 rows."""
    lg = ref.random_blockscaled(ref.MXFP8, 300, 40, 128, seed=1)
    want, sampled = ref.start_check(lg, ref.MXFP8, 2, workers=2).result(progress=False)
    want0, sampled0 = ref.check_blockscaled(*lg, ref.MXFP8, progress=False)
    assert np.array_equal(want.view(np.uint16), want0.view(np.uint16)) and sampled == sampled0 == (0, 0, 1376)
    lh = ref.random_dense(ml_dtypes.bfloat16, 130, 24, 64, seed=2)
    want, sampled = ref.start_check(lh, None, 1, workers=2).result(progress=False)
    want0, sampled0 = ref.check_wgmma(*lh, samples=1, progress=False)
    assert np.array_equal(want.view(np.uint16), want0.view(np.uint16)) and sampled == sampled0 == (0, 0, 16)


def test_started_work_runs_here_without_workers():
    import started_work

    work = started_work.StartedWork(10, [(lambda job, x: job + x, (i,)) for i in range(3)], workers=1)
    assert work.pool is None and [work.result(i) for i in range(3)] == [10, 11, 12]
