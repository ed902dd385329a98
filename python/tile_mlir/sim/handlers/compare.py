"""Comparison and selection: setp, set, selp, slct, for every integer and floating-point type of the
PTX ISA ("Comparison and Selection Instructions", "Half Precision Comparison Instructions").

``t = a CmpOp b``; setp writes ``p = BoolOp(t, c)`` and ``q = BoolOp(!t, c)``, set writes 1.0
(float destinations) or all ones (integer destinations) where ``BoolOp(t, c)`` holds.  The ordered
float comparisons (eq ne lt le gt ge) are false when an operand is NaN, the unordered ones (equ ...
geu) true; num / nan test that neither / either is NaN.  .ftz flushes subnormal f32 / f16 operands.
The packed f16x2 / bf16x2 forms compare each half: setp writes the lower half's result to p and the
upper half's to q; set writes each half of d.
"""

from __future__ import annotations

from ..fpformat import BF16, F16, F32, F64, decode, is_subnormal
from ..ptx_parser import TYPE_BITS

FLT = {"f32": F32, "f64": F64, "f16": F16, "bf16": BF16, "f16x2": F16, "bf16x2": BF16}
_ORD = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
        "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}
_UNS = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
_SYM = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_BOOL = {"and": lambda t, c: t & c, "or": lambda t, c: t | c, "xor": lambda t, c: t ^ c}


def _float_cmp(cmp, fmt, ftz):
    """f(code_a, code_b) -> 0/1."""
    if cmp in ("num", "nan"):
        want_nan = cmp == "nan"
    elif cmp in _ORD:
        base, unordered = _ORD[cmp], False
    elif cmp.endswith("u") and cmp[:-1] in _ORD:
        base, unordered = _ORD[cmp[:-1]], True
    else:
        return None
    sbit = 1 << (fmt.bits - 1)

    def f(a, b):
        if ftz and is_subnormal(a, fmt):
            a &= sbit
        if ftz and is_subnormal(b, fmt):
            b &= sbit
        x, y = decode(a, fmt), decode(b, fmt)
        nan = x != x or y != y
        if cmp in ("num", "nan"):
            return 1 if nan == want_nan else 0
        if nan:
            return 1 if unordered else 0
        return 1 if base(x, y) else 0
    return f


def _cmp_fn(d, inst, cmp, t):
    """(f(a, b) -> t or [t_lo, t_hi], source width)."""
    p = inst.parts
    ftz = "ftz" in p
    if t in FLT:
        fmt = FLT[t]
        f = _float_cmp(cmp, fmt, ftz)
        if f is None:
            raise d.error(f"comparison .{cmp} is not defined for .{t}")
        if t.endswith("x2"):
            return (lambda a, b: [f(a & 0xFFFF, b & 0xFFFF), f(a >> 16, b >> 16)]), 32
        return f, fmt.bits
    if t not in TYPE_BITS or t == "pred":
        raise d.error(f"unknown comparison type .{t}")
    if ftz:
        raise d.error(".ftz is defined for floating-point comparisons only")
    w = TYPE_BITS[t]
    if cmp in _UNS:
        op, signed = _ORD[_UNS[cmp]], False
    elif cmp in _ORD:
        op, signed = _ORD[cmp], t.startswith("s")
        if t.startswith("b") and cmp not in ("eq", "ne"):
            raise d.error(f"comparison .{cmp} is not defined for .{t}")
    else:
        raise d.error(f"comparison .{cmp} is not defined for .{t}")
    sb = 1 << (w - 1)
    sym = _SYM[_UNS.get(cmp, cmp)]
    if signed:
        f = (lambda a, b: 1 if op((a ^ sb) - sb, (b ^ sb) - sb) else 0)
    else:
        f = (lambda a, b: 1 if op(a, b) else 0)
    # integer comparisons inline into the closure (a loop's setp runs once per iteration)
    f.inline = lambda ea, eb: f"(1 if {d.src(ea, w, signed)} {sym} {d.src(eb, w, signed)} else 0)"
    return f, w


def _parse(d, inst):
    p = inst.parts
    cmp = p[1]
    boolop = p[2] if len(p) > 2 and p[2] in _BOOL else None
    return cmp, boolop


def decode_setp(d, inst):
    p = inst.parts
    cmp, boolop = _parse(d, inst)
    f, w = _cmp_fn(d, inst, cmp, p[-1])
    ops = d.operands(3, 4)
    if (boolop is None) != (len(ops) == 3):
        raise d.error("setp with a boolean combine needs a third predicate source (and only then)")
    dst, a, b = ops[:3]
    packed = p[-1].endswith("x2")
    bo = _BOOL[boolop] if boolop else None
    ns = {"_cmpf": f, "_bo": bo}
    inline = getattr(f, "inline", None)
    lines = [f"_t = {inline(a, b)}" if inline else f"_t = _cmpf({d.src(a, w)}, {d.src(b, w)})"]
    cc = d.src(ops[3], 1) if boolop else None
    if packed:
        if dst[0] != "pair":
            raise d.error(f"setp.{p[-1]} writes two predicates p|q")
        pe = f"_bo(_t[0], {cc})" if bo else "_t[0]"
        qe = f"_bo(_t[1], {cc})" if bo else "_t[1]"
        lines += [d.dst(dst[1], 1)(pe), d.dst(dst[2], 1)(qe)]
        return d.compile(lines, ns)
    pe = f"_bo(_t, {cc})" if bo else "_t"
    qe = f"_bo(1 - _t, {cc})" if bo else "1 - _t"
    if dst[0] == "pair":
        lines += [d.dst(dst[1], 1)(pe), d.dst(dst[2], 1)(qe)]
    else:
        lines.append(d.dst(dst, 1)(pe))
    return d.compile(lines, ns)


_ONE = {"f32": 0x3F800000, "f16": 0x3C00, "bf16": 0x3F80, "f16x2": 0x3C00, "bf16x2": 0x3F80}


def decode_set(d, inst):
    p = inst.parts
    cmp, boolop = _parse(d, inst)
    dt, st = p[-2], p[-1]
    f, w = _cmp_fn(d, inst, cmp, st)
    ops = d.operands(3, 4)
    if (boolop is None) != (len(ops) == 3):
        raise d.error("set with a boolean combine needs a third predicate source (and only then)")
    bo = _BOOL[boolop] if boolop else (lambda t, c: t)
    cc = d.src(ops[3], 1) if boolop else "0"
    if st.endswith("x2"):  # each half of d from its half's comparison
        one = _ONE.get(dt, 0xFFFF)

        def op(a, b, c):
            t = f(a, b)
            return (one if bo(t[0], c) else 0) | ((one if bo(t[1], c) else 0) << 16)
        dw = 32
    else:
        if dt not in TYPE_BITS:
            raise d.error(f"set: unknown destination type .{dt}")
        dw = TYPE_BITS[dt]
        one = _ONE.get(dt, (1 << dw) - 1)

        def op(a, b, c):
            return one if bo(f(a, b), c) else 0
    return d.compile([d.dst(ops[0], dw)(f"_op({d.src(ops[1], w)}, {d.src(ops[2], w)}, {cc})")],
                     {"_op": op})


def decode_selp(d, inst):
    t = inst.parts[-1]
    if t not in TYPE_BITS or len(inst.parts) != 2:
        raise d.error(f"`{inst.opcode}` is not selp.<type>")
    w = TYPE_BITS[t]
    dd, a, b, c = d.operands(4)
    return d.compile([d.dst(dd, w)(f"{d.src(a, w, ftype=t in FLT)} if {d.src(c, 1)} else "
                                   f"{d.src(b, w, ftype=t in FLT)}")])


def decode_slct(d, inst):
    p = inst.parts
    dt, ct = p[-2], p[-1]
    if dt not in TYPE_BITS or ct not in ("s32", "f32"):
        raise d.error(f"`{inst.opcode}` is not slct.<type>.<s32|f32>")
    w = TYPE_BITS[dt]
    dd, a, b, c = d.operands(4)
    if ct == "f32":
        ftz = "ftz" in p
        cond = f"_ge0({d.src(c, 32, ftype=True)}, {ftz})"
    else:
        cond = f"{d.src(c, 32, True)} >= 0"
    return d.compile([d.dst(dd, w)(f"{d.src(a, w, ftype=dt in FLT)} if {cond} else "
                                   f"{d.src(b, w, ftype=dt in FLT)}")], {"_ge0": _ge0})


def _ge0(c, ftz):
    if ftz and is_subnormal(c, F32):
        return True
    x = decode(c, F32)
    return x >= 0
