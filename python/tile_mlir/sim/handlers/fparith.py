"""Floating-point arithmetic: add, sub, mul, fma, mad, div, sqrt, rcp (the IEEE-rounded forms), min,
max, neg, abs, copysign and testp, for f64, f32, f16, bf16 and the packed f16x2, bf16x2 and f32x2,
with every rounding mode and .ftz, .sat, .relu, .NaN, .xorsign.abs; the mixed-precision forms
(``add/sub/fma.rn.f32.bf16``: an f16 / bf16 operand, f32 otherwise).  Written from the PTX ISA's
"Floating-Point Instructions" and "Half Precision Floating-Point Instructions"; the numbers are
fpexact.py's (exact, rounded once).  The .approx forms are another module's; div.full is the sequence
ptxas emits over the measured MUFU.RCP model (div_full.py); div.approx (an approximation without a
bit-exact definition) is refused by name.

Packed forms compute each half (or each 32-bit word of f32x2) on its own, the element in the low
bits from the low bits of the sources.
"""

from __future__ import annotations

import math

from .. import fast_f32 as F
from .. import fpexact as X
from ..div_full import div_full_f32
from . import approx
from ..fpformat import BF16, F16, F32, F64, decode, is_subnormal, round_float

#: instruction type -> (element format, elements)
FTYPES = {"f64": (F64, 1), "f32": (F32, 1), "f16": (F16, 1), "bf16": (BF16, 1),
          "f16x2": (F16, 2), "bf16x2": (BF16, 2), "f32x2": (F32, 2)}
ROUNDING = ("rn", "rz", "rm", "rp")
_FLAGS = {"ftz", "sat", "relu"}


def is_float(t: str) -> bool:
    return t in FTYPES


def _spec(d, inst, allowed_flags, *, default_mode="rn", modes=ROUNDING):
    """(type, element format, elements, Spec, mixed source type or None) of a float instruction."""
    p = inst.parts
    t = p[-1]
    mixed = None
    mods = p[1:-1]
    if t in ("f16", "bf16") and len(p) >= 3 and p[-2] == "f32":  # add.rn.f32.bf16
        mixed, t, mods = FTYPES[p[-1]][0], "f32", p[1:-2]
    if t not in FTYPES:
        raise d.error(f"{p[0]}: `{inst.opcode}` ends in .{t}, not a floating-point type "
                      f"(.{', .'.join(FTYPES)})" if len(p) > 1 else f"{p[0]}: needs a type")
    fmt, n = FTYPES[t]
    mode = [m for m in mods if m in ROUNDING or m == "rna"]
    rest = [m for m in mods if m not in mode]
    bad = [m for m in rest if m not in allowed_flags]
    if bad or len(mode) > 1 or (mode and mode[0] not in modes):
        what = bad or mode
        raise d.error(f"{inst.parts[0]}: modifier{'s' if len(what) > 1 else ''} "
                      f"{', '.join('.' + m for m in what)} not defined for .{t} here")
    spec = X.Spec(fmt, mode[0] if mode else default_mode, ftz="ftz" in rest, sat="sat" in rest,
                  relu="relu" in rest)
    return t, fmt, n, spec, mixed


def _packed(fn, n, w):
    """fn over the n elements of w bits of each source."""
    if n == 1:
        return fn
    m = (1 << w) - 1

    def f(*xs):
        out = 0
        for i in range(n):
            out |= (fn(*[(x >> (i * w)) & m for x in xs]) & m) << (i * w)
        return out
    return f


def _emit(d, inst, fn, n_src, width, src_widths=None):
    ops = d.operands(n_src + 1)
    dd, srcs = ops[0], ops[1:]
    sw = src_widths or [width] * n_src
    args = ", ".join(d.src(o, w, ftype=True) for o, w in zip(srcs, sw))
    return d.compile([d.dst(dd, width)(f"_op({args})")], {"_op": fn})


def _div_full(d, inst):
    """div.full{.ftz}.f32: the sequence ptxas emits (div_full.py) over the measured MUFU.RCP model
    (rcp.approx.ftz.f32, approx.py; docs/emulator.md §14)."""
    p = inst.parts
    if p[-1] != "f32" or set(p[1:-1]) - {"full", "ftz"}:
        raise d.error(f"{inst.opcode}: div.full is div.full.f32 or div.full.ftz.f32")
    rcp, ftz = approx.scalar("rcp.approx.ftz.f32"), "ftz" in p
    fn = lambda a, b: div_full_f32(a, b, rcp, ftz)  # noqa: E731
    return _emit(d, inst, fn, 2, 32)


def decode_arith(d, inst, kind):
    """add, sub, mul, fma/mad, div (IEEE forms), sqrt, rcp."""
    p = inst.parts
    if kind == "div" and "full" in p:
        return _div_full(d, inst)
    if kind in ("div", "sqrt", "rcp") and ("approx" in p or "full" in p):
        raise d.error(f"{inst.opcode}: an approximation the PTX ISA bounds but does not define; "
                      "tile-sim has no bit-exact model of it")
    if kind in ("div", "sqrt", "rcp") and not any(m in p for m in ROUNDING):
        raise d.error(f"{inst.opcode}: needs a rounding mode (.rn .rz .rm .rp)")
    flags = {"ftz", "sat", "relu"} if kind in ("fma", "mad") else {"ftz", "sat"}
    if kind in ("fma", "mad") and "oob" in p:
        raise d.error(f"{inst.opcode}: .oob (operands out of bounds as zero) is not modelled")
    t, fmt, n, spec, mixed = _spec(d, inst, flags)
    w = fmt.bits
    if mixed is not None:
        spec.in_fmt = F32
        wa = mixed.bits
        if kind in ("add", "sub"):  # d, a (of the mixed type), c (f32)
            def op(a, c, _s=spec, _m=mixed, _neg=kind == "sub"):
                return X.add(round_float(decode(a, _m), F32, "rn"), c, _s, negb=_neg)
            return _emit(d, inst, op, 2, 32, [wa, 32])
        if kind in ("fma", "mad"):
            def op(a, b, c, _s=spec, _m=mixed):
                return X.fma(round_float(decode(a, _m), F32, "rn"),
                             round_float(decode(b, _m), F32, "rn"), c, _s)
            return _emit(d, inst, op, 3, 32, [wa, wa, 32])
        raise d.error(f"{inst.opcode}: no mixed-precision form of {kind}")
    if kind == "mul" and id(inst) in d.dead_muls:  # (its FMUL is gone: each fused sum reads the sources)
        d.operands(3)
        return d.compile(["pass"])
    fused = d.fused.get(id(inst)) if kind in ("add", "sub") else None
    if fused is not None:
        return _fused(d, inst, fused, spec, w, kind == "sub", _fast_f32("fma", fmt, spec))
    fast = _fast_f32(kind, fmt, spec)
    if fast is not None:
        fn = fast
    elif kind == "add":
        fn = lambda a, b, _s=spec: X.add(a, b, _s)  # noqa: E731
    elif kind == "sub":
        fn = lambda a, b, _s=spec: X.add(a, b, _s, negb=True)  # noqa: E731
    elif kind == "mul":
        fn = lambda a, b, _s=spec: X.mul(a, b, _s)  # noqa: E731
    elif kind in ("fma", "mad"):
        if kind == "mad" and not any(m in p for m in ROUNDING) and fmt is not F32:
            raise d.error(f"{inst.opcode}: needs a rounding mode")
        fn = lambda a, b, c, _s=spec: X.fma(a, b, c, _s)  # noqa: E731
    elif kind == "div":
        fn = lambda a, b, _s=spec: X.div(a, b, _s)  # noqa: E731
    elif kind == "sqrt":
        fn = lambda a, _s=spec: X.sqrt(a, _s)  # noqa: E731
    else:
        fn = lambda a, _s=spec: X.rcp(a, _s)  # noqa: E731
    nsrc = getattr(fn, "__wrapped__", fn).__code__.co_argcount - 1
    packed = _packed(fn, n, w)
    if fast is not None and n == 2 and kind != "sub":
        packed = _fast_pairs(kind, packed)
    return _emit(d, inst, packed, nsrc, w * n)


def _fast_f32(kind, fmt, spec):
    """add / sub / mul / fma.rn.f32 (and each word of .f32x2) without .ftz / .sat / .relu: sim/fast_f32.py's
    binary64 path, the exact one (fpexact) where it declines."""
    if fmt is not F32 or spec.mode != "rn" or spec.ftz or spec.sat or spec.relu or \
            kind not in ("add", "sub", "mul", "fma"):
        return None
    fast = {"add": F.add_rn, "sub": F.sub_rn, "mul": F.mul_rn, "fma": F.fma_rn}[kind]
    if kind == "fma":
        def exact3(a, b, c, _s=spec):
            return X.fma(a, b, c, _s)

        def fn(a, b, c, _s=spec):
            r = fast(a, b, c)
            return X.fma(a, b, c, _s) if r is None else r
        return _plain_only(fn, exact3)
    exact = {"add": X.add, "mul": X.mul}.get(kind)

    def exact2(a, b, _s=spec):
        return X.add(a, b, _s, negb=True) if exact is None else exact(a, b, _s)

    def fn(a, b, _s=spec):
        r = fast(a, b)
        return exact2(a, b) if r is None else r
    return _plain_only(fn, exact2)


def _fast_pairs(kind, each):
    """.f32x2: both words at once (sim/fast_f32.py), word by word (`each`) where that declines."""
    fast = {"add": F.add2_rn, "mul": F.mul2_rn, "fma": F.fma2_rn}[kind]
    if kind == "fma":
        def fn(a, b, c):
            r = fast(a, b, c)
            return each(a, b, c) if r is None else r
        return _plain_only(fn, each)

    def fn(a, b):
        r = fast(a, b)
        return each(a, b) if r is None else r
    return _plain_only(fn, each)


def _plain_only(fast, exact):
    """`fast` on plain operands; the exact path alone where one is guarded (a tcgen05.ld destination before
    its wait, a wgmma accumulator in flight), so that the instruction's reads of it are counted as the
    exact path counts them, not again by a fast path that declined."""
    def g(*args):
        if all(type(x) is int for x in args):
            return fast(*args)
        return exact(*args)
    g.__wrapped__ = fast  # (its arity: decode_arith counts the sources from it)
    return g


def _fused(d, inst, fused, spec, w: int, sub: bool, fast=None):
    """An add / sub the assembler fuses with the mul feeding it (sim/contract.py): one rounding of
    a * b + c, the product's sign flipped where it is the subtrahend."""
    mul, pos = fused
    a, b = mul.operands[1:]
    c = inst.operands[3 - pos]
    neg_p, neg_c = sub and pos == 2, sub and pos == 1
    sb = 1 << (w - 1)

    fma = fast or (lambda a, b, c, _s=spec: X.fma(a, b, c, _s))

    def fn(a, b, c, _np=neg_p, _nc=neg_c, _sb=sb, _f=fma):
        return _f(a ^ _sb if _np else a, b, c ^ _sb if _nc else c)
    dst = d.dst(inst.operands[0], w)
    srcs = [d.src(x, w, ftype=True) for x in (a, b, c)]
    return d.compile([dst(f"_op({', '.join(srcs)})")], {"_op": fn})


def decode_sqrt(d, inst):
    return decode_arith(d, inst, "sqrt")


def decode_rcp(d, inst):
    return decode_arith(d, inst, "rcp")


# ------------------------------------------------------------------------------- min / max
def _nan_code(fmt):
    return fmt.nan


def decode_minmax(d, inst, is_max: bool):
    """min/max: a NaN operand gives the other operand (.NaN: the canonical NaN); -0 < +0;
    .xorsign.abs: the smaller / larger magnitude with the XOR of the signs; three sources."""
    p = inst.parts
    t, fmt, n, spec, _ = _spec(d, inst, {"ftz", "NaN", "xorsign", "abs", "relu"}, modes=())
    propagate = "NaN" in p
    xorsign = "xorsign" in p
    absin = "abs" in p
    if xorsign and "abs" not in p:
        raise d.error(f"{inst.opcode}: .xorsign needs .abs")
    w = fmt.bits
    sbit = 1 << (w - 1)
    nsrc = len(inst.operands) - 1
    if nsrc not in (2, 3):
        raise d.error(f"{inst.opcode}: two or three sources")

    def key(v):  # -0 orders below +0
        return (v, math.copysign(1.0, v))

    def op(*codes, _s=spec):
        vals = []
        sign = 0
        for c in codes:
            if _s.ftz and is_subnormal(c, fmt):
                c &= sbit
            sign ^= c & sbit
            if absin or xorsign:
                c &= sbit - 1
            vals.append((decode(c, fmt), c))
        nums = [vc for vc in vals if vc[0] == vc[0]]
        if not nums or (propagate and len(nums) < len(vals)):
            return fmt.nan
        best = (max if is_max else min)(nums, key=lambda vc: key(vc[0]))[1]
        if xorsign:
            best = (best & (sbit - 1)) | sign
        return best
    if fmt is F32 and nsrc == 2 and not (spec.ftz or propagate or xorsign or absin or spec.relu):
        slow = op

        def op(a, b):  # (sim/fast_f32.py: two finite normal unequal values; the rest as above)
            r = F.maxmin(a, b, is_max)
            return slow(a, b) if r is None else r
    fn = _packed(op, n, w)
    return _emit(d, inst, fn, nsrc, w * n)


# ------------------------------------------------------------------------------- sign, tests
def decode_neg_abs(d, inst, is_abs: bool):
    t, fmt, n, spec, _ = _spec(d, inst, {"ftz"}, modes=())
    w = fmt.bits
    sbit = 1 << (w - 1)

    def op(c, _s=spec):
        if _s.ftz and is_subnormal(c, fmt):
            c &= sbit
        return c & (sbit - 1) if is_abs else c ^ sbit
    return _emit(d, inst, _packed(op, n, w), 1, w * n)


def decode_copysign(d, inst):
    """copysign d, a, b: b with the sign of a."""
    t, fmt, n, spec, _ = _spec(d, inst, set(), modes=())
    w = fmt.bits
    sbit = 1 << (w - 1)
    return _emit(d, inst, lambda a, b: (b & (sbit - 1)) | (a & sbit), 2, w)


_TESTS = {
    "finite": lambda v, c, f: math.isfinite(v),
    "infinite": lambda v, c, f: math.isinf(v),
    "number": lambda v, c, f: v == v,
    "notanumber": lambda v, c, f: v != v,
    "normal": lambda v, c, f: math.isfinite(v) and v != 0 and not is_subnormal(c, f),
    "subnormal": lambda v, c, f: is_subnormal(c, f),
}


def decode_testp(d, inst):
    p = inst.parts
    if len(p) != 3 or p[1] not in _TESTS or p[2] not in ("f32", "f64"):
        raise d.error(f"{inst.opcode}: testp.<{'|'.join(_TESTS)}>.<f32|f64>")
    fmt = FTYPES[p[2]][0]
    test = _TESTS[p[1]]
    return _emit(d, inst, lambda c: 1 if test(decode(c, fmt), c, fmt) else 0, 1, 1,
                 [fmt.bits])
