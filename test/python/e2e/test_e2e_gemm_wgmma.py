"""End to end: gemm_async -> wgmma (sm_90a) -> ptxas -> tile-sim, one case per wgmma type (f16, bf16, tf32,
e4m3/e5m2, s8/u8), K- and MN-major operands, every swizzle, accumulate on and off.

D must be, bit for bit, what MMA-Sim's Hopper model gives on the logical matrices (e2e_gemm_kernels.
mma_reference, one call per K-step), and within a stated bound of the exact product: float kinds
|D - (A.B^T + C)| <= BOUND[type] * (|A|.|B|^T + |C|) elementwise; s8/u8 exactly A.B^T + C wrapped to s32.
The bounds are loose statements of what the accumulators keep (PTX ISA wgmma "precision": f16/bf16/tf32
accumulate in at least single precision; e4m3/e5m2 "lower than single precision", DeepSeek-V3 §3.3:
about 14 bits), not a model of them.
"""

import os

import numpy as np
import pytest


from e2e_gemm_kernels import (exact_reference, mma_reference, random_bits, run_wgmma, values,  # noqa: E402
                              wgmma_text)
from e2e_kernels import find_ptxas  # noqa: E402

PTXAS = find_ptxas()
BOUND = {"f16": 2.0 ** -20, "bf16": 2.0 ** -20, "f32": 2.0 ** -20, "f8E4M3FN": 2.0 ** -10, "f8E5M2": 2.0 ** -10}


def kmajor(rows, k, elem, bits, sw):
    """K-major [rows, k]: core matrices (sw 0) or rows of sw-byte swizzle spans."""
    if sw == 0:
        t = 128 // bits
        return (f'!tile.buffer<shared, {rows}x{k}x{elem}, "S[({rows // 8}, 8, {k // t}, {t}) : '
                f'({8 * t}, {t}, {rows * t}, 1)]", align 128>')
    e = sw * 8 // bits  # elements in one swizzle row; K beyond it goes to the next column of atoms
    lay = f"S[({rows}, {k}) : ({e}, 1)]" if k <= e else f"S[({rows}, {k // e}, {e}) : ({e}, {rows * e}, 1)]"
    return f'!tile.buffer<shared, {rows}x{k}x{elem}, "Swizzle<{sw}B> o {lay}", align {sw * 8}>'


def mnmajor(rows, k, elem, bits, sw):
    """MN-major [rows, k]: rows contiguous in sw-byte swizzle rows, K rows sw bytes apart."""
    e = sw * 8 // bits
    lay = (f"S[({rows}, {k}) : (1, {e})]" if rows <= e else f"S[({rows // e}, {e}, {k}) : ({e * k}, 1, {e})]")
    return f'!tile.buffer<shared, {rows}x{k}x{elem}, "Swizzle<{sw}B> o {lay}", align {sw * 8}>'


# (id, A elem, B elem, A type, B type, K, N, accumulate)
CASES = [
    ("bf16_k128B_acc", "bf16", "bf16", kmajor(64, 32, "bf16", 16, 128), kmajor(16, 32, "bf16", 16, 128), 32, 16, True),
    ("f16_mn64B", "f16", "f16", mnmajor(64, 16, "f16", 16, 64), mnmajor(32, 16, "f16", 16, 64), 16, 32, False),
    ("tf32_k32B_acc", "f32", "f32", kmajor(64, 16, "f32", 32, 32), kmajor(8, 16, "f32", 32, 32), 16, 8, True),
    ("e4m3_e5m2_none", "f8E4M3FN", "f8E5M2", kmajor(64, 64, "f8E4M3FN", 8, 0), kmajor(16, 64, "f8E5M2", 8, 0),
     64, 16, True),
    ("s8_u8_k64B_acc", "si8", "ui8", kmajor(64, 32, "si8", 8, 64), kmajor(24, 32, "ui8", 8, 64), 32, 24, True),
]


@pytest.mark.parametrize("name,ae,be,a_t,b_t,k,n,acc", CASES, ids=[c[0] for c in CASES])
def test_wgmma_on_tile_sim(name, ae, be, a_t, b_t, k, n, acc):
    _check(name, ae, be, a_t, b_t, k, n, acc, {})


@pytest.mark.parametrize("flag", [0, 1])
def test_wgmma_computed_accumulate_by_the_second_warpgroup(flag):
    """The accumulate operand computed at run time (scf.if between scale-d zero and one), the accumulator
    held and the gemm issued by warpgroup 1 of two (warps 4-7)."""
    _check(f"bf16_flag{flag}_wg1", "bf16", "bf16", kmajor(64, 16, "bf16", 16, 32), kmajor(8, 16, "bf16", 16, 32),
           16, 8, bool(flag), {"flag": True, "warpgroup": 1}, flag)


def _check(name, ae, be, a_t, b_t, k, n, acc, kernel_kw, flag=None):
    rng = np.random.default_rng(sum(map(ord, name)))
    d_elem = "i32" if ae in ("si8", "ui8") else "f32"
    a, b = random_bits(ae, (64, k), rng), random_bits(be, (n, k), rng)
    c = (rng.integers(-1000, 1000, (64, n)).astype(np.int32).view(np.uint32) if d_elem == "i32"
         else random_bits("f32", (64, n), rng))
    d = run_wgmma(wgmma_text(name, a_t, b_t, k, n, ae, be, d_elem, acc, **kernel_kw), a, b, c, PTXAS, flag)
    c_in = c if acc else np.zeros_like(c)
    assert np.array_equal(d, mma_reference("wgmma", ae, be, d_elem, a, b, c_in))
    if d_elem == "i32":
        exact = exact_reference(ae, be, a, b, c_in.view(np.int32).astype(np.int64))
        assert np.array_equal(d.view(np.int32).astype(np.int64), (exact + 2 ** 31) % 2 ** 32 - 2 ** 31)
    else:
        c64 = c_in.view(np.float32).astype(np.float64)
        exact = exact_reference(ae, be, a, b, c64)
        scale = np.abs(values(ae, a)) @ np.abs(values(be, b)).T + np.abs(c64)
        assert (np.abs(d.view(np.float32) - exact) <= BOUND[ae] * scale).all()
