"""add / sub / mul / fma.rn.f32 on arrays of f32 codes (one word each): sim/fast_f32.py's rules over numpy
arrays, for lane_vec.py's vector forms. Each element is what fast_f32 returns for it -- the exact (fpexact)
result -- or is marked for the scalar function:

* finite normal operands: binary64 arithmetic (fma rounded to odd), one rounding to f32 (the reasons are in
  fast_f32's docstring); a result below the normal range is left to the scalar function, one past f32's range
  is the infinity of its sign (the rounding of a binary64 value to f32 overflows exactly where struct's, the
  scalar path's, does: both are the C conversion); an exact zero sum of nonzero terms is +0, in binary64 as
  in IEEE 754 under .rn (binary64 cannot round a nonzero sum of f32 values to zero);
* a zero operand among finite ones (IEEE 754 §6.3, as fast_f32): a zero term adds nothing, a zero factor gives
  the zero of the factors' sign product, an exact zero sum is -0 only when both terms are; fma with a zero
  addend and normal factors is the rounded product (the binary64 product is exact);
* an infinity or a NaN among the operands: the binary64 result, an infinity or the canonical NaN (F32.nan).

Subnormal nonzero operands other than a zero sum's other term, and subnormal results, go to the scalar
function. `test/python/sim/test_lane_f32.py` compares every element with fpexact on edge values.
"""
from __future__ import annotations

import numpy as np

from .fpformat import F32

__all__ = ["words"]

_U64 = np.uint64
_EXP = 0x7F800000
_MAG = 0x7FFFFFFF
_SIGN = 0x80000000
_MIN_NORMAL = 2.0 ** -126


def _f64(c):
    return c.astype(np.uint32).view(np.float32).astype(np.float64)


def _fma_odd(x, y, z):
    """fast_f32._fma_odd on arrays: x * y + z in binary64, rounded to odd."""
    p = x * y
    s = p + z
    bb = s - p
    err = (p - (s - bb)) + (z - bb)
    q = s.view(np.int64)
    fix = (err != 0) & ((q & 1) == 0)
    return np.where(fix, (q + np.where((err > 0) == (s > 0), 1, -1)).view(np.float64), s)


_ARITH = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y, "fma": _fma_odd}
_PLAIN = {**_ARITH, "fma": lambda x, y, z: x * y + z}  # (operands with an infinity or a NaN)


def _zero_sum(a, b):
    """fast_f32._zero_sum where a or b is a zero and neither is an infinity or a NaN."""
    return np.where(a & _MAG == 0, np.where(b & _MAG == 0, a & b, b), a)


def words(kind: str, xs):
    """(codes, ok) for ``kind`` in add / sub / mul / fma over the f32 codes ``xs`` (uint64 arrays of one
    shape, sign flips already applied): ``codes`` holds the exact results where ``ok``; elsewhere the caller
    computes them. Call under np.errstate(all="ignore")."""
    e = [x & _EXP for x in xs]
    normal = [(v != 0) & (v != _EXP) for v in e]
    zero = [x & _MAG == 0 for x in xs]
    special = e[0] == _EXP
    for v in e[1:]:
        special |= v == _EXP
    vals = [_f64(x) for x in xs]
    r = _ARITH[kind](*vals)
    codes = r.astype(np.float32).view(np.uint32).astype(_U64)
    ok = normal[0] & normal[1]
    if kind == "fma":
        ok &= normal[2] | zero[2]  # (a zero addend: the product, rounded once)
    ok &= (np.abs(r) >= _MIN_NORMAL) | (r == 0)  # (an overflow is an infinity: kept)
    a, b = xs[0], xs[1]
    z = (zero[0] | zero[1]) & ~special  # (a zero among the first two operands, nothing special)
    if kind == "fma":
        zr = _zero_sum((a ^ b) & _SIGN, xs[2])
    elif kind == "mul":
        zr = (a ^ b) & _SIGN
    else:
        zr = _zero_sum(a, b ^ _SIGN if kind == "sub" else b)
    if special.any():
        s = _PLAIN[kind](*vals)
        sr = np.where(np.isnan(s), _U64(F32.nan), np.where(s < 0, _U64(0xFF800000), _U64(0x7F800000)))
        codes = np.where(special, sr, codes)
    codes = np.where(z, zr, codes)
    return codes, ok | z | special
