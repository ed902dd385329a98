"""Bit-exact models of the PTX ``.approx`` f64 instructions as an sm_90 GPU executes them:
``rcp.approx.ftz.f64`` and ``rsqrt.approx.ftz.f64`` are one special-function-unit operation on the
upper word of x (the lower word of x is ignored, that of the result is 0); ``rsqrt.approx.f64`` is
ptxas's refinement of that estimate by one f64 Newton-Raphson step (docs/emulator.md, "Approximate
math"). Bit patterns in and out (uint64), any array module ``xp`` (numpy, cupy).
"""

from __future__ import annotations

import numpy as np

from .approx_math import quiet
from .approx_tables import table


def _hi_fields(a, xp):
    h = (a.astype(xp.uint64) >> 32).astype(xp.int64)
    return h >> 31, (h >> 20) & 0x7FF, h & 0xFFFFF


def mufu_rcp64h(a, xp=np):
    """rcp.approx.ftz.f64: 1/x from the upper 20 mantissa bits; the lower result word is 0."""
    s, e, m = _hi_fields(a, xp)
    r = table("rcp64h", xp)[m].astype(xp.int64) + ((1023 - e) << 20)
    r = xp.where(r < 0x100000, 0, r)
    r = xp.where(e == 0, 0x7FF00000, xp.where(e == 2047, xp.where(m == 0, 0, -1), r))
    r = xp.where((e == 2047) & (m != 0), 0x7FFFFFFF, r | (s << 31))
    return (r.astype(xp.uint64) & 0xFFFFFFFF) << 32


def mufu_rsq64h(a, xp=np):
    """rsqrt.approx.ftz.f64: 1/sqrt(x) from the upper word; the lower result word is 0."""
    s, e, m = _hi_fields(a, xp)
    E = e - 1023
    k, p = E >> 1, E & 1
    r = table("rsqrt64h", xp)[(p << 20) | m].astype(xp.int64) - (k << 20)
    r = xp.where(e == 2047, xp.where(m == 0, 0, 0x7FFFFFFF), r)
    r = xp.where(s == 1, 0x7FFFFFFF, r)
    r = xp.where(e == 0, 0x7FF00000 | (s << 31), r)
    return (r.astype(xp.uint64) & 0xFFFFFFFF) << 32


# ---- rsqrt.approx.f64: y0 = MUFU(x); e = fma(-x, y0*y0, 1); y = fma(fma(e, 3/8, 1/2), y0*e, y0)

def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a):
    t = a * 134217729.0
    hi = t - (t - a)
    return hi, a - hi


def fma64(a, b, c, xp=np):
    """IEEE fma(a, b, c) rounded to nearest, from f64 operations: the exact product as a pair, its
    sum with c as a pair, the low parts added rounding to odd, then one rounding (Boldo and
    Melquiond's emulation). a and b are rebalanced by a power of two so that the split cannot
    overflow. Exact for the operands of the Newton step (no intermediate underflow)."""
    with quiet(xp):
        ea, eb = xp.frexp(a)[1], xp.frexp(b)[1]
        k = ((ea - eb) // 2).astype(xp.int32)
        ok = (a != 0) & (b != 0) & xp.isfinite(a) & xp.isfinite(b)
        k = xp.where(ok, k, 0)
        a, b = xp.ldexp(a, -k), xp.ldexp(b, k)
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        pl = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        uh, ul = _two_sum(c, p)
        t, te = _two_sum(pl, ul)
        tb = t.view(xp.int64)
        adj = (te != 0) & ((tb & 1) == 0)
        tb = xp.where(adj, xp.where((te > 0) == (t > 0), tb + 1, tb - 1), tb)
        r = uh + tb.view(xp.float64)
        return xp.where(ok & xp.isfinite(c) & xp.isfinite(p), r, a * b + c)


def _newton(x, xp):
    y0 = mufu_rsq64h(x.view(xp.uint64), xp).view(xp.float64)
    e = fma64(x, -(y0 * y0), xp.ones_like(x), xp)
    t = fma64(e, xp.full_like(x, 0.375), xp.full_like(x, 0.5), xp)
    return fma64(t, y0 * e, y0, xp)


def rsqrt_f64(a, xp=np):
    """rsqrt.approx.f64: positive normal x by one Newton step; the others by ptxas's slow path
    (subnormal x scaled by 2^54 and the result by 2^27; +-0 -> +-inf, NaN -> x + x quieted,
    negative -> the NaN 0xfff8..., +inf -> +0)."""
    a = a.astype(xp.uint64)
    with quiet(xp):
        x = a.view(xp.float64)
        hi = (a >> 32).astype(xp.int64)
        fast = ((hi - 0x100000) & 0xFFFFFFFF) < 0x7FE00000
        sub = ~fast & (x > 0) & xp.isfinite(x)
        r = _newton(xp.where(sub, x * 1.8014398509481984e16, x), xp)
        r = xp.where(sub, r * 134217728.0, r)
        r = xp.where(x == 0, xp.copysign(xp.inf, x), r)
        slow = ~(fast | sub | (x == 0))
        r = xp.where(slow, xp.where(xp.isnan(x), x + x, 0.0), r)
        return xp.where(slow & (x < 0), xp.uint64(0xFFF8000000000000), r.view(xp.uint64))
