"""tile_mlir.gemm on sm_100a (arch="sm_100a", or a BlackwellConfig): the dense Blackwell kernel
(tile_mlir/gemm/blackwell.py) chosen by heuristic_sm100, on tile-sim bit for bit the exact model of its
MMA chains (examples/gemm_dense_blackwell.expected, itself checked against MMA-Sim in
test_gemm_dense_blackwell.py); which chip takes which dtypes and configurations. No Blackwell GPU ran this."""
from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np
import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import gemm_dense_blackwell as gdb  # noqa: E402
import gemm_reference as ref  # noqa: E402
import tile_mlir  # noqa: E402
from tile_mlir.gemm import BlackwellConfig, GemmConfig  # noqa: E402
from tile_mlir.gemm import heuristic_sm100 as h100  # noqa: E402


def _run(dtype, m, n, k, sms, **kw):
    a, b = ref.random_dense_format(ref.DENSE_FORMATS[dtype], m, n, k, seed=m + n + k)
    call = tile_mlir.gemm.plan(a, b, backend="sim", arch="sm_100a", sms=sms, **kw)
    d = call().finish()
    pb = gdb.DenseProblem(call.config, m, n, k, ctas=call.grid)
    return d, gdb.expected(pb, a, b, mmasim=False), call


@pytest.mark.parametrize("dtype, m, n, k, sms", [
    ("bf16", 130, 136, 208, 2),  # edges in M, N, K; the heuristic's choice on 2 SMs
    pytest.param("f16", 1, 72, 96, 4, marks=pytest.mark.slow),  # decode-like M = 1
    pytest.param("e5m2", 300, 64, 160, 2, marks=pytest.mark.slow),
    pytest.param("tf32", 64, 40, 24, 2, marks=pytest.mark.slow),  # float32 operands: tf32 MMAs
])
def test_gemm_sm100_on_tile_sim(dtype, m, n, k, sms):
    d, want, call = _run(dtype, m, n, k, sms)
    assert isinstance(call.config, BlackwellConfig)
    assert np.array_equal(d.view(np.uint16), want.view(np.uint16))


@pytest.mark.slow
def test_gemm_sm100_split_k_config():
    d, want, call = _run("bf16", 64, 64, 512, 8, config=BlackwellConfig("bf16", tile_n=64, split_k=4))
    assert call.config.split_k == 4
    assert np.array_equal(d.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("dtype, m, n, k, sms, cfg", [
    # 4 parts of 2 K steps on 3 CTAs (units that are not a tile's last skip the store)
    ("bf16", 64, 64, 512, 3, BlackwellConfig("bf16", tile_n=64, split_k=4, split_reduce="fixup")),
    # edges in M, N and K, 3 parts, two of its slices of 64 columns
    pytest.param("bf16", 130, 136, 208, 2, BlackwellConfig("bf16", tile_n=64, split_k=3, split_reduce="fixup"),
                 marks=pytest.mark.slow),
    # CTA pairs: a slot and a semaphore per CTA of the pair, 18 units on 5 pairs
    pytest.param("e4m3", 520, 264, 416, 10, BlackwellConfig("e4m3", tile_n=128, cta_group=2, split_k=2,
                                                            split_reduce="fixup"), marks=pytest.mark.slow),
    # decode-like M = 1
    pytest.param("f16", 1, 72, 512, 4, BlackwellConfig("f16", tile_n=128, split_k=4, split_reduce="fixup"),
                 marks=pytest.mark.slow),
    # stream-K: 6 tiles of 4 K steps in 3 ranges of 8, edges in M, N and K
    ("bf16", 130, 136, 208, 3, BlackwellConfig("bf16", tile_n=64, stream_k=True)),
    # stream-K over CTA pairs: 9 tiles of 256 x 128 on 5 pairs
    pytest.param("e4m3", 520, 264, 416, 10, BlackwellConfig("e4m3", tile_n=128, cta_group=2, stream_k=True),
                 marks=pytest.mark.slow),
    # stream-K with more CTAs than tiles: M = 1, and tf32
    pytest.param("f16", 1, 72, 512, 5, BlackwellConfig("f16", tile_n=128, stream_k=True), marks=pytest.mark.slow),
    pytest.param("tf32", 64, 40, 96, 4, BlackwellConfig("tf32", tile_n=64, stream_k=True), marks=pytest.mark.slow),
])
def test_gemm_sm100_split_k_fixup(dtype, m, n, k, sms, cfg):
    """The fix-up on sm_100a (split-K and stream-K): bit for bit the exact model's partials added in K order."""
    d, want, call = _run(dtype, m, n, k, sms, config=cfg)
    assert call.config.fixup
    assert np.array_equal(d.view(np.uint16), want.view(np.uint16))


def test_chip_dtype_and_config_rules():
    bf = np.zeros((8, 16), ml_dtypes.bfloat16)
    f16 = np.zeros((8, 16), np.float16)
    with pytest.raises(TypeError, match="f16 operands have no sm_90a kernel"):
        tile_mlir.gemm(f16, f16, backend="sim")
    with pytest.raises(ValueError, match="arch must be one of sm_90a, sm_100a"):
        tile_mlir.gemm(bf, bf, backend="sim", arch="sm_80")
    with pytest.raises(ValueError, match="config is a sm_90a kernel's"):
        tile_mlir.gemm(bf, bf, backend="sim", arch="sm_100a", config=GemmConfig("bf16"))


@pytest.mark.parametrize("m, n, k, want", [
    (8192, 8192, 8192, {"split_k": 1, "cta_group": 2}),  # many tiles: pairs, no split
    (1, 4096, 14336, {"cta_group": 1}),  # decode: one row
])
def test_heuristic_sm100(m, n, k, want):
    cfg = h100.choose(m, n, k, "bf16", 148)
    assert all(getattr(cfg, f) == v for f, v in want.items()), cfg
    if m == 1:  # few output tiles on 148 SMs: split K until the units fill more of them
        assert cfg.units(m, n) > -(-n // cfg.tile_n)
