"""The two-input forms of cvt: two .f32 values rounded to a narrow float and packed into one register.

Written from the PTX ISA, "cvt" (Data Movement and Conversion Instructions):

    cvt.frnd2{.relu}{.satfinite}.f16x2.f32   d, a, b;   frnd2 = .rn | .rz   d: .b32
    cvt.frnd2{.relu}{.satfinite}.bf16x2.f32  d, a, b;
    cvt.rn.satfinite{.relu}.e4m3x2.f32       d, a, b;                       d: .b16
    cvt.rn.satfinite{.relu}.e5m2x2.f32       d, a, b;

"the value converted from input a is stored in the upper half of d and the value converted from input
b is stored in the lower half" (upper 8 bits / lower 8 bits for the 8-bit pairs). `.satfinite` turns
results beyond the largest finite value, infinities included, into that value with the input's sign.
NaN becomes the format's canonical NaN: 0x7FFF for f16 / bf16 and 0x7F for e4m3 / e5m2
(docs/emulator.md A21: PTX names the canonical NaN only for the 16-bit formats).
`.relu` and `.rs` are not emulated (the lowering never emits them): they are refused.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from ..codegen import bits_to_f32

__all__ = ["PACKED", "decode_cvt_pack", "round_to"]


class Format(NamedTuple):
    ebits: int
    mbits: int
    has_inf: bool
    max_finite: float
    nan: int  # the canonical NaN's code (sign 0)


FORMATS = {
    "f16": Format(5, 10, True, 65504.0, 0x7FFF),
    "bf16": Format(8, 7, True, float.fromhex("0x1.fep127"), 0x7FFF),
    "e4m3": Format(4, 3, False, 448.0, 0x7F),   # OCP FP8 E4M3 (no infinity; S.1111.111 is NaN)
    "e5m2": Format(5, 2, True, 57344.0, 0x7F),
}
# destination type -> (element format, element bits)
PACKED = {"f16x2": ("f16", 16), "bf16x2": ("bf16", 16), "e4m3x2": ("e4m3", 8), "e5m2x2": ("e5m2", 8)}


def round_to(x: float, fmt: str, mode: str, satfinite: bool) -> int:
    """The code of x (an f32 value as a Python float) in `fmt`, rounded by `mode` ("rn": to nearest,
    ties to even; "rz": toward zero)."""
    f = FORMATS[fmt]
    n = 1 + f.ebits + f.mbits
    sign = (1 << (n - 1)) if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):
        return f.nan
    bias = (1 << (f.ebits - 1)) - 1
    max_code = _encode(f.max_finite, f, bias)
    inf_code = ((1 << f.ebits) - 1) << f.mbits
    a = abs(x)
    if math.isinf(a):
        return sign | (max_code if satfinite or not f.has_inf else inf_code)
    if a == 0.0:
        return sign
    emin = 1 - bias
    e = max(math.frexp(a)[1] - 1, emin)
    quantum = math.ldexp(1.0, e - f.mbits)
    q = a / quantum  # exact: a power-of-two scaling of an f32 value
    q = float(round(q)) if mode == "rn" else float(math.floor(q))
    v = q * quantum
    if v > f.max_finite:
        if satfinite or mode == "rz" or not f.has_inf:
            return sign | max_code
        return sign | inf_code
    return sign | _encode(v, f, bias)


def _encode(v: float, f: Format, bias: int) -> int:
    emin = 1 - bias
    if v < math.ldexp(1.0, emin):
        return int(v / math.ldexp(1.0, emin - f.mbits))  # subnormal (or zero)
    e = math.frexp(v)[1] - 1
    mant = int(v / math.ldexp(1.0, e - f.mbits)) - (1 << f.mbits)
    return ((e + bias) << f.mbits) | mant


def bf16_from_bits(b: int, mode: str, satfinite: bool) -> int:
    """round_to(f32 bits b, "bf16", ...) on the bits: bf16 is f32's upper half, so rounding to
    nearest even adds 0x7FFF plus the kept lowest bit (the epilogue of every GEMM runs this once
    per element: 20x faster than round_to)."""
    b &= 0xFFFFFFFF
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return 0x7FFF
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) if mode == "rn" else b >> 16
    if satfinite and (r & 0x7FFF) == 0x7F80:
        return r - 1  # 0x7F7F / 0xFF7F: the largest finite value, with the sign
    return r


def decode_cvt_pack(d, inst):
    p = inst.parts
    dt, st = p[-2], p[-1]
    fmt, bits = PACKED[dt]
    mods = set(p[1:-2])
    if st != "f32":
        raise d.error(f"cvt.{dt} from .{st} is not emulated (only .f32 pairs)")
    rnd = [m for m in mods if m in ("rn", "rz", "rm", "rp", "rs", "rna")]
    if len(rnd) != 1 or rnd[0] not in ("rn", "rz") or (bits == 8 and rnd[0] != "rn"):
        raise d.error(f"cvt.{dt}.f32 needs .rn" + (" or .rz" if bits == 16 else "") + f", got {sorted(mods)}")
    if mods - {rnd[0], "satfinite"}:
        raise d.error(f"cvt.{dt}.f32: {sorted(mods - {rnd[0], 'satfinite'})} is not emulated")
    sat = "satfinite" in mods
    if bits == 8 and not sat:
        raise d.error(f"cvt.rn.{dt}.f32 requires .satfinite (PTX ISA cvt)")
    dd, a, b = d.operands(3)
    env = {"_round": round_to, "_f32": bits_to_f32, "_bf16": bf16_from_bits}
    one = f"_round(_f32({{}}), {fmt!r}, {rnd[0]!r}, {sat})"
    if fmt == "bf16":
        one = f"_bf16({{}}, {rnd[0]!r}, {sat})"
    e = f"({one.format(d.src(a, 32))} << {bits}) | {one.format(d.src(b, 32))}"
    return d.compile([d.dst(dd, 2 * bits)(e)], env)
