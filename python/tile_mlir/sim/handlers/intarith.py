"""Integer instructions beyond alu.py's: min/max (.relu, u16x2/s16x2), packed add/sub, the carry
chain (add.cc, addc, sub.cc, subc, mad.cc, madc), mad24, sad, dp4a, dp2a, bmsk, szext, fns, shf
and the prmt modes.  Written from the PTX ISA's "Integer Arithmetic Instructions" and "Logic and
Shift Instructions", whose semantics blocks these follow line by line.

The carry flag CC.CF is one hidden register per thread (``_cc_slot``); sub.cc and subc use it as
the borrow (subc computes a - (b + CF), so CF must be the borrow of the previous word).
"""

from __future__ import annotations

from ..codegen import mask
from ..ptx_parser import TYPE_BITS

PACKED16 = {"u16x2": False, "s16x2": True}
class _CarryFlag:
    """CC.CF's place among the register slots (keyed as registers are: declaration, index)."""
    name = "CC.CF"
    special = False


_CC_KEY = (_CarryFlag(), None)  # a slot key no PTX register has


def _tsuffix(d, inst, allowed):
    t = inst.parts[-1]
    if t not in allowed:
        raise d.error(f"{inst.parts[0]}: type .{t} is not defined here")
    return t


def _sx(v, w):
    return v - (1 << w) if (v >> (w - 1)) & 1 else v


def _halves(fn, signed):
    def f(a, b):
        out = 0
        for i in (0, 16):
            x, y = (a >> i) & 0xFFFF, (b >> i) & 0xFFFF
            if signed:
                x, y = _sx(x, 16), _sx(y, 16)
            out |= (fn(x, y) & 0xFFFF) << i
        return out
    return f


def decode_minmax(d, inst, fn):
    p = inst.parts
    t = p[-1]
    relu = "relu" in p
    if t in PACKED16:
        pick = min if fn == "min" else max
        op = _halves((lambda x, y: max(pick(x, y), 0)) if relu else pick, PACKED16[t])
        dd, a, b = d.operands(3)
        return d.compile([d.dst(dd, 32)(f"_op({d.src(a, 32)}, {d.src(b, 32)})")], {"_op": op})
    if t not in TYPE_BITS:
        raise d.error(f"{fn}: unknown type .{t}")
    w, s = TYPE_BITS[t], t.startswith("s")
    dd, a, b = d.operands(3)
    e = f"{fn}({d.src(a, w, s)}, {d.src(b, w, s)})"
    if relu:
        e = f"max({e}, 0)"
    return d.compile([d.dst(dd, w)(e)])


def decode_add_packed(d, inst, sub):
    t = inst.parts[-1]
    op = _halves((lambda x, y: x - y) if sub else (lambda x, y: x + y), False)
    dd, a, b = d.operands(3)
    return d.compile([d.dst(dd, 32)(f"_op({d.src(a, 32)}, {d.src(b, 32)})")], {"_op": op})


# ------------------------------------------------------------------------------- carry chain
def _cc_slot(d):
    s = d.slots.get(_CC_KEY)
    if s is None:
        s = d.slots[_CC_KEY] = len(d.slots)
    return s


def decode_carry(d, inst):
    """add.cc, addc{.cc}, sub.cc, subc{.cc}, mad{.hi,.lo}.cc, madc{.hi,.lo}{.cc}."""
    p = inst.parts
    head = p[0]
    t = _tsuffix(d, inst, ("u32", "s32", "u64", "s64"))
    w = TYPE_BITS[t]
    cc = _cc_slot(d)
    sets = "cc" in p
    uses = head in ("addc", "subc", "madc")
    cin = f"r[{cc}]" if uses else "0"
    if head in ("mad", "madc"):
        dd, a, b, c = d.operands(4)
        signed = t.startswith("s")
        prod = f"({d.src(a, w, signed)} * {d.src(b, w, signed)})"
        if "hi" in p:
            prod = f"(({prod} >> {w}) & {mask(w):#x})"
        elif "lo" in p:
            prod = f"({prod} & {mask(w):#x})"
        else:
            raise d.error(f"{inst.opcode}: needs .hi or .lo")
        full = f"{prod} + {d.src(c, w)} + {cin}"
    else:
        dd, a, b = d.operands(3)
        if head in ("add", "addc"):
            full = f"{d.src(a, w)} + {d.src(b, w)} + {cin}"
        else:
            full = f"{d.src(a, w)} - {d.src(b, w)} - {cin}"
    lines = [f"_v = {full}", d.dst(dd, w)("_v")]
    if sets:
        if head in ("sub", "subc"):
            lines.append(f"r[{cc}] = 1 if _v < 0 else 0")
        else:
            lines.append(f"r[{cc}] = _v >> {w}")
    return d.compile(lines)


# ------------------------------------------------------------------------------- mad24, sad, dot products
def decode_mad24(d, inst):
    p = inst.parts
    t = _tsuffix(d, inst, ("u32", "s32"))
    s = t == "s32"
    dd, a, b, c = d.operands(4)
    ext = (lambda e: f"((({e} & 0xffffff) ^ 0x800000) - 0x800000)") if s else \
        (lambda e: f"({e} & 0xffffff)")
    prod = f"{ext(d.src(a, 32))} * {ext(d.src(b, 32))}"
    if "hi" in p:
        e = f"((({prod}) >> 16) & 0xffffffff)"
        e = f"_sx({e}) + {d.src(c, 32, True)}" if s else f"{e} + {d.src(c, 32)}"
        if "sat" in p:
            if not s:
                raise d.error("mad24.hi.sat is defined for .s32 only")
            e = f"max({-(1 << 31)}, min({(1 << 31) - 1}, {e}))"
    elif "lo" in p:
        if "sat" in p:
            raise d.error("mad24: .sat is defined for .hi only")
        e = f"({prod}) + {d.src(c, 32)}"
    else:
        raise d.error("mad24 needs .hi or .lo")
    return d.compile([d.dst(dd, 32)(e)], {"_sx": lambda v: _sx(v, 32)})


def decode_sad(d, inst):
    t = _tsuffix(d, inst, ("u16", "u32", "u64", "s16", "s32", "s64"))
    w, s = TYPE_BITS[t], t.startswith("s")
    dd, a, b, c = d.operands(4)
    return d.compile([d.dst(dd, w)(f"{d.src(c, w)} + abs({d.src(a, w, s)} - {d.src(b, w, s)})")])


def _lanes(v, n, w, signed):
    out = []
    for i in range(n):
        x = (v >> (i * w)) & mask(w)
        out.append(_sx(x, w) if signed else x)
    return out


def decode_dp4a(d, inst):
    p = inst.parts
    if len(p) != 3 or any(x not in ("u32", "s32") for x in p[1:]):
        raise d.error("dp4a.<u32|s32>.<u32|s32>")
    sa, sb = p[1] == "s32", p[2] == "s32"
    dd, a, b, c = d.operands(4)

    def op(x, y, z):
        return z + sum(u * v for u, v in zip(_lanes(x, 4, 8, sa), _lanes(y, 4, 8, sb)))
    return d.compile([d.dst(dd, 32)(f"_op({d.src(a, 32)}, {d.src(b, 32)}, {d.src(c, 32, sa or sb)})")],
                     {"_op": op})


def decode_dp2a(d, inst):
    p = inst.parts
    if len(p) != 4 or p[1] not in ("lo", "hi") or any(x not in ("u32", "s32") for x in p[2:]):
        raise d.error("dp2a.<lo|hi>.<u32|s32>.<u32|s32>")
    sa, sb, sel = p[2] == "s32", p[3] == "s32", 0 if p[1] == "lo" else 2
    dd, a, b, c = d.operands(4)

    def op(x, y, z):
        va, vb = _lanes(x, 2, 16, sa), _lanes(y, 4, 8, sb)
        return z + va[0] * vb[sel] + va[1] * vb[sel + 1]
    return d.compile([d.dst(dd, 32)(f"_op({d.src(a, 32)}, {d.src(b, 32)}, {d.src(c, 32, sa or sb)})")],
                     {"_op": op})


# ------------------------------------------------------------------------------- bit fields
def _mode(d, inst):
    m = [x for x in inst.parts if x in ("clamp", "wrap")]
    if len(m) != 1:
        raise d.error(f"{inst.parts[0]} needs .clamp or .wrap")
    return m[0]


def _bmsk(a, b, clamp):
    a1, b1 = a & 0x1F, b & 0x1F
    m0 = (0xFFFFFFFF << a1) & 0xFFFFFFFF
    s = a1 + b1
    m1 = (0xFFFFFFFF << s) & 0xFFFFFFFF if s < 32 else 0
    over = s >= 32
    if clamp:
        if a >= 32:
            over, m0 = True, 0
        if b >= 32:
            over = True
    if over:
        m1 = 0
    elif b1 == 0:
        m1 = 0xFFFFFFFF
    return m0 & ~m1 & 0xFFFFFFFF


def decode_bmsk(d, inst):
    clamp = _mode(d, inst) == "clamp"
    dd, a, b = d.operands(3)
    return d.compile([d.dst(dd, 32)(f"_bmsk({d.src(a, 32)}, {d.src(b, 32)}, {clamp})")],
                     {"_bmsk": _bmsk})


def _szext(a, b, clamp, signed):
    b1 = b & 0x1F
    too_large = b >= 32 and clamp
    m = 0 if too_large else (0xFFFFFFFF << b1) & 0xFFFFFFFF
    sign = 0 if (b1 == 0 or too_large or not signed) else (a >> ((b1 - 1) & 0x1F)) & 1
    return (a & ~m & 0xFFFFFFFF) | (m if sign else 0)


def decode_szext(d, inst):
    clamp = _mode(d, inst) == "clamp"
    t = _tsuffix(d, inst, ("u32", "s32"))
    dd, a, b = d.operands(3)
    return d.compile([d.dst(dd, 32)(f"_szext({d.src(a, 32)}, {d.src(b, 32)}, {clamp}, {t == 's32'})")],
                     {"_szext": _szext})


def _fns(m, base, offset):
    if offset == 0:
        return base if base < 32 and (m >> base) & 1 else 0xFFFFFFFF
    pos, count, inc = base, abs(offset) - 1, 1 if offset > 0 else -1
    while 0 <= pos < 32:
        if (m >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return 0xFFFFFFFF


def decode_fns(d, inst):
    _tsuffix(d, inst, ("b32",))
    dd, m, base, off = d.operands(4)
    return d.compile([d.dst(dd, 32)(f"_fns({d.src(m, 32)}, {d.src(base, 32)}, {d.src(off, 32, True)})")],
                     {"_fns": _fns})


def decode_shf(d, inst):
    p = inst.parts
    if len(p) != 4 or p[1] not in ("l", "r") or p[3] != "b32":
        raise d.error("shf.<l|r>.<clamp|wrap>.b32")
    clamp = _mode(d, inst) == "clamp"
    dd, a, b, c = d.operands(4)
    n = f"min({d.src(c, 32)}, 32)" if clamp else f"({d.src(c, 32)} & 31)"
    cat = f"(({d.src(b, 32)} << 32) | {d.src(a, 32)})"
    e = f"({cat} << {n}) >> 32" if p[1] == "l" else f"{cat} >> {n}"
    return d.compile([d.dst(dd, 32)(e)])


# ------------------------------------------------------------------------------- prmt modes
#: byte i of the result, for selector s = c[1:0] (PTX ISA, prmt's mode table)
PRMT_MODES = {
    "f4e": lambda s, i: (s + i) & 7,
    "b4e": lambda s, i: (s - i) & 7,
    "rc8": lambda s, i: s,
    "ecl": lambda s, i: max(i, s),
    "ecr": lambda s, i: min(i, s),
    "rc16": lambda s, i: 2 * (s & 1) + (i & 1),
}


def decode_prmt_mode(d, inst, mode):
    if mode not in PRMT_MODES:
        raise d.error(f"prmt: unknown mode .{mode}")
    table = [[PRMT_MODES[mode](s, i) for i in range(4)] for s in range(4)]
    dd, a, b, c = d.operands(4)

    def op(x, y, z):
        src = x | (y << 32)
        return sum(((src >> (8 * k)) & 0xFF) << (8 * i) for i, k in enumerate(table[z & 3]))
    return d.compile([d.dst(dd, 32)(f"_op({d.src(a, 32)}, {d.src(b, 32)}, {d.src(c, 32)})")],
                     {"_op": op})
