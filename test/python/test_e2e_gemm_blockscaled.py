"""The block-scaled GEMM of examples/gemm_blockscaled.py: its numpy references (examples/gemm_reference.py)
against literal values, then the kernels on tile-sim against them (docs/gemm-walkthrough.md)."""
from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "examples"))

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
    a, sfa, b, sfb = ref.random_blockscaled(fmt, 130, 16, 4 * fmt.mma_k, seed=5)
    got = ref.mmasim_blockscaled(a, sfa, b, sfb, fmt)
    exact = ref.exact_blockscaled(a, sfa, b, sfb, fmt)
    mag = np.abs(ref.dequantize(a, sfa, fmt)) @ np.abs(ref.dequantize(b, sfb, fmt)).T
    assert got.dtype == np.float32 and got.shape == (130, 16)
    assert np.all(np.abs(got - exact) <= 4 * 2.0 ** -22 * mag)
