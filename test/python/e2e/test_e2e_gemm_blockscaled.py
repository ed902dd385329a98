"""The block-scaled GEMM of examples/gemm_blockscaled.py: its numpy references (examples/gemm_reference.py)
against literal values, then the kernels on tile-sim against them (docs/gemm-walkthrough.md)."""
from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir, "examples"))

import gemm_reference as ref  # noqa: E402


# ------------------------------------------------------------------ the references, from literal values
def test_sf_atom_byte_positions():
    """The 128x4 atom: (r, kb) at (r % 32) * 16 + (r // 32) * 4 + kb (CUTLASS-SF), atoms K-first."""
    sf = np.zeros((256, 8), np.uint8)
    sf[33, 2] = 1     # atom (0, 0): 1 * 16 + 1 * 4 + 2 = 22
    sf[127, 3] = 2    # atom (0, 0): 31 * 16 + 3 * 4 + 3 = 511
    sf[128, 5] = 3    # atom (1, 1): 0 * 16 + 0 * 4 + 1 = 1
    sf[200, 4] = 4    # atom (1, 1): (72 % 32 = 8) * 16 + (72 // 32 = 2) * 4 + 0 = 136
    atoms = ref.sf_atoms(sf)
    assert atoms.shape == (2, 2, 512)
    assert {tuple(int(i) for i in ix): int(atoms[tuple(ix)]) for ix in np.argwhere(atoms)} == {
        (0, 0, 22): 1, (0, 0, 511): 2, (1, 1, 1): 3, (1, 1, 136): 4}


def test_sf_atoms_pad_to_whole_atoms():
    atoms = ref.sf_atoms(np.full((130, 5), 7, np.uint8))
    assert atoms.shape == (2, 2, 512)
    assert int((atoms == 7).sum()) == 130 * 5


def test_pack_e2m1_low_nibble_first():
    x = np.array([[0.5, 1.0, -6.0, 0.0]], ml_dtypes.float4_e2m1fn)  # codes 1, 2, 0xF, 0
    assert ref.pack_e2m1(x).tolist() == [[0x21, 0x0F]]


def test_scale_values():
    assert ref.scale_values(np.array([127, 128, 0, 254], np.uint8), ref.MXFP8).tolist() == [
        1.0, 2.0, 2.0 ** -127, 2.0 ** 127]
    # UE4M3: 0x38 = 1.0, 0x01 = 2^-9 (subnormal), 0x7E = 448
    assert ref.scale_values(np.array([0x38, 0x01, 0x7E], np.uint8), ref.NVFP4).tolist() == [1.0, 2.0 ** -9, 448.0]


def test_exact_reference_survives_cancellation_float64_loses():
    """Blocks 2^60, 1 and -2^60 (UE8M0 scales): the exact sum is 1, float64 summation in order gives 0."""
    fmt = ref.MXFP8
    a = np.zeros((1, 96), fmt.elem)
    b = np.zeros((1, 96), fmt.elem)
    a[0, 0], a[0, 32], a[0, 64] = 1.0, 1.0, -1.0
    b[0, 0], b[0, 32], b[0, 64] = 1.0, 1.0, 1.0
    sfa = np.array([[127 + 60, 127, 127 + 60]], np.uint8)
    sfb = np.full((1, 3), 127, np.uint8)
    assert ref.exact_blockscaled(a, sfa, b, sfb, fmt).tolist() == [[1.0]]
    terms = (ref.dequantize(a, sfa, fmt) * ref.dequantize(b, sfb, fmt))[0]
    assert sum(terms.tolist()) == 0.0


@pytest.mark.parametrize("fmt", [ref.MXFP8, ref.NVFP4], ids=lambda f: f.name)
def test_exact_reference_matches_dequantised_product_where_float64_is_exact(fmt):
    a, sfa, b, sfb = ref.random_blockscaled(fmt, 40, 24, 4 * fmt.vec, seed=3)
    want = ref.dequantize(a, sfa, fmt) @ ref.dequantize(b, sfb, fmt).T  # 4 blocks, scales 2^+-4: exact
    np.testing.assert_array_equal(ref.exact_blockscaled(a, sfa, b, sfb, fmt), want)


@pytest.mark.parametrize("fmt", [ref.MXFP8, ref.NVFP4], ids=lambda f: f.name)
def test_mmasim_chain_is_within_fp32_of_exact(fmt):
    """MMA-Sim's model (one MMA per K step, fp32 D between steps) stays within a few fp32 ulps of the
    magnitude sum per step: |D - exact| <= steps * 2^-22 * sum_k |a_k b_k|."""
    a, sfa, b, sfb = ref.random_blockscaled(fmt, 100, 16, 2 * fmt.mma_k, seed=5)
    got = ref.mmasim_blockscaled(a, sfa, b, sfb, fmt)
    exact = ref.exact_blockscaled(a, sfa, b, sfb, fmt)
    mag = np.abs(ref.dequantize(a, sfa, fmt)) @ np.abs(ref.dequantize(b, sfb, fmt)).T
    assert got.dtype == np.float32 and got.shape == (100, 16)
    assert np.all(np.abs(got - exact) <= 2 * 2.0 ** -22 * mag)


# ------------------------------------------------------------------ the Blackwell kernels on tile-sim

import gemm_blockscaled as gemm  # noqa: E402


# (format, M, N, K, tiling): edge tiles in M and N (TMA zero-fills the loads and clips the store), K steps
# from 2 to 10 over a 4-stage ring (it wraps up to 2.5 times, and a trip of the unrolled loop is cut short),
# two SFB atoms per stage (tile_n 256), two stages only; CTA pairs (cta_group 2: the odd CTA's rows
# 128..255 of a pair's tile partly, then wholly past M, N's second tile mostly past N, the ring wrapping;
# tile_n 256 with 128 rows of B per CTA)
BLACKWELL_CASES = [
    pytest.param(ref.MXFP8, 128, 128, 256, {}, id="mxfp8-128x128x256"),
    pytest.param(ref.MXFP8, 136, 136, 1280, {}, id="mxfp8-136x136x1280-edges-ring-wraps", marks=pytest.mark.slow),
    pytest.param(ref.MXFP8, 128, 256, 384, {"tile_n": 256, "stages": 3}, id="mxfp8-128x256x384-tile-n-256", marks=pytest.mark.slow),
    pytest.param(ref.NVFP4, 128, 128, 512, {}, id="nvfp4-128x128x512"),
    pytest.param(ref.NVFP4, 130, 200, 768, {"stages": 2}, id="nvfp4-130x200x768-edges-2-stages", marks=pytest.mark.slow),
    pytest.param(ref.MXFP8, 200, 136, 640, {"cta_group": 2}, id="mxfp8-pair-200x136x640-edges-ring-wraps", marks=pytest.mark.slow),
    pytest.param(ref.MXFP8, 128, 128, 256, {"cta_group": 2}, id="mxfp8-pair-128x128x256-odd-half-past-m"),
    pytest.param(ref.NVFP4, 256, 256, 512, {"cta_group": 2, "tile_n": 256}, id="nvfp4-pair-256x256x512-tile-n-256", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("fmt, m, n, k, tiling", BLACKWELL_CASES)
def test_blockscaled_kernel_on_tile_sim(fmt, m, n, k, tiling, request):
    """Bit for bit MMA-Sim's Blackwell model of the kernel's instruction chain, rounded to bf16 (RNE),
    and within bf16 rounding plus the chain's fp32 error of the exact block-scaled product. The slow
    cases compare D with MMA-Sim's model in full; the fast tier's, as the example's --run check does,
    with tile-sim's exact model of it in full and with MMA-Sim on sampled tiles (MMA-Sim's D of
    128 x 128 x 512 takes ten times the emulation; the model is MMA-Sim's bit for bit:
    test/python/sim/test_mma_fast.py)."""
    cfg = gemm.GemmConfig("sm_100a", fmt.name, m, n, k, **tiling)
    d, (a, sfa, b, sfb) = gemm.run(cfg)
    if request.node.get_closest_marker("slow"):
        want = gemm.expected(cfg, (a, sfa, b, sfb))
    else:
        want, (bad, _, compared) = ref.check_blockscaled(a, sfa, b, sfb, fmt, progress=False)
        assert bad == 0 and compared > 0
    assert np.array_equal(d.view(np.uint16), want.view(np.uint16))
    exact = ref.exact_blockscaled(a, sfa, b, sfb, fmt)
    mag = np.abs(ref.dequantize(a, sfa, fmt)) @ np.abs(ref.dequantize(b, sfb, fmt)).T
    steps = k // fmt.mma_k
    assert np.all(np.abs(d.astype(np.float64) - exact) <= 2.0 ** -8 * np.abs(exact) + steps * 2.0 ** -22 * mag)


def test_pair_kernel_without_the_leaders_barrier_deadlocks():
    """The odd CTA's loads completing on its own (unarmed) `full` leave the leader's waiting for half the
    stage's bytes: what barrier_cta = "pair_leader" is for (docs/tma.md §8)."""
    import tile_mlir
    from tile_mlir.runtime import SimRunError

    from tile_mlir.dialect.ir_utils import iter_ops

    cfg = gemm.GemmConfig("sm_100a", "mxfp8", 128, 128, 256, cta_group=2)
    module = gemm.build(cfg)
    loads = [op for op in iter_ops(module.operation) if op.name == "tile.copy_async"
             and "barrier_cta" in op.attributes and str(op.attributes["barrier_cta"]) == '"pair_leader"']
    assert len(loads) == 8 * 4  # every load of the unrolled ring
    for op in loads:
        del op.attributes["barrier_cta"]
    args = gemm.operands(cfg)
    kernel = tile_mlir.jit(module, arch="sm_100a", backend="sim")
    half = (128 + 64) * 128 + 2 * 512  # the odd CTA's bytes of a stage: A, half of B, SFA, SFB
    with pytest.raises(SimRunError, match=rf"deadlock(.|\n)*CTA 0 warp 1 lanes 0: .*mbarrier.try_wait(.|\n)*"
                                             rf"of CTA 0 \(phase 0, pending 0/1, {2 * half} transaction bytes expected, "
                                             rf"{half} arrived \(tx-count {half}\)\)"):
        kernel(*[args[n] for n in ("A", "B", "SFA", "SFB")], np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16))


@pytest.mark.parametrize("cg", [1, 2])
def test_blockscaled_kernel_assembles_for_sm_100a(tmp_path, cg):
    """The PTX ptxas takes, with one tcgen05.cp per scale atom and four block-scaled MMAs per stage; a
    pair's loads complete on the leader's barrier (mapa) and its commits reach both CTAs."""
    import subprocess

    import tile_mlir
    from tile_mlir.driver.toolchain import find_tool

    art = tile_mlir.compile(gemm.build(gemm.GemmConfig("sm_100a", "mxfp8", 256, 256, 1024, cta_group=cg)),
                            arch="sm_100a")
    per_step = 4  # (K tile 128 = 4 x K 32), 8 unrolled steps
    assert art.ptx.count(f"tcgen05.mma.cta_group::{cg}.kind::mxf8f6f4.block_scale") == 8 * per_step
    assert art.ptx.count(f"tcgen05.cp.cta_group::{cg}.32x128b.warpx4") == 8 * 2
    loads = art.ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                          ".cta_group::2") + art.ptx.count("cp.async.bulk.tensor.3d.shared::cluster.global.tile"
                                                           ".mbarrier::complete_tx::bytes.cta_group::2")
    assert loads == (8 * 4 if cg == 2 else 0)
    assert ("mapa.shared::cluster" in art.ptx) == (cg == 2)
    commits = art.ptx.count(f"tcgen05.commit.cta_group::{cg}.mbarrier::arrive::one.shared::cluster")
    assert commits and art.ptx.count("multicast::cluster.b64") == (commits if cg == 2 else 0)
    ptx = tmp_path / "k.ptx"
    ptx.write_text(art.ptx)
    ptxas = find_tool("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not found")
    subprocess.run([ptxas, "-arch=sm_100a", str(ptx), "-o", str(tmp_path / "k.cubin")], check=True)


@pytest.mark.parametrize("kwargs, message", [
    ({"target": "sm_100a", "dtype": "bf16"}, "dtype for sm_100a must be one of mxfp8, nvfp4"),
    ({"target": "sm_100a", "dtype": "mxfp8", "k": 200}, "K=200 must be a multiple of the K tile 128"),
    ({"target": "sm_100a", "dtype": "nvfp4", "tile_n": 192}, "the Blackwell kernel takes 128 or 256"),
    ({"target": "sm_80", "dtype": "bf16"}, "target must be one of sm_90a, sm_100a"),
    ({"target": "sm_100a", "dtype": "mxfp8", "stages": 1}, "the ring needs at least 2 stages"),
    ({"target": "sm_100a", "dtype": "mxfp8", "n": 100}, "at least one whole 128 x 128 tile"),
    ({"target": "sm_100a", "dtype": "mxfp8", "tile_n": 256}, "4 stages of this tiling need 26[0-9]+ bytes"),
    ({"target": "sm_100a", "dtype": "mxfp8", "n": 260}, "N=260 must be a multiple of 8"),
    ({"target": "sm_90a", "dtype": "bf16", "m": 320}, "whole 128 x 256 tiles only"),
    ({"target": "sm_90a", "dtype": "bf16", "cta_group": 2}, "cta_group=2: 1, or 2 \\(CTA pairs\\) on sm_100a"),
    ({"target": "sm_100a", "dtype": "mxfp8", "cta_group": 4}, "cta_group=4: 1, or 2"),
])
def test_config_refuses(kwargs, message):
    base = {"m": 256, "n": 256, "k": 512}
    with pytest.raises(ValueError, match=message):
        gemm.GemmConfig(**{**base, **kwargs})
