"""Integer, bitwise, floating-point, comparison and selection instructions (mov, cvt and cvta are
in convert.py).

Each ``decode_<mnemonic>(d, inst)`` returns the per-thread closure for one instruction; see
:mod:`tile_mlir.sim.codegen` for the operand conventions.
"""

from __future__ import annotations

from ..codegen import mask
from ..ptx_parser import TYPE_BITS
from . import compare, fparith, intarith

FLOAT_TYPES = {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2"}


def type_suffix(d, inst, allowed=None):
    t = inst.parts[-1]
    if t not in TYPE_BITS:
        raise d.error(f"missing or unknown type suffix .{t}")
    if allowed is not None and t not in allowed:
        raise d.error(f"type .{t} is not supported for {inst.parts[0]}")
    return t, TYPE_BITS[t], t.startswith("s")


def _ops(d, inst, n):
    return d.operands(n)


def _float(inst):
    return fparith.is_float(inst.parts[-1])


def decode_add(d, inst, sub=False):
    if _float(inst):
        return fparith.decode_arith(d, inst, "sub" if sub else "add")
    if "cc" in inst.parts or inst.parts[0] in ("addc", "subc"):
        return intarith.decode_carry(d, inst)
    if inst.parts[-1] in intarith.PACKED16:
        return intarith.decode_add_packed(d, inst, sub)
    t, w, s = type_suffix(d, inst)
    dd, a, b = _ops(d, inst, 3)
    op = "-" if sub else "+"
    if "sat" in inst.parts:
        e = f"max({-(1 << (w - 1))}, min({(1 << (w - 1)) - 1}, {d.src(a, w, True)} {op} "\
            f"{d.src(b, w, True)}))"
        return d.compile([d.dst(dd, w)(e)])
    return d.compile([d.dst(dd, w)(f"{d.src(a, w)} {op} {d.src(b, w)}")])


def decode_sub(d, inst):
    return decode_add(d, inst, sub=True)


def decode_mul(d, inst):
    if _float(inst):
        return fparith.decode_arith(d, inst, "mul")
    t, w, s = type_suffix(d, inst)
    dd, a, b = _ops(d, inst, 3)
    p = inst.parts
    e = f"{d.src(a, w, s)} * {d.src(b, w, s)}"
    if "wide" in p:
        return d.compile([d.dst(dd, 2 * w)(e)])
    if "hi" in p:
        return d.compile([d.dst(dd, w)(f"({e}) >> {w}")])
    return d.compile([d.dst(dd, w)(e)])


def decode_mul24(d, inst):
    t, w, s = type_suffix(d, inst)
    dd, a, b = _ops(d, inst, 3)
    ea = f"(({d.src(a, w)} & 0xffffff ^ 0x800000) - 0x800000)" if s else f"({d.src(a, w)} & 0xffffff)"
    eb = f"(({d.src(b, w)} & 0xffffff ^ 0x800000) - 0x800000)" if s else f"({d.src(b, w)} & 0xffffff)"
    e = f"{ea} * {eb}"
    if "hi" in inst.parts:
        e = f"({e}) >> 16"
    return d.compile([d.dst(dd, w)(e)])


def decode_mad(d, inst):
    if _float(inst):
        return fparith.decode_arith(d, inst, "mad")
    if "cc" in inst.parts or inst.parts[0] == "madc":
        return intarith.decode_carry(d, inst)
    t, w, s = type_suffix(d, inst)
    dd, a, b, c = _ops(d, inst, 4)
    p = inst.parts
    e = f"{d.src(a, w, s)} * {d.src(b, w, s)}"
    if "wide" in p:
        return d.compile([d.dst(dd, 2 * w)(f"{e} + {d.src(c, 2 * w, s)}")])
    if "hi" in p and "sat" in p:  # mad.hi.sat.s32: the sum saturated to the s32 range
        if t != "s32":
            raise d.error("mad.hi.sat is defined for .s32 only")
        hi = f"(((({e}) >> 32) & 0xffffffff) ^ 0x80000000) - 0x80000000"
        return d.compile([d.dst(dd, w)(f"max({-(1 << 31)}, min({(1 << 31) - 1}, {hi} + "
                                       f"{d.src(c, w, s)}))")])
    if "hi" in p:
        return d.compile([d.dst(dd, w)(f"(({e}) >> {w}) + {d.src(c, w, s)}")])
    return d.compile([d.dst(dd, w)(f"{e} + {d.src(c, w, s)}")])


def decode_fma(d, inst):
    return fparith.decode_arith(d, inst, "fma")


def decode_div(d, inst):
    if _float(inst):
        return fparith.decode_arith(d, inst, "div")
    t, w, s = type_suffix(d, inst)
    dd, a, b = _ops(d, inst, 3)
    return d.compile([d.dst(dd, w)(f"_idiv({d.src(a, w, s)}, {d.src(b, w, s)}, {mask(w)}, M)")],
                     {"_idiv": _idiv})


def decode_rem(d, inst):
    t, w, s = type_suffix(d, inst)
    dd, a, b = _ops(d, inst, 3)
    return d.compile([d.dst(dd, w)(f"_irem({d.src(a, w, s)}, {d.src(b, w, s)}, M)")],
                     {"_irem": _irem})


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
    if _float(inst):
        return fparith.decode_minmax(d, inst, fn == "max")
    return intarith.decode_minmax(d, inst, fn)


def decode_max(d, inst):
    return decode_min(d, inst, "max")


def decode_neg(d, inst):
    if _float(inst):
        return fparith.decode_neg_abs(d, inst, False)
    t, w, s = type_suffix(d, inst)
    dd, a = _ops(d, inst, 2)
    return d.compile([d.dst(dd, w)(f"-{d.src(a, w)}")])


def decode_abs(d, inst):
    if _float(inst):
        return fparith.decode_neg_abs(d, inst, True)
    t, w, s = type_suffix(d, inst)
    dd, a = _ops(d, inst, 2)
    return d.compile([d.dst(dd, w)(f"abs({d.src(a, w, True)})")])


# ------------------------------------------------------------------------------- bitwise
def _bitop(d, inst, op):
    t, w, s = type_suffix(d, inst)
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
    t, w, s = type_suffix(d, inst)
    dd, a = _ops(d, inst, 2)
    return d.compile([d.dst(dd, dst_bits or w)(expr(d.src(a, w), w))])


def decode_not(d, inst):
    return _unary(d, inst, lambda x, w: f"~{x}")


def decode_cnot(d, inst):
    return _unary(d, inst, lambda x, w: f"1 if {x} == 0 else 0")


def decode_shl(d, inst):
    t, w, s = type_suffix(d, inst)
    dd, a, b = _ops(d, inst, 3)
    return d.compile([d.dst(dd, w)(f"{d.src(a, w)} << min({d.src(b, 32)}, {w})")])


def decode_shr(d, inst):
    t, w, s = type_suffix(d, inst)
    dd, a, b = _ops(d, inst, 3)
    return d.compile([d.dst(dd, w)(f"{d.src(a, w, s)} >> min({d.src(b, 32)}, {w})")])


def decode_bfe(d, inst):
    t, w, s = type_suffix(d, inst)
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
    t, w, s = type_suffix(d, inst)
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
    if len(inst.parts) == 3 and inst.parts[1] == "b32":  # prmt.b32.mode
        return intarith.decode_prmt_mode(d, inst, inst.parts[2])
    if inst.parts[1:] != ["b32"]:
        raise d.error(f"prmt: `{inst.opcode}` is not prmt.b32{{.mode}}")
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
    t, w, s = type_suffix(d, inst)
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
    t, w, s = type_suffix(d, inst, {"b32"})
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
def decode_setp(d, inst):
    return compare.decode_setp(d, inst)


def decode_set(d, inst):
    return compare.decode_set(d, inst)


def decode_selp(d, inst):
    return compare.decode_selp(d, inst)


def decode_slct(d, inst):
    return compare.decode_slct(d, inst)
