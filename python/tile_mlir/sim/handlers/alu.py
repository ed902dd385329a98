"""Integer, bitwise, floating-point, comparison, selection, move and conversion instructions.

Each ``decode_<mnemonic>(d, inst)`` returns the per-thread closure for one instruction; see
:mod:`tile_mlir.sim.codegen` for the operand conventions.
"""

from __future__ import annotations

import math

import numpy as np

from ..codegen import bits_to_f32, bits_to_f64, f32_to_bits, f64_to_bits, mask
from ..errors import EmulationError
from ..ptx_parser import TYPE_BITS
from . import cvt_pack

FLOAT_TYPES = {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2"}
F16_OVERFLOW = 65520.0  # from here on a value rounds to infinity in f16 (65504 + half an ulp)


def _type(d, inst, allowed=None):
    t = inst.parts[-1]
    if t not in TYPE_BITS:
        raise d.error(f"missing or unknown type suffix .{t}")
    if allowed is not None and t not in allowed:
        raise d.error(f"type .{t} is not supported for {inst.parts[0]}")
    return t, TYPE_BITS[t], t.startswith("s")


def _ops(d, inst, n):
    return d.operands(n)


def _fl(t):
    return {"f32": ("_f32", "_b32"), "f64": ("_f64", "_b64")}.get(t)


def _fexpr(d, t, ops, expr_fn, dst, env=None):
    """Float op on f32/f64 via Python floats (f32 results rounded once to f32); `env` adds the helper
    functions expr_fn's text calls."""
    if t not in ("f32", "f64"):
        raise d.error(f"floating-point type .{t} is not supported")
    w = TYPE_BITS[t]
    unb, reb = _fl(t)
    args = [f"{unb}({d.src(o, w, ftype=True)})" for o in ops]
    return d.compile([dst(f"_fop({expr_fn(*args)}, {reb})")], {"_fop": _fop, **(env or {})})


def _fop(x, reb):
    try:
        return reb(x)
    except OverflowError:
        return reb(math.copysign(math.inf, x))


# ------------------------------------------------------------------------------- add/sub/mul
def decode_add(d, inst, sub=False):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    op = "-" if sub else "+"
    if t in FLOAT_TYPES:
        return _fexpr(d, t, [a, b], lambda x, y: f"({x} {op} {y})", d.dst(dd, w))
    if "cc" in inst.parts or inst.parts[0] in ("addc", "subc"):
        raise d.error("carry-chain arithmetic (.cc / addc / subc) is not supported")
    if "sat" in inst.parts:
        e = f"max({-(1 << (w - 1))}, min({(1 << (w - 1)) - 1}, {d.src(a, w, True)} {op} "\
            f"{d.src(b, w, True)}))"
        return d.compile([d.dst(dd, w)(e)])
    return d.compile([d.dst(dd, w)(f"{d.src(a, w)} {op} {d.src(b, w)}")])


def decode_sub(d, inst):
    return decode_add(d, inst, sub=True)


def decode_mul(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    if t in FLOAT_TYPES:
        return _fexpr(d, t, [a, b], lambda x, y: f"({x} * {y})", d.dst(dd, w))
    p = inst.parts
    e = f"{d.src(a, w, s)} * {d.src(b, w, s)}"
    if "wide" in p:
        return d.compile([d.dst(dd, 2 * w)(e)])
    if "hi" in p:
        return d.compile([d.dst(dd, w)(f"({e}) >> {w}")])
    return d.compile([d.dst(dd, w)(e)])


def decode_mul24(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    ea = f"(({d.src(a, w)} & 0xffffff ^ 0x800000) - 0x800000)" if s else f"({d.src(a, w)} & 0xffffff)"
    eb = f"(({d.src(b, w)} & 0xffffff ^ 0x800000) - 0x800000)" if s else f"({d.src(b, w)} & 0xffffff)"
    e = f"{ea} * {eb}"
    if "hi" in inst.parts:
        e = f"({e}) >> 16"
    return d.compile([d.dst(dd, w)(e)])


def decode_mad(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b, c = _ops(d, inst, 4)
    if t in FLOAT_TYPES:
        return decode_fma(d, inst)
    p = inst.parts
    e = f"{d.src(a, w, s)} * {d.src(b, w, s)}"
    if "wide" in p:
        return d.compile([d.dst(dd, 2 * w)(f"{e} + {d.src(c, 2 * w, s)}")])
    if "hi" in p:
        return d.compile([d.dst(dd, w)(f"(({e}) >> {w}) + {d.src(c, w, s)}")])
    return d.compile([d.dst(dd, w)(f"{e} + {d.src(c, w, s)}")])


def decode_fma(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b, c = _ops(d, inst, 4)
    return _fexpr(d, t, [a, b, c], lambda x, y, z: f"({x} * {y} + {z})", d.dst(dd, w))


def decode_div(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    if t in FLOAT_TYPES:
        return _fexpr(d, t, [a, b], lambda x, y: f"_fdiv({x}, {y})", d.dst(dd, w), {"_fdiv": _fdiv})
    return d.compile([d.dst(dd, w)(f"_idiv({d.src(a, w, s)}, {d.src(b, w, s)}, {mask(w)}, M)")],
                     {"_idiv": _idiv})


def decode_rem(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    return d.compile([d.dst(dd, w)(f"_irem({d.src(a, w, s)}, {d.src(b, w, s)}, M)")],
                     {"_irem": _irem})


def _fdiv(x, y):
    if y == 0:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1, y)
    return x / y


def _idiv(a, b, m, M):
    if b == 0:
        M.warn("integer division by zero (result is machine-specific; emulated as all ones)")
        return m
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _irem(a, b, M):
    if b == 0:
        M.warn("integer remainder by zero (result is machine-specific; emulated as the dividend)")
        return a
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def decode_min(d, inst, fn="min"):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    if t in FLOAT_TYPES:
        return _fexpr(d, t, [a, b], lambda x, y: f"_f{fn}({x}, {y})", d.dst(dd, w),
                      {"_fmin": _fmin, "_fmax": _fmax})
    return d.compile([d.dst(dd, w)(f"{fn}({d.src(a, w, s)}, {d.src(b, w, s)})")])


def decode_max(d, inst):
    return decode_min(d, inst, "max")


def _nan_ignoring(pick):
    """PTX min/max.f32: a NaN operand yields the other operand."""
    def f(x, y):
        if math.isnan(x):
            return y
        if math.isnan(y):
            return x
        return pick(x, y)
    return f


_fmin = _nan_ignoring(min)
_fmax = _nan_ignoring(max)


def decode_neg(d, inst):
    t, w, s = _type(d, inst)
    dd, a = _ops(d, inst, 2)
    if t in FLOAT_TYPES:
        return d.compile([d.dst(dd, w)(f"{d.src(a, w)} ^ {1 << (w - 1)}")])
    return d.compile([d.dst(dd, w)(f"-{d.src(a, w)}")])


def decode_abs(d, inst):
    t, w, s = _type(d, inst)
    dd, a = _ops(d, inst, 2)
    if t in FLOAT_TYPES:
        return d.compile([d.dst(dd, w)(f"{d.src(a, w)} & {mask(w - 1)}")])
    return d.compile([d.dst(dd, w)(f"abs({d.src(a, w, True)})")])


# ------------------------------------------------------------------------------- bitwise
def _bitop(d, inst, op):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    return d.compile([d.dst(dd, w)(f"{d.src(a, w)} {op} {d.src(b, w)}")])


def decode_and(d, inst):
    return _bitop(d, inst, "&")


def decode_or(d, inst):
    return _bitop(d, inst, "|")


def decode_xor(d, inst):
    return _bitop(d, inst, "^")


def _unary(d, inst, expr, dst_bits=None):
    """dst = expr(source text, width) for one-source integer instructions; dst_bits defaults to the width."""
    t, w, s = _type(d, inst)
    dd, a = _ops(d, inst, 2)
    return d.compile([d.dst(dd, dst_bits or w)(expr(d.src(a, w), w))])


def decode_not(d, inst):
    return _unary(d, inst, lambda x, w: f"~{x}")


def decode_cnot(d, inst):
    return _unary(d, inst, lambda x, w: f"1 if {x} == 0 else 0")


def decode_shl(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    return d.compile([d.dst(dd, w)(f"{d.src(a, w)} << min({d.src(b, 32)}, {w})")])


def decode_shr(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b = _ops(d, inst, 3)
    return d.compile([d.dst(dd, w)(f"{d.src(a, w, s)} >> min({d.src(b, 32)}, {w})")])


def decode_bfe(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b, c = _ops(d, inst, 4)
    return d.compile([d.dst(dd, w)(
        f"_bfe({d.src(a, w)}, {d.src(b, 32)} & 0xff, {d.src(c, 32)} & 0xff, {w}, {s})")],
        {"_bfe": _bfe})


def _bfe(a, pos, ln, w, signed):
    # PTX bfe: bits [pos, pos+len) of a; bits beyond the field (or beyond the type) are the sign
    # bit a[min(pos+len-1, w-1)] for signed types and 0 for unsigned ones.
    sbit = (a >> min(pos + ln - 1, w - 1)) & 1 if (signed and ln) else 0
    nb = max(0, min(ln, w - pos))
    field = (a >> pos) & mask(nb) if nb else 0
    if sbit:
        field |= mask(w) & ~mask(nb)
    return field


def decode_bfi(d, inst):
    t, w, s = _type(d, inst)
    dd, f, b, c, e = _ops(d, inst, 5)
    return d.compile([d.dst(dd, w)(
        f"_bfi({d.src(f, w)}, {d.src(b, w)}, {d.src(c, 32)} & 0xff, {d.src(e, 32)} & 0xff, {w})")],
        {"_bfi": _bfi})


def _bfi(f, b, pos, ln, w):
    if ln == 0 or pos >= w:
        return b
    m = mask(min(ln, w - pos)) << pos
    return (b & ~m) | ((f << pos) & m)


def decode_prmt(d, inst):
    t, w, s = _type(d, inst, {"b32"})
    modes = [p for p in inst.parts[1:-1]]
    if modes:
        raise d.error(f"prmt mode .{modes[0]} is not supported (only the default mode)")
    dd, a, b, c = _ops(d, inst, 4)
    return d.compile([d.dst(dd, 32)(f"_prmt({d.src(a, 32)}, {d.src(b, 32)}, {d.src(c, 32)})")],
                     {"_prmt": _prmt})


def _prmt(a, b, c):
    src = a | (b << 32)
    out = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xF
        byte = (src >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def decode_popc(d, inst):
    return _unary(d, inst, lambda x, w: f"bin({x}).count('1')", dst_bits=32)


def decode_clz(d, inst):
    return _unary(d, inst, lambda x, w: f"{w} - ({x}).bit_length()", dst_bits=32)


def decode_brev(d, inst):
    return _unary(d, inst, lambda x, w: f"int(format({x}, '0{w}b')[::-1], 2)")


def decode_bfind(d, inst):
    t, w, s = _type(d, inst)
    dd, a = _ops(d, inst, 2)
    shiftamt = "shiftamt" in inst.parts
    return d.compile([d.dst(dd, 32)(f"_bfind({d.src(a, w)}, {w}, {s}, {shiftamt})")],
                     {"_bfind": _bfind})


def _bfind(a, w, signed, shiftamt):
    if signed and (a >> (w - 1)) & 1:
        a = ~a & mask(w)
    if a == 0:
        return 0xFFFFFFFF
    p = a.bit_length() - 1
    return (w - 1 - p) if shiftamt else p


def decode_lop3(d, inst):
    t, w, s = _type(d, inst, {"b32"})
    dd, a, b, c, lut = _ops(d, inst, 5)
    if lut[0] != "imm":
        raise d.error("lop3 immLut must be an immediate")
    L = lut[1] & 0xFF
    ea, eb, ec = d.src(a, 32), d.src(b, 32), d.src(c, 32)
    terms = []
    for idx in range(8):
        if (L >> idx) & 1:
            # PTX: LUT index = (a_bit << 2) | (b_bit << 1) | c_bit, with ta=0xF0 tb=0xCC tc=0xAA
            ta = ea if (idx >> 2) & 1 else f"~{ea}"
            tb = eb if (idx >> 1) & 1 else f"~{eb}"
            tc = ec if idx & 1 else f"~{ec}"
            terms.append(f"({ta} & {tb} & {tc})")
    e = " | ".join(terms) if terms else "0"
    return d.compile([d.dst(dd, 32)(e)])


# ------------------------------------------------------------------------------- compare/select
_INT_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
            "lo": "<", "ls": "<=", "hi": ">", "hs": ">="}
_F_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _cmp_expr(d, inst, cmp, t, w, s, a, b):
    if t in ("f32", "f64"):
        ua = f"{_fl(t)[0]}({d.src(a, w, ftype=True)})"
        ub = f"{_fl(t)[0]}({d.src(b, w, ftype=True)})"
        if cmp == "num":
            return f"not (math.isnan({ua}) or math.isnan({ub}))"
        if cmp == "nan":
            return f"(math.isnan({ua}) or math.isnan({ub}))"
        if cmp.endswith("u") and cmp[:-1] in _F_CMP:
            return f"_fcmpu({ua}, {ub}, '{_F_CMP[cmp[:-1]]}')"
        if cmp in _F_CMP:
            # ordered compare: false if either is NaN (ne too)
            return f"_fcmpo({ua}, {ub}, '{_F_CMP[cmp]}')"
        raise d.error(f"unknown float comparison .{cmp}")
    if t in FLOAT_TYPES:
        raise d.error(f"comparison of .{t} is not supported")
    if cmp not in _INT_CMP:
        raise d.error(f"unknown comparison .{cmp}")
    signed = s and cmp not in ("lo", "ls", "hi", "hs")
    return f"{d.src(a, w, signed)} {_INT_CMP[cmp]} {d.src(b, w, signed)}"


def _fcmpo(x, y, op):
    if math.isnan(x) or math.isnan(y):
        return False
    return eval(f"x {op} y")  # noqa: S307 - op is one of six fixed strings


def _fcmpu(x, y, op):
    if math.isnan(x) or math.isnan(y):
        return True
    return eval(f"x {op} y")  # noqa: S307


def decode_setp(d, inst):
    t, w, s = _type(d, inst)
    p = inst.parts
    cmp = p[1]
    boolop = p[2] if len(p) > 3 and p[2] in ("and", "or", "xor") else None
    ops = d.operands(3, 4)
    dst = ops[0]
    a, b = ops[1], ops[2]
    c = ops[3] if len(ops) > 3 else None
    if (boolop is None) != (c is None):
        raise d.error("setp with a boolean combine needs a third predicate source (and only then)")
    e = _cmp_expr(d, inst, cmp, t, w, s, a, b)
    ns = {"math": math, "_fcmpo": _fcmpo, "_fcmpu": _fcmpu}
    lines = [f"_c = 1 if ({e}) else 0"]
    if boolop:
        pyop = {"and": "&", "or": "|", "xor": "^"}[boolop]
        cc = d.src(c, 1)
        lines.append(f"_q = (1 - _c) {pyop} {cc}")
        lines.append(f"_c = _c {pyop} {cc}")
    else:
        lines.append("_q = 1 - _c")
    if dst[0] == "pair":
        lines.append(d.dst(dst[1], 1)("_c"))
        lines.append(d.dst(dst[2], 1)("_q"))
    else:
        lines.append(d.dst(dst, 1)("_c"))
    return d.compile(lines, ns)


def decode_set(d, inst):
    p = inst.parts
    cmp = p[1]
    dt, st = p[-2], p[-1]
    if dt not in TYPE_BITS or st not in TYPE_BITS:
        raise d.error("set needs .dtype.stype")
    w, s = TYPE_BITS[st], st.startswith("s")
    ops = inst.operands
    if len(ops) != 3:
        raise d.error("set with boolean combine is not supported")
    e = _cmp_expr(d, inst, cmp, st, w, s, ops[1], ops[2])
    dw = TYPE_BITS[dt]
    true = f32_to_bits(1.0) if dt == "f32" else mask(dw)
    return d.compile([d.dst(ops[0], dw)(f"{true} if ({e}) else 0")],
                     {"math": math, "_fcmpo": _fcmpo, "_fcmpu": _fcmpu})


def decode_selp(d, inst):
    t, w, s = _type(d, inst)
    dd, a, b, c = _ops(d, inst, 4)
    return d.compile([d.dst(dd, w)(f"{d.src(a, w)} if {d.src(c, 1)} else {d.src(b, w)}")])


def decode_slct(d, inst):
    dt, ct = inst.parts[-2], inst.parts[-1]
    w = TYPE_BITS[dt]
    dd, a, b, c = _ops(d, inst, 4)
    if ct == "f32":
        cond = f"_f32({d.src(c, 32)}) >= 0.0"
    else:
        cond = f"{d.src(c, 32, True)} >= 0"
    return d.compile([d.dst(dd, w)(f"{d.src(a, w)} if {cond} else {d.src(b, w)}")])


# ------------------------------------------------------------------------------- mov / cvt
def decode_mov(d, inst):
    t, w, s = _type(d, inst)
    dd, a = _ops(d, inst, 2)
    if dd[0] == "vec":  # unpack
        n = len(dd[1])
        ew = w // n
        lines = [f"_v = {d.src(a, w)}"]
        for i, o in enumerate(dd[1]):
            lines.append(d.dst(o, ew)(f"(_v >> {i * ew}) & {mask(ew):#x}"))
        return d.compile(lines)
    if a[0] == "vec":  # pack
        n = len(a[1])
        ew = w // n
        parts = [f"({d.src(o, ew)} << {i * ew})" for i, o in enumerate(a[1])]
        return d.compile([d.dst(dd, w)(" | ".join(parts))])
    if a[0] == "sym":
        space, val = d.sym(a[1])
        if space == "label":
            raise d.error("mov of a label is not supported")
    return d.compile([d.dst(dd, w)(d.src(a, w, ftype=t in FLOAT_TYPES))])


_RND_INT = {"rni": "rn", "rzi": "rz", "rmi": "rm", "rpi": "rp"}


def decode_cvt(d, inst):
    p = inst.parts
    dt, st = p[-2], p[-1]
    if dt in cvt_pack.PACKED:  # two inputs, one packed result (sim/handlers/cvt_pack.py)
        return cvt_pack.decode_cvt_pack(d, inst)
    if dt not in TYPE_BITS or st not in TYPE_BITS:
        raise d.error("cvt needs .dtype.atype")
    mods = set(p[1:-2])
    dd, a = _ops(d, inst, 2)
    dw, sw = TYPE_BITS[dt], TYPE_BITS[st]
    dfl, sfl = dt in FLOAT_TYPES, st in FLOAT_TYPES
    sat = "sat" in mods
    if not dfl and not sfl:
        # integer -> integer: read in the source type (sign-extend if signed), write in dest type
        e = d.src(a, sw, st.startswith("s"))
        if sat:
            lo, hi = ((-(1 << (dw - 1)), (1 << (dw - 1)) - 1) if dt.startswith("s")
                      else (0, mask(dw)))
            e = f"max({lo}, min({hi}, {e}))"
        return d.compile([d.dst(dd, dw, dt.startswith("s"))(e)])
    rnd = next((m for m in mods if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi",
                                           "rna", "rs")), None)
    ns = {"_cvt": _cvt, "np": np, "math": math}
    e = f"_cvt({d.src(a, sw)}, '{st}', '{dt}', {rnd!r}, {sat}, M)"
    return d.compile([d.dst(dd, dw, dt.startswith("s"))(e)], ns)


def _to_float(v, t):
    if t == "f32":
        return bits_to_f32(v)
    if t == "f64":
        return bits_to_f64(v)
    if t == "f16":
        return float(np.array(v & 0xFFFF, dtype=np.uint16).view(np.float16))
    if t == "bf16":
        return bits_to_f32((v & 0xFFFF) << 16)
    raise EmulationError(f"conversion from .{t} is not supported")


def _round(x, mode):
    if mode in ("rn", "rni", None):
        return float(round(x))  # banker's rounding = round-half-even
    if mode in ("rz", "rzi"):
        return float(math.trunc(x))
    if mode in ("rm", "rmi"):
        return float(math.floor(x))
    if mode in ("rp", "rpi"):
        return float(math.ceil(x))
    raise EmulationError(f"rounding mode .{mode} is not supported")


def _cvt(v, st, dt, rnd, sat, M):
    if st in FLOAT_TYPES:
        x = _to_float(v, st)
    else:
        w = TYPE_BITS[st]
        x = v - (1 << w) if st.startswith("s") and (v >> (w - 1)) & 1 else v
    if dt in FLOAT_TYPES:
        if isinstance(x, int):
            x = float(np.float64(x)) if dt == "f64" else float(np.float32(x))
        if sat:
            x = 0.0 if math.isnan(x) else min(1.0, max(0.0, x))
        if st in FLOAT_TYPES and rnd in ("rni", "rzi", "rmi", "rpi") and math.isfinite(x):
            x = _round(x, rnd)
        if dt == "f32":
            return f32_to_bits(x) if math.isfinite(x) or math.isnan(x) else \
                f32_to_bits(float(np.float32(x)))
        if dt == "f64":
            return f64_to_bits(x)
        if dt == "f16":
            if abs(x) >= F16_OVERFLOW:  # infinity (numpy warns of the overflow)
                return 0xFC00 if x < 0 else 0x7C00
            return int(np.array(x, dtype=np.float16).view(np.uint16))
        if dt == "bf16":
            b = f32_to_bits(x)
            if math.isnan(x):
                return 0x7FFF
            return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
        raise EmulationError(f"conversion to .{dt} is not supported")
    # float -> int
    w = TYPE_BITS[dt]
    if math.isnan(x):
        return 0
    if math.isinf(x):
        xi = None
    else:
        xi = int(_round(x, rnd or "rz"))
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if dt.startswith("s") else (0, mask(w))
    if xi is None:
        xi = hi if x > 0 else lo
    return max(lo, min(hi, xi)) & mask(w)


def decode_cvta(d, inst):
    from .. import memory as mem
    p = inst.parts
    to = "to" in p
    space = next((q for q in p[1:] if q.split("::")[0] in ("shared", "global", "local", "const",
                                                          "param")), None)
    if space is None:
        raise d.error("cvta needs a state space")
    t, w, s = _type(d, inst, {"u32", "u64"})
    dd, a = _ops(d, inst, 2)
    e = d.src(a, 64)
    sp = space.split("::")[0]
    if sp in ("global", "const"):
        return d.compile([d.dst(dd, w)(e)])
    base, size = {"shared": (mem.SHARED_WINDOW, mem.SHARED_WINDOW_SIZE),
                  "param": (mem.PARAM_WINDOW, mem.PARAM_WINDOW_SIZE),
                  "local": (mem.LOCAL_WINDOW, mem.LOCAL_WINDOW_SIZE)}[sp]
    if not to:
        return d.compile([d.dst(dd, w)(f"{e} + {base}")])
    return d.compile([f"_a = {e}",
                      f"if not ({base} <= _a < {base + size}):",
                      f"    raise EmulationError('cvta.to.{space}: generic address 0x%x is not in "
                      f"the {sp} window' % _a)",
                      d.dst(dd, w)(f"_a - {base}")])
