"""The Hopper twin of examples/gemm_blockscaled.py (sm_90a: TMA ring, wgmma consumers) on tile-sim, bit for bit
MMA-Sim's Hopper model of its wgmma chain; and the H200-checked data (test/fixtures/gemm-check, the inputs and D of bench/gpu/make_gemm_artifacts.py's
check cases, which the H200 reproduced bit for bit: bench/results/h200-gemm-2026-12-01.txt) against the same model."""
from __future__ import annotations

import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import gemm_blockscaled as gemm  # noqa: E402
import gemm_reference as ref  # noqa: E402

DTYPES = {"bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn}


@pytest.mark.parametrize("dtype, m, n, k", [
    pytest.param("bf16", 128, 128, 640, id="bf16-1-cta-10-k-steps-ring-wraps", marks=pytest.mark.slow),
    pytest.param("e4m3", 256, 128, 256, id="e4m3-2-ctas"),
])
def test_hopper_twin_on_tile_sim_is_mmasim_bit_for_bit(dtype, m, n, k, request):
    """tile_n 128 (wgmma m64n128) keeps the emulation short; the H200 runs tile_n 256 (the artifacts).
    The slow case compares D with MMA-Sim's model in full; the fast tier's with tile-sim's exact model
    of it in full and with MMA-Sim on sampled tiles (as the example's --run check: MMA-Sim's D takes
    fifteen times the emulation)."""
    cfg = gemm.GemmConfig("sm_90a", dtype, m, n, k, tile_n=128)
    d, logical = gemm.run(cfg, seed=3)
    if request.node.get_closest_marker("slow"):
        want = gemm.expected(cfg, logical)
    else:
        want, (bad, _, compared) = ref.check_wgmma(*logical, progress=False)
        assert bad == 0 and compared > 0
    assert np.array_equal(d.view(np.uint16), want.view(np.uint16))


@pytest.mark.slow  # 256x512x640 GEMMs on tile-sim
@pytest.mark.parametrize("name", ["gemm_bf16_256x512x640", "gemm_e4m3_256x512x640"])
def test_h200_checked_artifact_is_mmasim(name):
    """The D shipped beside the cubin (tile-sim's, and the H200's: run_artifacts matched it) is MMA-Sim's."""
    base = os.path.join(ROOT, "test", "fixtures", "gemm-check", name)
    dtype = DTYPES[name.split("_")[1]]
    with np.load(base + ".inputs.npz") as z:
        a, b = z["A"].view(dtype), z["B"].view(dtype)
    with np.load(base + ".expected.npz") as z:
        d = z["D"]
    assert np.array_equal(ref.to_bf16(ref.mmasim_wgmma(a, b)).view(np.uint16), d)


@pytest.mark.slow  # compiles and assembles every configuration
def test_hopper_twin_ptx(tmp_path):
    """Per unrolled trip (2 x 4 stages) each consumer warpgroup issues 4 wgmma k16 per stage (LLVM may peel a
    first step apart: at least that many), one TMA load of A and of B per step; ptxas takes it."""
    import tile_mlir
    from tile_mlir.driver.toolchain import find_tool

    art = tile_mlir.compile(gemm.build(gemm.GemmConfig("sm_90a", "bf16", 256, 512, 4096)), arch="sm_90a")
    assert art.ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16") >= 2 * 8 * 4
    assert art.ptx.count("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes") == 2 * 8
    assert [tm.box_dim for tm in art.tensor_maps] == [(64, 128), (64, 256)]  # (innermost first)
    ptxas = find_tool("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not found")
    (tmp_path / "k.ptx").write_text(art.ptx)
    subprocess.run([ptxas, "-arch=sm_90a", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")], check=True)
