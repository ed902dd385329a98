"""The packed forms of cvt: two values converted and packed into one register, or one packed
register unpacked and widened, and cvt.pack.sat of integers.

Written from the PTX ISA, "cvt" and "cvt.pack":

    cvt.frnd2{.relu}{.satfinite}.f16x2.f32 / .bf16x2.f32   d, a, b;   frnd2 = .rn | .rz
    cvt.rn.satfinite{.relu}.e4m3x2.f32 / .e5m2x2.f32       d, a, b;   (and from one .f16x2)
    cvt.rn.satfinite{.relu}.e2m1x2.f32 / .e2m3x2 / .e3m2x2 d, a, b;
    cvt.frnd3{.satfinite}.ue8m0x2.f32                      d, a, b;   frnd3 = .rz | .rp
    cvt.frnd3{.satfinite}.ue8m0x2.bf16x2                   d, a;
    cvt.rn{.relu}.f16x2.<e4m3x2|e5m2x2|e2m1x2|e2m3x2|e3m2x2> d, a;
    cvt.rn.bf16x2.ue8m0x2                                  d, a;
    cvt.pack.sat.<u16|s16>.s32 d, a, b;   cvt.pack.sat.<u2|s2|u4|s4|u8|s8>.s32.b32 d, a, b, c;

The value from a (or from the upper half of a packed source) goes to the upper bits of d.  The
6-bit e2m3 / e3m2 codes sit in 8-bit fields whose two upper bits are 0.  NaN becomes the format's
canonical NaN (Table A21); formats without NaN (e2m1, e2m3, e3m2) take +max for it under
.satfinite (Table A30).  ue8m0 (a power of two 2^-127 .. 2^127, no zero, 0xFF NaN) takes the
input's magnitude rounded to a power of two, clamped to 2^-127 below (Table A31); overflow and
infinity give 0xFF, or 0xFE under .satfinite.  The .rs forms (stochastic rounding) are refused.
"""
from __future__ import annotations

from ..fpformat import BF16, E2M1, E2M3, E3M2, E4M3, E5M2, F16, F32, FORMATS, UE8M0, decode, \
    round_float

__all__ = ["PACKED", "decode_cvt_pack", "decode_cvt_pack_int", "bf16_from_bits", "round_to"]

#: packed type -> (element format, element field bits)
PACKED = {"f16x2": (F16, 16), "bf16x2": (BF16, 16), "e4m3x2": (E4M3, 8), "e5m2x2": (E5M2, 8),
          "e2m1x2": (E2M1, 4), "e2m3x2": (E2M3, 8), "e3m2x2": (E3M2, 8), "ue8m0x2": (UE8M0, 8),
          "e4m3x4": (E4M3, 8), "e5m2x4": (E5M2, 8), "e2m1x4": (E2M1, 4), "e2m3x4": (E2M3, 8),
          "e3m2x4": (E3M2, 8)}


def round_to(x: float, fmt: str, mode: str, satfinite: bool) -> int:
    """The code of the value x (exact as a double) in the format named fmt, rounded by mode."""
    return round_float(x, FORMATS[fmt], mode, satfinite)


def bf16_from_bits(b: int, mode: str, satfinite: bool, relu: bool = False) -> int:
    """The bf16 code of the f32 bits b: bf16 is f32's upper half, so rounding to nearest even
    adds 0x7FFF plus the kept lowest bit (a GEMM epilogue runs this once per element)."""
    b &= 0xFFFFFFFF
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return 0x7FFF
    if relu and b >> 31:
        return 0
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) if mode == "rn" else b >> 16
    if satfinite and (r & 0x7FFF) == 0x7F80:
        return r - 1  # 0x7F7F / 0xFF7F: the largest finite value, with the sign
    return r


def _bf16x2_rn(x: int, y: int) -> int:
    """cvt.rn.bf16x2.f32 of the f32 bits x (upper half) and y: bf16_from_bits(., "rn", False) of
    each, inlined."""
    x &= 0xFFFFFFFF
    y &= 0xFFFFFFFF
    hi = 0x7FFF if (x & 0x7FFFFFFF) > 0x7F800000 else (x + 0x7FFF + ((x >> 16) & 1)) >> 16
    lo = 0x7FFF if (y & 0x7FFFFFFF) > 0x7F800000 else (y + 0x7FFF + ((y >> 16) & 1)) >> 16
    return (hi << 16) | lo


def _ue8m0(bits: int, mode: str, satfinite: bool) -> int:
    return round_float(decode(bits, F32), UE8M0, mode, satfinite)


def _narrow(x: float, fmt, mode, satfinite, relu) -> int:
    if relu and x == x and x <= 0:
        return 0
    return round_float(x, fmt, mode, satfinite)


def _widen(code: int, src, dst, relu) -> int:
    x = decode(code, src)
    if relu and x == x and x <= 0:
        return 0
    return round_float(x, dst, "rn")


def decode_cvt_pack(d, inst):
    p = inst.parts
    dt, st = p[-2], p[-1]
    mods = set(p[1:-2])
    if "rs" in mods:
        raise d.error(f"cvt.rs.{dt}: stochastic rounding with random bits is not modelled")
    if dt.endswith("x4"):
        raise d.error(f"cvt to .{dt} exists with .rs only, which is not modelled")
    rnd = [m for m in mods if m in ("rn", "rz", "rm", "rp", "rna")]
    bad = mods - set(rnd) - {"satfinite", "relu"}
    if bad or len(rnd) != 1:
        raise d.error(f"cvt.{dt}.{st}: modifiers {sorted(mods)} are not a form the ISA defines")
    mode, sat, relu = rnd[0], "satfinite" in mods, "relu" in mods
    if st in PACKED and st not in ("f16x2", "bf16x2"):  # unpack and widen: one source
        sfmt, sbits = PACKED[st]
        if dt not in ("f16x2", "bf16x2") or mode != "rn" or sat:
            raise d.error(f"cvt.{dt}.{st} is not a form the ISA defines")
        dfmt = PACKED[dt][0]
        if (dfmt is BF16) != (sfmt is UE8M0):
            raise d.error(f"cvt.{dt}.{st} is not a form the ISA defines")
        dd, a = d.operands(2)
        m = (1 << sbits) - 1
        inw = 8 if sbits == 4 else 16

        def unpack(v, _s=sfmt, _d=dfmt, _r=relu, _b=sbits, _m=m):
            lo = _widen(v & _m, _s, _d, _r)
            hi = _widen((v >> _b) & _m, _s, _d, _r)
            return (hi << 16) | lo
        return d.compile([d.dst(dd, 32)(f"_op({d.src(a, inw)})")], {"_op": unpack})
    if dt not in PACKED:
        raise d.error(f"cvt.{dt}.{st} is not a form the ISA defines")
    dfmt, ebits = PACKED[dt]
    if dfmt is UE8M0:
        if mode not in ("rz", "rp") or relu:
            raise d.error(f"cvt.{dt}: .rz or .rp, no .relu")
        one = lambda b, _m=mode, _s=sat: _ue8m0(b, _m, _s)  # noqa: E731
    elif ebits == 16:
        if mode not in ("rn", "rz"):
            raise d.error(f"cvt.{dt}.f32 needs .rn or .rz")
        if dfmt is BF16:
            one = lambda b, _m=mode, _s=sat, _r=relu: bf16_from_bits(b, _m, _s, _r)  # noqa: E731
        else:
            one = lambda b, _m=mode, _s=sat, _r=relu: _narrow(decode(b, F32), F16, _m, _s, _r)  # noqa: E731
    else:
        if mode != "rn" or not sat:
            raise d.error(f"cvt.{dt} requires .rn.satfinite (PTX ISA cvt)")
        one = lambda b, _f=dfmt, _r=relu: _narrow(decode(b, F32), _f, "rn", True, _r)  # noqa: E731
    dw = 2 * ebits if ebits > 4 else 8
    if st == "f32":
        dd, a, b = d.operands(3)

        def pack(x, y, _o=one, _e=ebits):
            return (_o(x) << _e) | _o(y)
        if dfmt is BF16 and mode == "rn" and not sat and not relu:
            pack = _bf16x2_rn  # (a GEMM epilogue's conversion: one call per pair, not three)
        return d.compile([d.dst(dd, dw)(f"_op({d.src(a, 32)}, {d.src(b, 32)})")], {"_op": pack})
    if st in ("f16x2", "bf16x2") and dfmt in (E4M3, E5M2, UE8M0) and \
            (st == "bf16x2") == (dfmt is UE8M0):
        dd, a = d.operands(2)
        sfmt = F16 if st == "f16x2" else BF16

        def pack1(v, _o=one, _e=ebits, _s=sfmt):
            if _s is BF16:  # the bf16 halves as f32 bits: exact
                return (_o((v >> 16) << 16) << _e) | _o((v & 0xFFFF) << 16)
            hi = round_float(decode(v >> 16, _s), F32, "rn")
            lo = round_float(decode(v & 0xFFFF, _s), F32, "rn")
            return (_o(hi) << _e) | _o(lo)
        return d.compile([d.dst(dd, dw)(f"_op({d.src(a, 32)})")], {"_op": pack1})
    raise d.error(f"cvt.{dt}.{st} is not a form the ISA defines")


_PACK_INT = {"u16": (0, 0xFFFF, 16), "s16": (-0x8000, 0x7FFF, 16), "u8": (0, 0xFF, 8),
             "s8": (-0x80, 0x7F, 8), "u4": (0, 15, 4), "s4": (-8, 7, 4), "u2": (0, 3, 2),
             "s2": (-2, 1, 2)}


def decode_cvt_pack_int(d, inst):
    """cvt.pack.sat: a and b (s32) saturated to the narrow type, a above b; for the types under 16
    bits, c's low bits fill the rest of d above them."""
    p = inst.parts
    if len(p) < 5 or p[2] != "sat" or p[3] not in _PACK_INT or p[4] != "s32":
        raise d.error(f"`{inst.opcode}` is not cvt.pack.sat.<type>.s32")
    lo, hi, n = _PACK_INT[p[3]]
    three = n < 16
    ops = d.operands(4 if three else 3)
    dd, a, b = ops[:3]
    sat = f"(max({lo}, min({hi}, {{}})) & {(1 << n) - 1:#x})"
    e = f"({sat.format(d.src(a, 32, True))} << {n}) | {sat.format(d.src(b, 32, True))}"
    if three:
        e = f"({e}) | ({d.src(ops[3], 32)} << {2 * n})"
    return d.compile([d.dst(dd, 32)(e)])
