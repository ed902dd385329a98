"""Scalar fast paths, on bit patterns, for the f32 instructions a softmax runs per element: add / sub / mul /
fma with .rn and no other modifier, max / min without modifiers, and ex2.approx.ftz.f32. Each returns exactly
what the general code returns (fpexact.py, handlers/fparith.py's decode_minmax, approx_math.mufu_ex2), which
`test/python/sim/test_fast_f32.py` checks over random and edge-case inputs; where a fast path is not sure it
gives None, and the caller takes the general path.

Why the host's binary64 gives the exact answers: the product of two f32 is exact in binary64 (2 x 24 <= 53
bits), and rounding a binary64 sum, product or quotient of f32 operands to f32 equals rounding the exact value
once, as 53 >= 2 x 24 + 2 (Figueroa, "When is double rounding innocuous?", SIGNUM 1995). fma's binary64 sum is
not exact, so it is rounded to odd first (its error found by two-sum), which makes the second rounding to f32
the single rounding of the exact value (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums:
proved algorithms using rounding to odd", IEEE TC 2008). A zero operand among finite ones is exact without
arithmetic (IEEE 754 §6.3, which the PTX ISA's .rn add / mul / fma follow, subnormals kept without .ftz): a zero
term adds nothing (x + 0 = x, subnormal x included), a product with a zero factor is a zero of the factors'
sign product, and an exact zero sum is -0 only when both terms are -0 (+0 otherwise, under .rn). An operand
that is an infinity or a NaN makes the result one too, the one binary64 arithmetic gives (IEEE's rules do not
depend on the format): a NaN becomes the canonical NaN (fpformat.F32.nan, fpexact's), and a finite result
past f32's range is an infinity under .rn. Other subnormal operands or results go the general way.
"""
from __future__ import annotations

import struct

from .fpformat import F32

__all__ = ["add_rn", "sub_rn", "mul_rn", "fma_rn", "add2_rn", "mul2_rn", "fma2_rn", "maxmin", "ex2_approx_ftz"]

_F = struct.Struct("<f")
_I = struct.Struct("<I")
_D = struct.Struct("<d")
_Q = struct.Struct("<q")
_Q8 = struct.Struct("<Q")
_FF = struct.Struct("<ff")
_EXP = 0x7F800000
_MIN_NORMAL = 2.0 ** -126


def _val(code: int):
    """The f32 value of a code whose exponent is neither 0 nor 255 (finite, normal), else None."""
    e = code & _EXP
    if e == 0 or e == _EXP:
        return None
    return _F.unpack(_I.pack(code))[0]


def _code(x: float):
    """x rounded to nearest-even f32, as a code, when the result is a normal f32 or overflows (an infinity under
    .rn); else None."""
    if not _MIN_NORMAL <= abs(x):
        return None  # zero, subnormal (or NaN: no comparison holds)
    try:
        return _I.unpack(_F.pack(x))[0]  # (rounded to nearest)
    except OverflowError:  # rounds past the largest f32: an infinity under .rn
        return 0xFF800000 if x < 0 else 0x7F800000


def _f(code: int) -> float:
    return _F.unpack(_I.pack(code))[0]


def _special(a: int, b: int, c: int = 0) -> bool:
    """Whether an operand is an infinity or a NaN."""
    return a & _EXP == _EXP or b & _EXP == _EXP or c & _EXP == _EXP


def _inf_nan(r: float) -> int:
    """The code of a result that is an infinity or a NaN (the canonical one)."""
    return F32.nan if r != r else (0xFF800000 if r < 0 else 0x7F800000)


_SIGN = 0x80000000
_MAG = 0x7FFFFFFF


def _zero_sum(a: int, b: int):
    """a + b where a or b is a zero and neither is infinite or NaN (codes), else None: the other term
    exactly, or for two zeros -0 when both are -0 and +0 otherwise (round to nearest)."""
    am, bm = a & _MAG, b & _MAG
    if am >= _EXP or bm >= _EXP:
        return None
    if am == 0:
        return b if bm else a & b
    return a if bm == 0 else None


def add_rn(a: int, b: int):
    x, y = _val(a), _val(b)
    if x is None or y is None:
        return _inf_nan(_f(a) + _f(b)) if _special(a, b) else _zero_sum(a, b)
    return _code(x + y)


def sub_rn(a: int, b: int):
    x, y = _val(a), _val(b)
    if x is None or y is None:
        return _inf_nan(_f(a) - _f(b)) if _special(a, b) else _zero_sum(a, b ^ _SIGN)
    return _code(x - y)


def _zero_product(a: int, b: int):
    """The code of a * b when a or b is a zero and neither is infinite or NaN (a zero of the factors' sign
    product), else None."""
    am, bm = a & _MAG, b & _MAG
    if (am == 0 or bm == 0) and am < _EXP and bm < _EXP:
        return (a ^ b) & _SIGN
    return None


def mul_rn(a: int, b: int):
    x, y = _val(a), _val(b)
    if x is None or y is None:
        return _inf_nan(_f(a) * _f(b)) if _special(a, b) else _zero_product(a, b)
    return _code(x * y)


def fma_rn(a: int, b: int, c: int):
    x, y, z = _val(a), _val(b), _val(c)
    if x is None or y is None or z is None:
        return _fma_zero(a, b, c, x, y)
    return _code(_fma_odd(x, y, z))


def _fma_zero(a: int, b: int, c: int, x, y):
    """fma.rn.f32 with an operand that is not a normal number: an infinity or a NaN (the result is one, as
    binary64 gives it: a product of f32 never overflows there), a zero product (exact, of the factors' sign
    product) added to c, or with a zero c the product of normal a and b rounded once; None otherwise."""
    if _special(a, b, c):
        return _inf_nan(_f(a) * _f(b) + _f(c))
    p = _zero_product(a, b)
    if p is not None:
        return _zero_sum(p, c)
    if c & _MAG == 0 and x is not None and y is not None:
        return _code(x * y)
    return None


def _normal2(code: int) -> bool:
    """Both words of a .f32x2 code are finite normal f32 (exponent neither 0 nor 255)."""
    lo, hi = code & _EXP, (code >> 32) & _EXP
    return lo != 0 and lo != _EXP and hi != 0 and hi != _EXP


def _codes2(x: float, y: float):
    """x and y rounded to f32, as one .f32x2 code (x low), when both results are normal, else None."""
    if not (_MIN_NORMAL <= abs(x) and _MIN_NORMAL <= abs(y)):
        return None
    try:
        code = _Q8.unpack(_FF.pack(x, y))[0]
    except OverflowError:
        return None
    return None if code & _EXP == _EXP or (code >> 32) & _EXP == _EXP else code


# (the pair functions unpack both words with one struct call each and stay flat: they run once per .f32x2
# instruction and lane, the emulator's hottest path in a softmax)
def add2_rn(a: int, b: int):
    """add.rn.f32x2 (each word as add_rn), or None."""
    if not (_normal2(a) and _normal2(b)):
        return None
    x0, x1 = _FF.unpack(_Q8.pack(a))
    y0, y1 = _FF.unpack(_Q8.pack(b))
    return _codes2(x0 + y0, x1 + y1)


def mul2_rn(a: int, b: int):
    if not (_normal2(a) and _normal2(b)):
        return None
    x0, x1 = _FF.unpack(_Q8.pack(a))
    y0, y1 = _FF.unpack(_Q8.pack(b))
    return _codes2(x0 * y0, x1 * y1)


def _fma_odd(x: float, y: float, z: float) -> float:
    """x * y + z in binary64 rounded to odd (the exact value when it fits)."""
    p = x * y
    s = p + z
    bb = s - p
    err = (p - (s - bb)) + (z - bb)
    if err != 0.0:
        q = _Q.unpack(_D.pack(s))[0]
        if not q & 1:
            q += 1 if (err > 0) == (s > 0) else -1
            s = _D.unpack(_Q.pack(q))[0]
    return s


def fma2_rn(a: int, b: int, c: int):
    if not (_normal2(a) and _normal2(b) and _normal2(c)):
        return None
    x0, x1 = _FF.unpack(_Q8.pack(a))
    y0, y1 = _FF.unpack(_Q8.pack(b))
    z0, z1 = _FF.unpack(_Q8.pack(c))
    return _codes2(_fma_odd(x0, y0, z0), _fma_odd(x1, y1, z1))


def maxmin(a: int, b: int, is_max: bool):
    """max.f32 / min.f32 of two codes, neither a NaN, by their bits: non-negative codes order as integers,
    negative ones in reverse, and any non-negative one is above any negative one (so -0 < +0, as fparith orders
    them); a NaN gives None."""
    if (a & 0x7FFFFFFF) > _EXP or (b & 0x7FFFFFFF) > _EXP:
        return None
    if a == b:
        return a
    sa, sb = a >> 31, b >> 31
    if sa != sb:
        above = b if sa else a
    elif sa:
        above = a if a < b else b
    else:
        above = a if a > b else b
    if is_max:
        return above
    return b if above == a else a


def ex2_approx_ftz(a: int, table_pos, table_neg):
    """ex2.approx.ftz.f32 of code a (approx_math.mufu_ex2 on one value: |x| in fixed point with 23 fraction
    bits, truncated; the integer part added to the exponent, the fraction's 2^f from the measured tables)."""
    s, e, m = a >> 31, (a >> 23) & 0xFF, a & 0x7FFFFF
    if e == 255:
        return 0x7FFFFFFF if m else (0 if s else 0x7F800000)
    sh = e - 127
    if e == 0:
        fx = 0
    else:
        mant = m | 0x800000
        fx = mant << min(sh, 8) if sh >= 0 else mant >> min(-sh, 63)
    i, g = fx >> 23, fx & 0x7FFFFF
    if s == 0:
        r = int(table_pos[g]) + (i << 23)
        return 0x7F800000 if (r >= 0x7F800000 or sh >= 8) else r
    r = int(table_neg[g]) - (i << 23)
    return 0 if (r < 0x800000 or sh >= 8) else r
