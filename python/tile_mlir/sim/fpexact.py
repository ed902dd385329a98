"""Exact floating-point arithmetic of PTX: add, sub, mul, fma, div, sqrt and rcp (the IEEE forms, not
.approx) in every rounding mode, with .ftz, .sat and .relu (docs/emulator.md §13).

An operation is computed exactly -- a rational of Python ints -- and rounded once into the
destination format (fpformat.round_ratio).  The common case, f32 round-to-nearest add/sub/mul/fma,
takes a shorter path with the same result: the double sum of f32 values rounded to odd, then to f32
(fpformat.to_odd).  Special values follow IEEE 754: a NaN operand or an invalid operation gives the
format's canonical NaN (Table A21), an exact zero sum is +0 except in .rm (-0), unless both addends
are zeros of one sign.
"""

from __future__ import annotations

import math

from .fpformat import (F32, F64, RM, Format, decode, f32_rn, flush, is_subnormal, round_float,
                       round_ratio, to_odd, two_sum)

_INF, _NAN = math.inf, math.nan


class Spec:
    """One instruction's arithmetic: its format, rounding mode and modifiers."""
    __slots__ = ("fmt", "mode", "ftz", "sat", "relu", "satfinite", "in_fmt")

    def __init__(self, fmt: Format, mode: str, ftz=False, sat=False, relu=False, satfinite=False,
                 in_fmt: Format | None = None):
        self.fmt, self.mode, self.ftz, self.sat, self.relu = fmt, mode, ftz, sat, relu
        self.satfinite = satfinite
        self.in_fmt = in_fmt or fmt


def _in(code, s: Spec, f: Format | None = None):
    f = f or s.in_fmt
    if s.ftz and is_subnormal(code, f):
        code &= 1 << (f.bits - 1)
    return decode(code, f)


def _special(x: float, s: Spec) -> int:
    """A NaN or an infinity, computed exactly by the double arithmetic."""
    if x != x:
        return _finish(s.fmt.nan, s)
    return _finish(round_float(x, s.fmt, s.mode, s.satfinite), s)


def _finish(code: int, s: Spec) -> int:
    f = s.fmt
    if s.ftz:
        code = flush(code, f)
    if s.sat or s.relu:
        v = decode(code, f)
        if v != v:
            return 0 if s.sat else f.nan
        if v <= 0:
            return 0
        if s.sat and v > 1.0:
            return round_float(1.0, f, "rn")
    return code


def _zero(neg: bool, s: Spec) -> int:
    return _finish((1 << (s.fmt.bits - 1)) if neg else 0, s)


def _sum(terms, s: Spec, zero_sign) -> int:
    """Round the exact sum of rationals (neg, n, d) with power-of-two d."""
    d = max(t[2] for t in terms)
    n = sum((-t[1] if t[0] else t[1]) * (d // t[2]) for t in terms)
    if n == 0:
        return _zero(zero_sign, s)
    return _finish(round_ratio(n < 0, abs(n), d, s.fmt, s.mode, s.satfinite), s)


def _r(x: float):
    n, d = abs(x).as_integer_ratio()
    return (math.copysign(1.0, x) < 0, n, d)


def _sign(x):
    return math.copysign(1.0, x) < 0


def add(a: int, b: int, s: Spec, negb=False) -> int:
    x, y = _in(a, s), _in(b, s)
    if negb:
        y = -y
    if s.fmt is F32 and s.mode == "rn" and not (s.ftz or s.sat or s.relu or s.satfinite):
        r, e = two_sum(x, y)
        if r != r:
            return F32.nan
        if r == 0 and e == 0:
            return _zero(_sign(x) and _sign(y) if x == 0 and y == 0 else s.mode == RM, s)
        return f32_rn(to_odd(r, e) if math.isfinite(r) else r)
    r = x + y
    if not math.isfinite(r) and not (math.isfinite(x) and math.isfinite(y)):
        return _special(r, s)
    zs = (_sign(x) and _sign(y)) if (x == 0 and y == 0) else s.mode == RM
    return _sum([_r(x), _r(y)], s, zs)


def mul(a: int, b: int, s: Spec) -> int:
    x, y = _in(a, s), _in(b, s)
    if s.fmt is F32 and s.mode == "rn" and not (s.ftz or s.sat or s.relu or s.satfinite):
        r = x * y  # exact in a double
        return F32.nan if r != r else f32_rn(r)
    r = x * y
    if not (math.isfinite(x) and math.isfinite(y)):
        return _special(r, s)
    if r == 0 and (x == 0 or y == 0):
        return _zero(_sign(x) != _sign(y), s)
    (sx, nx, dx), (sy, ny, dy) = _r(x), _r(y)
    return _finish(round_ratio(sx != sy, nx * ny, dx * dy, s.fmt, s.mode, s.satfinite), s)


def fma(a: int, b: int, c: int, s: Spec, c_fmt: Format | None = None) -> int:
    x, y, z = _in(a, s), _in(b, s), _in(c, s, c_fmt)
    if s.fmt is F32 and s.in_fmt is F32 and s.mode == "rn" and \
            not (s.ftz or s.sat or s.relu or s.satfinite):
        p = x * y  # exact in a double
        r, e = two_sum(p, z)
        if r != r:
            return F32.nan
        if math.isfinite(r) and math.isfinite(p) and math.isfinite(z):
            if r == 0 and e == 0:
                both = p == 0 and z == 0
                return _zero((_sign(p) and _sign(z)) if both else False, s)
            return f32_rn(to_odd(r, e))
        return f32_rn(r)
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        return _special(x * y + z, s)
    pneg = _sign(x) != _sign(y)
    if x == 0 or y == 0:
        pt = (pneg, 0, 1)
    else:
        (sx, nx, dx), (sy, ny, dy) = _r(x), _r(y)
        pt = (pneg, nx * ny, dx * dy)
    zt = _r(z)
    zs = (pneg and _sign(z)) if (pt[1] == 0 and z == 0) else s.mode == RM
    return _sum([pt, zt], s, zs)


def div(a: int, b: int, s: Spec) -> int:
    x, y = _in(a, s), _in(b, s)
    if x != x or y != y or (x == 0 and y == 0) or (math.isinf(x) and math.isinf(y)):
        return _finish(s.fmt.nan, s)
    neg = _sign(x) != _sign(y)
    if math.isinf(x) or y == 0:
        return _special(-_INF if neg else _INF, s)
    if math.isinf(y) or x == 0:
        return _zero(neg, s)
    (_, nx, dx), (_, ny, dy) = _r(x), _r(y)
    return _finish(round_ratio(neg, nx * dy, dx * ny, s.fmt, s.mode, s.satfinite), s)


def rcp(a: int, s: Spec) -> int:
    one = round_float(1.0, s.in_fmt, "rn")
    return div(one, a, s)


def sqrt(a: int, s: Spec) -> int:
    x = _in(a, s)
    if x != x or x < 0:
        return _finish(s.fmt.nan, s)
    if x == 0 or math.isinf(x):
        return _finish(round_float(x, s.fmt, "rn"), s)
    n, d = x.as_integer_ratio()  # d = 2^j
    j = d.bit_length() - 1
    m = (j + 1) // 2 + s.fmt.mbits + 4  # sqrt(x) = sqrt(n * 2^(2m - j)) / 2^m, >= mbits+3 bits
    big = n << (2 * m - j)
    r = math.isqrt(big)
    if r * r == big:
        return _finish(round_ratio(False, r, 1 << m, s.fmt, s.mode, s.satfinite), s)
    # inexact: (2r + 1) / 2^(m+1) lies strictly between r / 2^m and the next one, so it rounds
    # as the exact root does
    return _finish(round_ratio(False, 2 * r + 1, 1 << (m + 1), s.fmt, s.mode, s.satfinite), s)


F32_NAN, F64_NAN = F32.nan, F64.nan
