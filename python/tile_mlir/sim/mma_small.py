"""MMA-Sim's truncated fused sum (T-FDPA, mma_fast.t_fdpa) for the warp-sized tiles of mma.sync,
in float64: exact for finite inputs, and a few numpy calls per group instead of t_fdpa's passes
over integer planes, whose fixed cost dominates a 16x8x16 tile.

Why float64 is exact here: every product of two inputs of at most 11 significant bits (f16, tf32,
bf16, fp8) is exact; scaling it by 2^(F - e_max) is exact; each truncated term is an integer below
2^(F + 2) and the K + 1 of them sum below 2^53.  The exponent E of a term is the sum of its inputs'
exponents, each the input's floor(log2 |x|) clamped at the format's subnormal exponent (a
subnormal input keeps the exponent of the format's smallest normal), as mma_fast.decode gives it;
a zero term never sets e_max, but a group with a zero product, or a zero C, lifts e_max to at
least ``e_zero``.  The rounding into D is mma_fast's.  Inputs with a NaN or an infinity (or a
group whose result overflowed, for the groups after it) go to mma_fast.t_fdpa.
test/python/sim/test_mma_sync.py checks this path against MMA-Sim and against mma_fast.
"""

from __future__ import annotations

import numpy as np

from . import mma_fast

#: element type -> the exponent of its smallest normal number (subnormals are clamped to it)
EMIN = {"f16": -14, "bf16": -126, "tf32": -126, "f32": -126, "e4m3": -6, "e5m2": -14}
_LUT: dict = {}


def _fp8_table(etype):
    t = _LUT.get(etype)
    if t is None:
        bits = np.arange(256, dtype=np.uint8)
        t = _LUT[etype] = np.asarray(_fp8_values(bits, etype), np.float64)
    return t


def _fp8_values(bits, etype):
    E, M = (4, 3) if etype == "e4m3" else (5, 2)
    bias = (1 << (E - 1)) - 1
    b = bits.astype(np.int64)
    s = np.where(b >> 7, -1.0, 1.0)
    e = (b >> M) & ((1 << E) - 1)
    m = b & ((1 << M) - 1)
    v = np.where(e == 0, m * 2.0 ** (1 - bias - M), (m + (1 << M)) * np.exp2(e - bias - M))
    v = s * v
    if etype == "e4m3":
        v = np.where((e == 15) & (m == 7), np.nan, v)
    else:
        v = np.where(e == 31, np.where(m == 0, s * np.inf, np.nan), v)
    return v


def values(bits: np.ndarray, etype: str) -> np.ndarray:
    """float64 values of bit patterns of ``etype`` (tf32: an f32 pattern, low 13 bits dropped)."""
    with np.errstate(invalid="ignore"):  # NaN patterns: their values are only tested for NaN
        return _values(bits, etype)


def _values(bits, etype):
    if etype == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if etype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if etype == "tf32":
        return (bits.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    if etype == "f32":
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    return _fp8_table(etype)[bits.astype(np.uint8)]


def _exponents(v: np.ndarray, etype: str) -> np.ndarray:
    _, e = np.frexp(v)
    return np.maximum(e.astype(np.int64) - 1, EMIN[etype])


def t_fdpa(a_bits, b_bits, c_bits, atype, btype, dtype, *, F, rho, e_zero, L):
    """mma_fast.t_fdpa's result for small tiles."""
    a, b = values(a_bits, atype), values(b_bits, btype)
    c = values(c_bits, "f16" if dtype == "f16" else "f32")
    if not (np.isfinite(a).all() and np.isfinite(b).all() and np.isfinite(c).all()):
        return mma_fast.t_fdpa(a_bits, b_bits, c_bits, atype, btype, dtype, F=F, rho=rho,
                               e_zero=e_zero, L=L)
    ea, eb = _exponents(a, atype), _exponents(b, btype)
    low = -(1 << 20)
    ea = np.where(a == 0, low, ea)
    eb = np.where(b == 0, low, eb)
    K = a.shape[1]
    cty = "f16" if dtype == "f16" else "f32"
    for k0 in range(0, K, L):
        if k0 and not np.isfinite(c).all():  # a group overflowed: its infinities go on exactly
            return mma_fast.t_fdpa(a_bits[:, k0:], b_bits[k0:], c_bits, atype, btype, dtype,
                                   F=F, rho=rho, e_zero=e_zero, L=L)
        ag, bg = a[:, k0:k0 + L], b[k0:k0 + L]
        E = ea[:, k0:k0 + L, None] + eb[None, k0:k0 + L, :]  # (M, L, N)
        P = ag[:, :, None] * bg[None, :, :]
        ec = np.where(c == 0, e_zero, _exponents(c, cty))
        zero_product = (P == 0).any(axis=1)
        floor = np.maximum(np.where(zero_product, e_zero, ec), ec)
        emax = np.maximum(E.max(axis=1), floor)  # (M, N)
        scale = (F - emax).astype(np.int64)
        terms = np.trunc(np.ldexp(P, scale[:, None, :]))
        total = terms.sum(axis=1) + np.trunc(np.ldexp(c, scale))
        bits = mma_fast._round(total.astype(np.int64), emax.astype(np.int32), F, rho)
        c = values(bits, cty)
        c_bits = bits
    return c_bits
