"""Bit-exact models of the PTX ``.approx`` f32 instructions ex2, lg2, rcp, rsqrt, sqrt as an sm_90
GPU executes them (docs/emulator.md §14 says how each was derived and proven).

Every ``.approx`` instruction is one special-function-unit operation (MUFU) that flushes subnormal
inputs and outputs; the forms without ``.ftz`` are that operation wrapped by ptxas in a pre-scale of
subnormal (or huge) inputs and a post-scale of the result by ordinary f32 multiplies / adds, which the
models repeat. A MUFU operation computes its function over a reduced domain (the mantissa; the
fixed-point fraction for ex2) and then applies the exponent exactly; the reduced-domain function is
the measured table of :mod:`.approx_tables`.

Each model takes and returns bit patterns (uint32 arrays; uint64 for f64) and is written against an
array module ``xp`` (numpy here, cupy in bench/gpu/approx/check.py), so the code proven over all 2^32
inputs on the GPU is the code tile-sim runs.
"""

from __future__ import annotations

import numpy as np

from .approx_tables import table

QNAN32 = 0x7FFFFFFF     # the NaN every MUFU operation returns
INF32, NINF32 = 0x7F800000, 0xFF800000
FLT_MIN = 2.0 ** -126


def quiet(xp):
    """numpy's floating-point warnings are expected (inf * 0, overflow): silence them (other array
    modules do not warn; numpy's state is all this touches)."""
    return np.errstate(all="ignore")


def fields(a, xp):
    a = a.astype(xp.uint32)
    return ((a >> 31).astype(xp.int64), ((a >> 23) & 0xFF).astype(xp.int64),
            (a & 0x7FFFFF).astype(xp.int64))


# ---- MUFU operations (flush subnormal inputs to zero, subnormal results to zero)

def mufu_ex2(a, xp=np):
    """2^x: |x| in fixed point with 23 fraction bits (truncated), the integer part added to the
    exponent, the fraction looked up (one table for x >= 0, one for x < 0: 2^-f is not 2^(1-f)/2)."""
    s, e, m = fields(a, xp)
    sh = e - 127                                # |x| * 2^23 = (1.m * 2^23) * 2^sh
    mant = m | 0x800000
    fx = xp.where(sh >= 0, mant << xp.clip(sh, 0, 8), mant >> xp.clip(-sh, 0, 63))
    fx = xp.where(e == 0, 0, fx)
    i, g = fx >> 23, fx & 0x7FFFFF
    pos = table("ex2_pos", xp)[g].astype(xp.int64) + (i << 23)
    neg = table("ex2_neg", xp)[g].astype(xp.int64) - (i << 23)
    r = xp.where(s == 0, xp.where((pos >= INF32) | (sh >= 8), INF32, pos),
                 xp.where((neg < 0x800000) | (sh >= 8), 0, neg))
    return xp.where((e == 255) & (m != 0), QNAN32, r).astype(xp.uint32)


def _ulp_f32(v, xp):
    """ulp of f32 values of magnitude v >= 1 (f64 array)."""
    return xp.ldexp(xp.ones_like(v), (xp.frexp(v)[1] - 24).astype(xp.int32))


def mufu_lg2(a, xp=np):
    """log2 x = E + L(m), L a fixed-point value with more bits than f32 keeps; the sum truncated to f32
    (towards zero). The tables give L rounded down (E = 0) and rounded up (E = -1 keeps -(1 - L))."""
    s, e, m = fields(a, xp)
    E = e - 127
    l0, lm1 = table("lg2_e0", xp), table("lg2_em1", xp)
    lo = value(l0[m], xp)            # floor of L at f32 precision
    hi = 1.0 + value(lm1[m], xp)     # ceiling of L at the precision of 1 - L
    ep = xp.maximum(E, 1).astype(xp.float64)
    q = _ulp_f32(ep, xp)
    pos = round_f32(ep + xp.floor(lo / q) * q, xp)   # exact
    en = xp.maximum(-E, 2).astype(xp.float64)
    q = _ulp_f32(en - 1.0, xp)
    neg = round_f32(-(en - xp.ceil(hi / q) * q), xp)
    r = xp.where(E >= 1, pos, xp.where(E <= -2, neg, xp.where(E == 0, l0[m], lm1[m]))).astype(xp.int64)
    r = xp.where(e == 0, NINF32, r)
    r = xp.where((s == 1) & (e != 0), QNAN32, r)
    r = xp.where(e == 255, xp.where((m == 0) & (s == 0), INF32, QNAN32), r)
    return r.astype(xp.uint32)


def mufu_rcp(a, xp=np):
    """1/x: the mantissa's reciprocal looked up, the exponent negated."""
    s, e, m = fields(a, xp)
    r = table("rcp", xp)[m].astype(xp.int64) + ((127 - e) << 23)
    r = xp.where(r < 0x800000, 0, r)
    r = xp.where(e == 0, INF32, xp.where(e == 255, xp.where(m == 0, 0, QNAN32), r))
    return xp.where((e == 255) & (m != 0), r, r | (s << 31)).astype(xp.uint32)


def _rsqrt_like(a, xp, name):
    """1/sqrt(x) or sqrt(x) of x = m * 2^(2k + p): the table over [1, 4) (index p, m), the exponent k."""
    s, e, m = fields(a, xp)
    E = e - 127
    k, p = E >> 1, E & 1
    t = table(name, xp)[(p << 23) | m].astype(xp.int64)
    if name == "sqrt":
        r = xp.where(e == 255, xp.where(m == 0, INF32, QNAN32), t + (k << 23))
        return xp.where(e == 0, s << 31, xp.where(s == 1, QNAN32, r)).astype(xp.uint32)
    r = xp.where(e == 255, xp.where(m == 0, 0, QNAN32), t - (k << 23))
    r = xp.where(s == 1, QNAN32, r)
    return xp.where(e == 0, INF32 | (s << 31), r).astype(xp.uint32)


def mufu_rsq(a, xp=np):
    return _rsqrt_like(a, xp, "rsqrt")


def mufu_sqrt(a, xp=np):
    return _rsqrt_like(a, xp, "sqrt")


# ---- the PTX forms: .ftz is the MUFU operation; without .ftz, ptxas's scaling around it. The f32
# multiplies and adds of that scaling are done in f64 (exact) and rounded once to f32 with
# subnormals kept (:func:`round_f32`): an array module may flush f32 subnormals (cupy does).

def value(a, xp):
    """f32 bit patterns -> their exact values as f64 (subnormals included, without f32 arithmetic)."""
    s, e, m = fields(a, xp)
    v = xp.ldexp((m + xp.where(e == 0, 0, 1 << 23)).astype(xp.float64),
                 (xp.maximum(e, 1) - 150).astype(xp.int32))
    v = xp.where(e == 255, xp.where(m == 0, xp.inf, xp.nan), v)
    return xp.where(s == 1, -v, v)


def round_f32(v, xp):
    """f64 values -> f32 bits rounded to nearest even, subnormal results kept, NaN -> 0x7FFFFFFF."""
    with quiet(xp):
        av = xp.abs(v)
        sub = xp.rint(av * 2.0 ** 149).astype(xp.int64)     # exact below 2^-126
        r = xp.where(av < FLT_MIN, sub, av.astype(xp.float32).view(xp.uint32).astype(xp.int64))
        r = r | (xp.signbit(v).astype(xp.int64) << 31)
        return xp.where(xp.isnan(v), QNAN32, r).astype(xp.uint32)


def ex2_f32(a, ftz, xp=np):
    if ftz:
        return mufu_ex2(a, xp)
    x = value(a, xp)    # x < -126: 2^x = (2^(x/2))^2, the square rounded to a subnormal
    lo = x < -126.0
    y = value(mufu_ex2(round_f32(xp.where(lo, x * 0.5, x), xp), xp), xp)
    return round_f32(xp.where(lo, y * y, y), xp)


def lg2_f32(a, ftz, xp=np):
    if ftz:
        return mufu_lg2(a, xp)
    x = value(a, xp)    # subnormal x: log2(x * 2^24) - 24
    lo = xp.abs(x) < FLT_MIN
    y = mufu_lg2(xp.where(lo, round_f32(x * 2.0 ** 24, xp), a), xp)
    return xp.where(lo, round_f32(value(y, xp) - 24.0, xp), y).astype(xp.uint32)


def rcp_f32(a, ftz, xp=np):
    if ftz:
        return mufu_rcp(a, xp)
    x = value(a, xp)    # subnormal x scaled by 2^24, |x| > 2^126 by 1/4; the result by the same
    ax = xp.abs(x)
    sc = xp.where(ax < FLT_MIN, 2.0 ** 24, 1.0)
    sc = xp.where(ax > 2.0 ** 126, 0.25, sc)
    y = mufu_rcp(xp.where(sc == 1.0, a, round_f32(x * sc, xp)), xp)
    return xp.where(sc == 1.0, y, round_f32(value(y, xp) * sc, xp)).astype(xp.uint32)


def _rsqrt_sqrt_f32(a, ftz, xp, mufu, post):
    if ftz:
        return mufu(a, xp)
    x = value(a, xp)    # subnormal x scaled by 2^24, the result by 2^12 (rsqrt) or 2^-12 (sqrt)
    lo = xp.abs(x) < FLT_MIN
    y = mufu(xp.where(lo, round_f32(x * 2.0 ** 24, xp), a), xp)
    return xp.where(lo, round_f32(value(y, xp) * post, xp), y).astype(xp.uint32)


def rsqrt_f32(a, ftz, xp=np):
    return _rsqrt_sqrt_f32(a, ftz, xp, mufu_rsq, 4096.0)


def sqrt_f32(a, ftz, xp=np):
    return _rsqrt_sqrt_f32(a, ftz, xp, mufu_sqrt, 2.0 ** -12)
