"""cvt with a floating-point end, one source: between f64, f32, f16, bf16 and the integers, with
every rounding mode (.rn .rz .rm .rp .rna; .rni .rzi .rmi .rpi to an integral value) and .ftz,
.sat, .relu, .satfinite; cvt to tf32.  Written from the PTX ISA's "cvt" (Data Movement and
Conversion Instructions); the numbers are exact (fpformat.round_ratio, one rounding).

Rules the ISA states and this follows: a float to integer conversion saturates to the integer
range and gives 0 for NaN; .sat clamps a float result to [0.0, 1.0] (NaN gives +0); .relu makes a
negative result +0 and a NaN the canonical NaN; .satfinite makes an infinite or overflowing result
the largest finite value of its sign (NaN stays NaN); .ftz flushes f32 subnormal sources and
results to zero of their sign.
"""

from __future__ import annotations

import math

from ..fpformat import BF16, F16, F32, F64, Format, RN, decode, flush, is_subnormal, round_float, \
    round_ratio

FLOATS = {"f64": F64, "f32": F32, "f16": F16, "bf16": BF16}
TF32 = Format("tf32", 8, 10, True, 0x3FFFF)  # in the upper 19 bits of a .b32
INT_BITS = {"u8": 8, "u16": 16, "u32": 32, "u64": 64, "s8": 8, "s16": 16, "s32": 32, "s64": 64}
FRND = ("rn", "rz", "rm", "rp", "rna")
IRND = {"rni": "rn", "rzi": "rz", "rmi": "rm", "rpi": "rp"}


def _to_integral(x: float, mode: str) -> float:
    if mode == "rn":
        return float(round(x))
    if mode == "rz":
        return float(math.trunc(x))
    if mode == "rm":
        return float(math.floor(x))
    return float(math.ceil(x))


def convert(v: int, st: str, dt: str, frnd, irnd, ftz, sat, relu, satfinite) -> int:
    """cvt.<mods>.dt.st of the source bits v."""
    if st in FLOATS:
        sf = FLOATS[st]
        if ftz and sf is F32 and is_subnormal(v, sf):
            v &= 0x80000000
        x = decode(v, sf)
    else:
        w = INT_BITS[st]
        v &= (1 << w) - 1
        x = v - (1 << w) if st[0] == "s" and v >> (w - 1) else v
    if dt in INT_BITS:
        return _to_int(x, dt, irnd or "rz")
    df = TF32 if dt == "tf32" else FLOATS[dt]
    if isinstance(x, int):
        code = round_ratio(x < 0, abs(x), 1, df, frnd or RN)
    else:
        if irnd and math.isfinite(x):
            x = _to_integral(x, irnd) if x == x else x
            x = math.copysign(x, decode(v, FLOATS[st])) if x == 0 else x
        if x != x:
            code = df.nan
        else:
            code = round_float(x, df, frnd or RN, satfinite)
    if ftz and df is F32:
        code = flush(code, df)
    if sat or relu:
        y = decode(code, df)
        if y != y:
            code = 0 if sat else df.nan
        elif y <= 0:
            code = 0
        elif sat and y > 1:
            code = round_float(1.0, df, RN)
    if df is TF32:
        return code << 13
    return code


def _to_int(x, dt, mode):
    w = INT_BITS[dt]
    lo, hi = ((-(1 << (w - 1)), (1 << (w - 1)) - 1) if dt[0] == "s" else (0, (1 << w) - 1))
    if isinstance(x, float):
        if x != x:
            return 0
        if math.isinf(x):
            xi = hi if x > 0 else lo
        else:
            xi = int(_to_integral(x, mode))
    else:
        xi = x
    return max(lo, min(hi, xi)) & ((1 << w) - 1)


def decode_cvt_float(d, inst, dt, st, mods):
    """The closure of one cvt with a floating-point (or tf32) end."""
    known = set(FRND) | set(IRND) | {"ftz", "sat", "relu", "satfinite"}
    bad = [m for m in mods if m not in known]
    if "rs" in mods:
        raise d.error("cvt.rs (stochastic rounding with random bits) is not modelled")
    if bad:
        raise d.error(f"cvt: modifier{'s' if len(bad) > 1 else ''} "
                      f"{', '.join('.' + m for m in bad)} not defined here")
    fr = [m for m in mods if m in FRND]
    ir = [IRND[m] for m in mods if m in IRND]
    if len(fr) + len(ir) > 1:
        raise d.error("cvt: one rounding modifier at most")
    if dt == "tf32" and st != "f32":
        raise d.error("cvt to .tf32 is from .f32")
    sw = 32 if st == "tf32" else (FLOATS[st].bits if st in FLOATS else INT_BITS[st])
    dw = 32 if dt == "tf32" else (FLOATS[dt].bits if dt in FLOATS else INT_BITS[dt])
    dd, a = d.operands(2)
    args = (f"'{st}', '{dt}', {fr[0] if fr else None!r}, {ir[0] if ir else None!r}, "
            f"{'ftz' in mods}, {'sat' in mods}, {'relu' in mods}, {'satfinite' in mods}")
    return d.compile([d.dst(dd, dw, dt.startswith("s"))(f"_cvt({d.src(a, sw)}, {args})")],
                     {"_cvt": _memo(convert) if sw <= 16 or st in INT_BITS else convert})


def _memo(fn, cap=1 << 16):
    """fn looked up by its source bits: an instruction whose sources take few values (a
    mixed-input GEMM widening its int4 or int8 operands) converts each once.  Only plain ints:
    a guarded value (an unwaited tcgen05.ld destination) must be touched by each use."""
    memo: dict = {}

    def cvt(v, *args):
        if type(v) is not int:
            return fn(v, *args)
        r = memo.get(v)
        if r is None:
            if len(memo) >= cap:
                memo.clear()
            r = memo[v] = fn(v, *args)
        return r
    return cvt
