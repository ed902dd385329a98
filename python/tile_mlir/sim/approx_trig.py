"""Bit-exact models of sin.approx.f32, cos.approx.f32 and tanh.approx.f32 as an sm_90 GPU executes
them (docs/emulator.md §14).

sin / cos: ptxas multiplies x by the f32 nearest 1/(2 pi) rounding towards zero (r, in revolutions);
the unit takes |r| in fixed point with 25 fraction bits (truncated), k = that value mod 2^25, and the
result is a function of (sign of r, k): sin is odd in r, cos even, sin(k + 2^24) = -sin(k) and
cos(k) = sin(k + 2^23) exactly, so one measured table over half a turn serves both. The .ftz forms
are the same code.
tanh: odd, the identity below 2^-8, and above it a step function of x whose steps are the measured
change points. Bit patterns in and out (uint32), any array module ``xp``.
"""

from __future__ import annotations

import numpy as np

from .approx_math import QNAN32, fields, quiet
from .approx_tables import table

INV_2PI_F32 = 0x3E22F983    # the f32 operand of ptxas's multiply
PHASE_BITS = 25


def fmul_rz_inv2pi(a, xp=np):
    """fmul.rz.f32(x, 1/(2 pi)) as bits: the f64 product is exact; truncate it to f32 (subnormals
    kept: the multiply is not .ftz)."""
    with quiet(xp):
        x = a.astype(xp.uint32).view(xp.float32).astype(xp.float64)
        c = np.float64(np.array(INV_2PI_F32, np.uint32).view(np.float32))
        p = x * c
        pb = p.view(xp.uint64)
        t = (pb & xp.uint64(0xFFFFFFFFE0000000)).view(xp.float64)        # 24 significant bits
        ap = xp.abs(p)
        sub = xp.floor(ap * 2.0 ** 149) * 2.0 ** -149                   # f32 subnormal grid
        t = xp.where(ap < 2.0 ** -126, xp.copysign(sub, p), t)
        return t.astype(xp.float32).view(xp.uint32)


def phase(a, xp=np):
    """(sign of r, k) for x: k = trunc(|r| * 2^25) mod 2^25; a subnormal r counts as 0."""
    s, e, m = fields(fmul_rz_inv2pi(a, xp), xp)
    sh = e - 127 + 2
    mant = m | 0x800000
    fx = xp.where(sh >= 0, mant << xp.clip(sh, 0, 25), mant >> xp.clip(-sh, 0, 63))
    k = xp.where((e == 0) | (sh >= 25), 0, fx & ((1 << PHASE_BITS) - 1))
    return s, k


HALF = 1 << (PHASE_BITS - 1)
QUARTER = 1 << (PHASE_BITS - 2)


def _sin_of_phase(k, xp):
    """sin at phase k (of 2^25 per turn): the half-period table, negated in the second half."""
    r = table("sin_half", xp)[k & (HALF - 1)].astype(xp.int64)
    return r ^ ((k >= HALF).astype(xp.int64) << 31)


def _sincos(a, xp, which):
    s, k = phase(a, xp)
    if which == "sin":      # odd in r
        r = _sin_of_phase(k, xp) ^ (s << 31)
    else:                   # even in r; cos(k) = sin(k + a quarter turn)
        r = _sin_of_phase((k + QUARTER) & ((1 << PHASE_BITS) - 1), xp)
    e = (a.astype(xp.uint32) >> 23) & 0xFF
    return xp.where(e == 0xFF, QNAN32, r).astype(xp.uint32)


def sin_f32(a, ftz=False, xp=np):
    return _sincos(a, xp, "sin")


def cos_f32(a, ftz=False, xp=np):
    return _sincos(a, xp, "cos")


TANH_IDENTITY_BELOW = 0x3B800000    # 2^-8


def tanh_f32(a, xp=np):
    a = a.astype(xp.uint32)
    mag = a & 0x7FFFFFFF
    cp_, val = table("tanh_cp", xp), table("tanh_val", xp)
    i = xp.searchsorted(cp_, mag, side="right") - 1
    y = xp.where(mag < TANH_IDENTITY_BELOW, mag, val[xp.maximum(i, 0)])
    y = xp.where(mag > 0x7F800000, QNAN32, y | (a & 0x80000000))
    return y.astype(xp.uint32)
