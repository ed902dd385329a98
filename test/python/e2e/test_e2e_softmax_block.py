"""The online-softmax step of an attention kernel, built from the tile.reg ops, on tile-sim, bit for bit against a
numpy model with the same order of operations (reg_math_kernels.py; ex2 by tile-sim's model).

A 128 x 128 f32 score tile S, in the layout tcgen05.ld 32x32b gives a warpgroup (sm_100a: thread 32w + l holds
row 32w + l) and in the wgmma accumulator layout of two consumer warpgroups (sm_90a: rows 64g.. in warpgroup g),
with the previous step's row max m_old and row sum l_old:

    S      = mask(S, causal: col > row + q_off)            tile.reg.mask
    m_tile = rowmax(S)                                      tile.reg.reduce max
    m_new  = max(m_old, m_tile)                             tile.reg.max
    m_sc   = m_new * scale                                  tile.reg.mul (scale: a row tile filled once)
    P      = 2^(S * scale - m_sc)                           tile.reg.exp2: fma.rn, ex2.approx.ftz
    alpha  = 2^(m_old * scale - m_sc)                       tile.reg.exp2 (the O rescale factor)
    l_new  = l_old * alpha + rowsum(P)                      tile.reg.reduce sum, tile.reg.fma
    P16    = bf16(P)                                        tile.convert (cvt.rn.bf16x2.f32)
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reg_math_kernels as rk  # noqa: E402
from tile_mlir import builders as tb  # noqa: E402

SCALE = np.float32(1.0 / np.sqrt(128.0) * np.log2(np.e))
Q_OFF = 3
# two consumer warpgroups, each a wgmma m64n128 accumulator: rows 64g + 16w + l/4 + 8h
WGMMA2 = "S[(2, 4, 2, 8, 16, 4, 2) : (4@warpid, 1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"
WGMMA2_ROW = "S[(2, 4, 2, 8, 1) : (4@warpid, 1@warpid, 1@reg, 4@laneid, 1@reg)] + R[4 : 1@laneid]"
CONFIGS = {
    "tcgen05_32x32b": ("sm_100a", 128, rk.ROWS.format(n=128), rk.ROW_VALUE),
    "wgmma_2_warpgroups": ("sm_90a", 256, WGMMA2, WGMMA2_ROW),
}


def build(tile_l: str, row_l: str, block: int):
    """k(S, M, L, P16, M_NEW, L_NEW, ALPHA): one online-softmax step."""
    n = 128
    with tb.module() as m:
        params = {"S": rk.glob_t((n, n)), "M": rk.glob_t((n, 1)), "L": rk.glob_t((n, 1)),
                  "P16": rk.glob_t((n, n), "bf16"), "M_NEW": rk.glob_t((n, 1)), "L_NEW": rk.glob_t((n, 1)),
                  "ALPHA": rk.glob_t((n, 1))}
        with tb.kernel(m, "k", params, block=(block, 1, 1)) as (_, (S, M, L, P16, M_NEW, L_NEW, ALPHA)):
            s = tb.alloc_reg(rk.reg_t((n, n), tile_l))
            p16 = tb.alloc_reg(rk.reg_t((n, n), tile_l, "bf16"))
            row = lambda: tb.alloc_reg(rk.reg_t((n, 1), row_l))  # noqa: E731
            m_old, l_old, m_tile, m_new, m_sc, alpha, l_tile, scale_row = (row() for _ in range(8))
            tb.copy(s, S, scope="cta")
            tb.copy(m_old, M, scope="cta")  # (every lane of a row loads its copy)
            tb.copy(l_old, L, scope="cta")
            scale = tb.const(float(SCALE))
            tb.reg_mask(s, s, tb.const(Q_OFF, "index"), kind="causal")
            tb.reg_reduce(m_tile, s, kind="max", axis=1)
            tb.reg_max(m_new, m_old, m_tile)
            tb.reg_fill(scale_row, scale)
            tb.reg_mul(m_sc, m_new, scale_row)
            tb.reg_exp2(s, s, scale, m_sc)
            tb.reg_exp2(alpha, m_old, scale, m_sc)
            tb.reg_reduce(l_tile, s, kind="sum", axis=1)
            tb.reg_fma(l_old, l_old, alpha, l_tile)
            tb.convert(p16, s, rounding="rn")
            tb.copy(P16, p16, scope="cta")
            for t, g in ((m_new, M_NEW), (l_old, L_NEW), (alpha, ALPHA)):
                tb.copy(g, t, scope="cta")  # (replica 0 of a row, lane l % 4 == 0, stores it)
            tb.ret()
    return m.module


def model(s, m_old, l_old, kind: str):
    """The kernel's arithmetic in its order: the reductions by reduce_plan's order (rows: a thread's 128
    columns folded in halves; wgmma: lane q's columns 8j + 2q + {0, 1} folded in halves, then lanes q ^ 1,
    q ^ 2), every rounding as the PTX rounds."""
    n = s.shape[0]
    row, col = np.arange(n)[:, None], np.arange(n)[None, :]
    s = np.where(col > row + Q_OFF, np.float32(-np.inf), s).astype(np.float32)

    def rowreduce(x, f):
        if kind == "tcgen05_32x32b":
            return rk.halving_fold(x, f)[:, None]
        per_lane = x.reshape(n, n // 8, 4, 2).transpose(0, 2, 1, 3).reshape(n, 4, n // 4)
        p = rk.halving_fold(per_lane, f)
        p = f(p, p[:, [1, 0, 3, 2]])
        p = f(p, p[:, [2, 3, 0, 1]])
        return p[:, :1]

    m_tile = rowreduce(s, np.fmax)
    m_new = np.fmax(m_old, m_tile)
    m_sc = (m_new * SCALE).astype(np.float32)
    p = rk.ex2(rk.fma_rn(s, SCALE, np.broadcast_to(-m_sc, s.shape)))
    alpha = rk.ex2(rk.fma_rn(m_old, SCALE, -m_sc))
    l_new = rk.fma_rn(l_old, alpha, rowreduce(p, rk.add))
    return rk.to_bf16(p), m_new, l_new, alpha


@pytest.mark.parametrize("name", list(CONFIGS))
def test_online_softmax_step_is_its_model_bit_for_bit(name, tmp_path):
    arch, block, tile_l, row_l = CONFIGS[name]
    ptx = rk.compile_ptx(build(tile_l, row_l, block), arch)
    from e2e_kernels import find_ptxas, ptxas

    if find_ptxas() is not None:
        ptxas(ptx, find_ptxas(), arch)
    rng = np.random.default_rng(7)
    s = (rng.standard_normal((128, 128)) * 3).astype(np.float32)
    prev = (rng.standard_normal((128, 128)) * 3).astype(np.float32)
    m_old = prev.max(axis=1, keepdims=True)  # the previous step's max and sum
    l_old = (rng.random((128, 1)) * 50 + 1).astype(np.float32)
    p16 = np.zeros((128, 128), rk.to_bf16(0).dtype)
    m_new, l_new, alpha = (np.zeros((128, 1), np.float32) for _ in range(3))
    rk.run(ptx, [s, m_old, l_old, p16, m_new, l_new, alpha], block=block)
    want = model(s, m_old, l_old, name)
    for got, exp in zip((p16, m_new, l_new, alpha), want):
        assert np.array_equal(got.view(np.uint16 if got.itemsize == 2 else np.uint32),
                              exp.view(np.uint16 if exp.itemsize == 2 else np.uint32))
    # and near the exact online softmax (float64): ex2.approx is within 2 ulp, bf16 within half an ulp
    m64 = np.maximum(m_old, np.where(np.arange(128)[None] > np.arange(128)[:, None] + Q_OFF, -np.inf, s).max(1, keepdims=True))
    p64 = np.exp2((np.where(np.arange(128)[None] > np.arange(128)[:, None] + Q_OFF, -np.inf, s) - m64) * float(SCALE))
    l64 = l_old * np.exp2((m_old - m64) * float(SCALE)) + p64.sum(1, keepdims=True)
    assert np.allclose(p16.astype(np.float64), p64, rtol=2 ** -8, atol=0)
    assert np.allclose(l_new, l64, rtol=1e-5)
