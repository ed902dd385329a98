"""tile-run's default inputs of a block-scaled kernel are finite (issue 35 item 5): compile() records the
parameters that feed the MMA's scale factors (artifact.meta["scales"], signature.py), tile-run draws them as
E8M0 exponents near 1.0, and --full-range asks for every bit pattern (NaN and inf included)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from tile_mlir.artifact import Param
from tile_mlir.runtime.tile_run import SCALE_EXPONENTS, generate

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir,
                                "examples"))


@pytest.mark.parametrize("dtype", ["uint8", "float8_e8m0fnu"])
def test_scale_factors_are_exponents_near_one(dtype):
    p = Param("SFA", "buffer", dtype, (64, 16))
    rng = np.random.default_rng(0)
    data = generate(p, rng, zeros=False, scale=True).view(np.uint8)
    assert data.min() >= SCALE_EXPONENTS[0] and data.max() <= SCALE_EXPONENTS[1]
    assert len(np.unique(data)) == SCALE_EXPONENTS[1] - SCALE_EXPONENTS[0] + 1
    wide = generate(p, rng, zeros=False, scale=True, full_range=True).view(np.uint8)
    assert wide.max() > 200 and wide.min() < 50  # every pattern: 0xff is NaN in E8M0
    assert not generate(p, rng, zeros=True, scale=True).view(np.uint8).any()


def test_full_range_narrow_floats_include_nan_and_inf():
    p = Param("A", "buffer", "float8_e5m2", (64, 64))
    rng = np.random.default_rng(0)
    normal = generate(p, rng, zeros=False).astype(np.float32)
    assert np.isfinite(normal).all()
    wide = generate(p, rng, zeros=False, full_range=True).astype(np.float32)
    assert np.isnan(wide).any() and np.isinf(wide).any()


@pytest.fixture(scope="module")
def mxfp8_file(tmp_path_factory):
    import gemm_blockscaled as gemm

    path = tmp_path_factory.mktemp("mxfp8") / "mxfp8_128.mlir"
    path.write_text(str(gemm.build(gemm.GemmConfig("sm_100a", "mxfp8", 128, 128, 128))))
    return path


def test_compile_records_the_scale_parameters(mxfp8_file):
    import tile_mlir

    art = tile_mlir.compile(mxfp8_file.read_text(), arch="sm_100a", emit=("ptx",))
    assert art.meta["scales"] == ["SFA", "SFB"] and art.meta["outputs"] == ["D"]


@pytest.mark.parametrize("flag,finite", [((), True), (("--full-range",), False)])
def test_tile_run_block_scaled_defaults_are_finite(mxfp8_file, tmp_path, capsys, flag, finite):
    from tile_mlir.runtime import tile_run

    out = tmp_path / "out"
    assert tile_run.main([str(mxfp8_file), "--backend", "sim", "--print", "none", "--no-progress",
                          "--output-dir", str(out), *flag]) == 0
    import ml_dtypes

    d = np.load(out / "D.npy").view(ml_dtypes.bfloat16).astype(np.float32)  # (.npy keeps bf16 as raw V2)
    assert np.isfinite(d).all() == finite and np.abs(d[np.isfinite(d)]).max() > 0
