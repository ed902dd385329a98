"""The floating-point formats of PTX and exact rounding into them (docs/emulator.md §13).

Every value of every format here is a double, so an operand decodes to a Python float.  A result is
computed exactly -- as a rational ``n / d`` of Python ints (:func:`round_ratio`) or, on the fast
paths, as a double that is exact or rounded to odd (:func:`to_odd`) -- and rounded once into the
destination format by the instruction's mode: ``rn`` (to nearest, ties to even), ``rna`` (to
nearest, ties away from zero), ``rz``, ``rm``, ``rp``.  Rounding a double that was rounded to odd
from the exact value gives the exact value's rounding for any format of at most 51 significand
bits (every format but f64), which is why a double computation is enough for those.

Formats, from the PTX ISA's "Floating Point Data Types" and "Alternate Floating Point Data
Formats": f64, f32, tf32 (an f32 whose low 13 mantissa bits are zero), f16, bf16, the OCP 8-bit
e4m3 (no infinity; S.1111.111 is NaN) and e5m2, the 6-bit e2m3 and e3m2 and the 4-bit e2m1 (no
infinity, no NaN), and ue8m0 (an unsigned power of two, 0xFF is NaN).
"""

from __future__ import annotations

import math
import struct
from typing import NamedTuple

RN, RNA, RZ, RM, RP = "rn", "rna", "rz", "rm", "rp"


class Format(NamedTuple):
    name: str
    ebits: int
    mbits: int
    has_inf: bool
    nan: int | None  # the canonical NaN (tile-sim's Table A21), None: the format has no NaN
    signed: bool = True

    @property
    def bits(self):
        return self.ebits + self.mbits + (1 if self.signed else 0)

    @property
    def bias(self):
        return (1 << (self.ebits - 1)) - 1

    @property
    def max_code(self):
        """The code of the largest finite value (sign 0)."""
        if self.has_inf:
            return (((1 << self.ebits) - 2) << self.mbits) | ((1 << self.mbits) - 1)
        if self.nan is not None and self.mbits:  # e4m3: S.1111.111 is NaN
            return ((1 << (self.ebits + self.mbits)) - 2)
        if self.nan is not None:  # ue8m0: 0xFF is NaN
            return (1 << self.ebits) - 2
        return (1 << (self.ebits + self.mbits)) - 1


F64 = Format("f64", 11, 52, True, 0x7FFFFFFFFFFFFFFF)
F32 = Format("f32", 8, 23, True, 0x7FFFFFFF)
F16 = Format("f16", 5, 10, True, 0x7FFF)
BF16 = Format("bf16", 8, 7, True, 0x7FFF)
E4M3 = Format("e4m3", 4, 3, False, 0x7F)
E5M2 = Format("e5m2", 5, 2, True, 0x7F)
E2M3 = Format("e2m3", 2, 3, False, None)
E3M2 = Format("e3m2", 3, 2, False, None)
E2M1 = Format("e2m1", 2, 1, False, None)
UE8M0 = Format("ue8m0", 8, 0, False, 0xFF, signed=False)
FORMATS = {f.name: f for f in (F64, F32, F16, BF16, E4M3, E5M2, E2M3, E3M2, E2M1, UE8M0)}


def decode(code: int, f: Format) -> float:
    """The value of ``code`` in ``f`` (a NaN as float('nan'))."""
    n = f.bits
    code &= (1 << n) - 1
    if f is F32:
        return struct.unpack("<f", struct.pack("<I", code))[0]
    if f is F64:
        return struct.unpack("<d", struct.pack("<Q", code))[0]
    neg = f.signed and code >> (n - 1)
    mag = code & ((1 << (f.ebits + f.mbits)) - 1)
    e, m = mag >> f.mbits, mag & ((1 << f.mbits) - 1)
    emax_field = (1 << f.ebits) - 1
    if f.has_inf and e == emax_field:
        v = math.inf if m == 0 else math.nan
    elif f.nan is not None and mag == (f.nan & ((1 << (f.ebits + f.mbits)) - 1)):
        v = math.nan
    elif e == 0 and f.mbits:
        v = math.ldexp(m, 1 - f.bias - f.mbits)
    else:
        v = math.ldexp((1 << f.mbits) | m, e - f.bias - f.mbits)
    return -v if neg else v


def is_subnormal(code: int, f: Format) -> bool:
    mag = code & ((1 << (f.ebits + f.mbits)) - 1)
    return f.mbits > 0 and 0 < mag < (1 << f.mbits)


def flush(code: int, f: Format) -> int:
    """.ftz: a subnormal becomes the zero of its sign."""
    if is_subnormal(code, f):
        return code & (1 << (f.bits - 1))
    return code


def round_ratio(neg: bool, n: int, d: int, f: Format, mode: str, satfinite: bool = False) -> int:
    """The code of the exact value ``(-1)^neg * n / d`` (n >= 0, d > 0) in ``f``, rounded by
    ``mode``; ``satfinite``: beyond the largest finite value gives that value."""
    sign = (1 << (f.bits - 1)) if (neg and f.signed) else 0
    if n == 0:
        return sign
    if not f.signed:  # ue8m0, a scale: its magnitude is converted (Table A31)
        neg = False
    e = n.bit_length() - d.bit_length()  # 2^e <= n/d < 2^(e+2)
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    emin = 1 - f.bias if f.mbits else -f.bias
    qe = max(e, emin) - f.mbits
    num, den = (n, d << qe) if qe >= 0 else (n << -qe, d)
    q, r = divmod(num, den)
    if r:
        if mode == RN:
            up = 2 * r > den or (2 * r == den and q & 1)
        elif mode == RNA:
            up = 2 * r >= den
        elif mode == RZ:
            up = False
        elif mode == RP:
            up = not neg
        elif mode == RM:
            up = neg
        else:
            raise ValueError(f"rounding mode {mode}")
        q += up
    if q >> (f.mbits + 1):
        q >>= 1
        qe += 1
    if not f.mbits and q == 0:  # below ue8m0's smallest power of two, which has no zero
        return 0
    if f.mbits and q < (1 << f.mbits):
        code = q  # subnormal (or the smallest normal reached by rounding up: exponent field 1)
    else:
        efield = qe + f.mbits + f.bias if f.mbits else qe + f.bias
        code = (efield << f.mbits) | (q - (1 << f.mbits)) if efield > 0 else 0
        if efield >= (1 << f.ebits) or code > f.max_code:
            return sign | _overflow(neg, f, mode, satfinite)
    if code > f.max_code:
        return sign | _overflow(neg, f, mode, satfinite)
    return sign | code


def _overflow(neg, f, mode, satfinite):
    """Beyond the largest finite value: the rounding goes to infinity (the format's NaN where it
    has no infinity) unless it is toward zero or .satfinite holds it at the largest value."""
    to_inf = mode in (RN, RNA) or (mode == RP and not neg) or (mode == RM and neg)
    if not to_inf or satfinite:
        return f.max_code
    if f.has_inf:
        return ((1 << f.ebits) - 1) << f.mbits
    if f.nan is not None:
        return f.nan & ((1 << (f.ebits + f.mbits)) - 1)
    return f.max_code


_PACK_RN = {"f16": (struct.Struct("<e"), struct.Struct("<H")),
            "f32": (struct.Struct("<f"), struct.Struct("<I"))}


def round_float(x: float, f: Format, mode: str, satfinite: bool = False) -> int:
    """The code of the double ``x`` (exact, or rounded to odd from the exact value) in ``f``."""
    if mode == RN and not satfinite and x == x and f.name in _PACK_RN:
        # f16, f32 to nearest even: CPython's packing rounds a double so (IEEE 754 binary16 and
        # binary32, subnormals included); a NaN keeps Table A21's canonical code, an overflow
        # (OverflowError) the exact path (test_fpformat_rn.py compares the two).
        p, u = _PACK_RN[f.name]
        try:
            return u.unpack(p.pack(x))[0]
        except OverflowError:
            pass
    if x != x:
        return f.nan if f.nan is not None else (f.max_code if satfinite else 0)
    neg = math.copysign(1.0, x) < 0
    if math.isinf(x):
        sign = (1 << (f.bits - 1)) if (neg and f.signed) else 0
        if f.has_inf and not satfinite:
            return sign | (((1 << f.ebits) - 1) << f.mbits)
        if not f.has_inf and not satfinite and f.nan is not None:
            return sign | (f.nan & ((1 << (f.ebits + f.mbits)) - 1))
        return sign | f.max_code
    if f is F64:
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    n, d = abs(x).as_integer_ratio()
    return round_ratio(neg, n, d, f, mode, satfinite)


def two_sum(a: float, b: float) -> tuple[float, float]:
    """s = fl(a + b) and the exact error a + b - s (Knuth), for finite a, b and s."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def to_odd(s: float, err: float) -> float:
    """The double nearest (to odd) the exact value s + err, where s = fl(s + err)."""
    if err == 0.0 or not math.isfinite(s):
        return s
    bits = struct.unpack("<q", struct.pack("<d", s))[0]
    if bits & 1:
        return s
    return math.nextafter(s, math.inf if err > 0 else -math.inf)


def f32_rn(x: float) -> int:
    """The f32 code of the double x rounded to nearest even (what C's cast does)."""
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return 0xFF800000 if x < 0 else 0x7F800000


def ratio(x: float) -> tuple[int, int]:
    return x.as_integer_ratio()
