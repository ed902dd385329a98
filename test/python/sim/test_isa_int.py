"""Integer and logic instructions on tile-sim, every row of the ISA coverage table registered to this
test, against a reference written from the semantics blocks of the PTX ISA with Python integers;
and literal values worked out by hand from the ISA."""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows, run_rows, split

T = "test/python/sim/test_isa_int.py::"
LANES = 128
W = {"u16": 16, "s16": 16, "b16": 16, "u32": 32, "s32": 32, "b32": 32, "u64": 64, "s64": 64,
     "b64": 64, "u16x2": 32, "s16x2": 32, "pred": 1, "f32": 32, "f64": 64}


def sx(v, w):
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def halves(f, a, b, signed):
    out = 0
    for i in (0, 16):
        x, y = (a >> i) & 0xFFFF, (b >> i) & 0xFFFF
        if signed:
            x, y = sx(x, 16), sx(y, 16)
        out |= (f(x, y) & 0xFFFF) << i
    return out


PRMT = {"f4e": lambda s, i: (s + i) & 7, "b4e": lambda s, i: (s - i) & 7, "rc8": lambda s, i: s,
        "ecl": lambda s, i: max(i, s), "ecr": lambda s, i: min(i, s),
        "rc16": lambda s, i: 2 * (s & 1) + (i & 1)}


def ref(form, xs, cf):
    """(result, carry out or None) of one form on sources xs (raw bits), carry in cf."""
    p = form.split(".")
    op, t = p[0], p[-1]
    w = W.get(t, 32)
    m = (1 << w) - 1
    s = t.startswith("s")
    v = [sx(x, w) if s else x & m for x in xs]
    a = v[0] if v else 0
    if op in ("add", "sub", "addc", "subc") and t in ("u16x2", "s16x2"):
        f = (lambda x, y: x + y) if op == "add" else (lambda x, y: x - y)
        return halves(f, xs[0], xs[1], False), None
    if op in ("add", "addc"):
        r = (xs[0] & m) + (xs[1] & m) + (cf if op == "addc" else 0)
        if "sat" in p:
            return max(-(1 << 31), min((1 << 31) - 1, v[0] + v[1])), None
        return r, (r >> w) & 1
    if op in ("sub", "subc"):
        r = (xs[0] & m) - (xs[1] & m) - (cf if op == "subc" else 0)
        if "sat" in p:
            return max(-(1 << 31), min((1 << 31) - 1, v[0] - v[1])), None
        return r, 1 if r < 0 else 0
    if op in ("mul", "mad", "madc"):
        prod = v[0] * v[1]
        if "wide" in p:
            r = prod
            rw = 2 * w
            if op == "mad":
                r += sx(xs[2], rw) if s else xs[2] & ((1 << rw) - 1)
            return r, None
        part = (prod >> w) if "hi" in p else prod
        part &= m
        if op == "mul":
            return part, None
        r = part + (xs[2] & m) + (cf if op == "madc" else 0)
        if "sat" in p:
            return max(-(1 << 31), min((1 << 31) - 1, sx(part, 32) + sx(xs[2], 32))), None
        return r, (r >> w) & 1
    if op in ("mul24", "mad24"):
        e = (lambda x: sx(x, 24)) if s else (lambda x: x & 0xFFFFFF)
        prod = e(xs[0]) * e(xs[1])
        part = ((prod >> 16) if "hi" in p else prod) & 0xFFFFFFFF
        if op == "mul24":
            return part, None
        if "sat" in p:
            return max(-(1 << 31), min((1 << 31) - 1, sx(part, 32) + sx(xs[2], 32))), None
        return part + xs[2], None
    if op == "sad":
        return (xs[2] & m) + abs(v[0] - v[1]), None
    if op == "div":
        if v[1] == 0:
            return None, None  # undefined by the ISA: not compared
        q = abs(v[0]) // abs(v[1])
        return (q if (v[0] >= 0) == (v[1] >= 0) else -q), None
    if op == "rem":
        if v[1] == 0:
            return None, None
        r = abs(v[0]) % abs(v[1])
        return (r if v[0] >= 0 else -r), None
    if op == "abs":
        return abs(sx(xs[0], w)), None
    if op == "neg":
        return -xs[0], None
    if op in ("min", "max"):
        pick = min if op == "min" else max
        if t in ("u16x2", "s16x2"):
            f = (lambda x, y: max(pick(x, y), 0)) if "relu" in p else pick
            return halves(f, xs[0], xs[1], t == "s16x2"), None
        r = pick(v[0], v[1])
        return (max(r, 0) if "relu" in p else r), None
    if op == "popc":
        return bin(xs[0] & m).count("1"), None
    if op == "clz":
        return w - (xs[0] & m).bit_length(), None
    if op == "bfind":
        x = xs[0] & m
        if s and x >> (w - 1):
            x = ~x & m
        if x == 0:
            return 0xFFFFFFFF, None
        pos = x.bit_length() - 1
        return (w - 1 - pos if "shiftamt" in p else pos), None
    if op == "brev":
        return int(format(xs[0] & m, f"0{w}b")[::-1], 2), None
    if op == "bfe":
        pos, ln = xs[1] & 0xFF, xs[2] & 0xFF
        x = xs[0] & m
        sbit = 0
        if s and ln:
            sbit = (x >> min(pos + ln - 1, w - 1)) & 1
        r = 0
        for i in range(w):
            r |= ((x >> (pos + i)) & 1 if (i < ln and pos + i <= w - 1) else sbit) << i
        return r, None
    if op == "bfi":
        f, b, pos, ln = xs[0] & m, xs[1] & m, xs[2] & 0xFF, xs[3] & 0xFF
        r = b
        for i in range(ln):
            if pos + i < w:
                r = (r & ~(1 << (pos + i))) | (((f >> i) & 1) << (pos + i))
        return r, None
    if op == "fns":
        msk, base, off = xs[0] & 0xFFFFFFFF, xs[1] & 0xFFFFFFFF, sx(xs[2], 32)
        if off == 0:
            return (base if base < 32 and (msk >> base) & 1 else 0xFFFFFFFF), None
        pos, count, inc = base, abs(off) - 1, 1 if off > 0 else -1
        while 0 <= pos < 32:
            if (msk >> pos) & 1:
                if count == 0:
                    return pos, None
                count -= 1
            pos += inc
        return 0xFFFFFFFF, None
    if op == "prmt":
        src = (xs[0] & 0xFFFFFFFF) | ((xs[1] & 0xFFFFFFFF) << 32)
        c = xs[2]
        out = 0
        for i in range(4):
            if len(p) == 3:
                k = PRMT[p[2]](c & 3, i)
                byte = (src >> (8 * k)) & 0xFF
            else:
                sel = (c >> (4 * i)) & 0xF
                byte = (src >> (8 * (sel & 7))) & 0xFF
                if sel & 8:
                    byte = 0xFF if byte & 0x80 else 0
            out |= byte << (8 * i)
        return out, None
    if op == "shf":
        n = min(xs[2] & 0xFFFFFFFF, 32) if p[2] == "clamp" else xs[2] & 31
        cat = ((xs[1] & 0xFFFFFFFF) << 32) | (xs[0] & 0xFFFFFFFF)
        return ((cat << n) >> 32 if p[1] == "l" else cat >> n), None
    if op == "shl":
        n = xs[1] & 0xFFFFFFFF
        return ((xs[0] & m) << n if n < w else 0), None
    if op == "shr":
        n = min(xs[1] & 0xFFFFFFFF, w)
        return (v[0] >> n), None
    if op == "lop3":
        lut = 1  # the table's instance: immLut = 1 (~a & ~b & ~c)
        a_, b_, c_ = xs[0] & m, xs[1] & m, xs[2] & m
        r = 0
        for i in range(8):
            if (lut >> i) & 1:
                r |= (a_ if i & 4 else ~a_) & (b_ if i & 2 else ~b_) & (c_ if i & 1 else ~c_)
        return r & m, None
    if op in ("dp4a", "dp2a"):
        sa, sb = p[-2] == "s32", p[-1] == "s32"
        lanes = (lambda x, n, ww, sg: [sx(x >> (i * ww), ww) if sg else (x >> (i * ww)) & ((1 << ww) - 1)
                                       for i in range(n)])
        cc = sx(xs[2], 32) if (sa or sb) else xs[2] & 0xFFFFFFFF
        if op == "dp4a":
            return cc + sum(x * y for x, y in zip(lanes(xs[0], 4, 8, sa), lanes(xs[1], 4, 8, sb))), None
        va, vb = lanes(xs[0], 2, 16, sa), lanes(xs[1], 4, 8, sb)
        k = 0 if p[1] == "lo" else 2
        return cc + va[0] * vb[k] + va[1] * vb[k + 1], None
    if op == "bmsk":
        clamp = p[1] == "clamp"
        a1, b1 = xs[0] & 0x1F, xs[1] & 0x1F
        m0 = (0xFFFFFFFF << a1) & 0xFFFFFFFF
        sm = a1 + b1
        m1 = (0xFFFFFFFF << sm) & 0xFFFFFFFF if sm < 32 else 0
        over = sm >= 32
        if clamp:
            if (xs[0] & 0xFFFFFFFF) >= 32:
                over, m0 = True, 0
            if (xs[1] & 0xFFFFFFFF) >= 32:
                over = True
        if over:
            m1 = 0
        elif b1 == 0:
            m1 = 0xFFFFFFFF
        return m0 & ~m1, None
    if op == "szext":
        b = xs[1] & 0xFFFFFFFF
        b1 = b & 0x1F
        big = b >= 32 and p[1] == "clamp"
        mk = 0 if big else (0xFFFFFFFF << b1) & 0xFFFFFFFF
        sign = 0 if (b1 == 0 or big or t != "s32") else (xs[0] >> ((b1 - 1) & 0x1F)) & 1
        return (xs[0] & ~mk & 0xFFFFFFFF) | (mk if sign else 0), None
    if op == "mov":
        return xs[0], None
    if op in ("and", "or", "xor"):
        f = {"and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y}[op]
        return f(xs[0] & m, xs[1] & m), None
    if op == "not":
        return ~xs[0], None
    if op == "cnot":
        return (1 if xs[0] & m == 0 else 0), None
    raise AssertionError(form)


ROWS = isa_rows(T + "test_int_rows")
EDGE = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
        31, 32, 33, 63, 64, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF, 5, 7, 8, 16]


@pytest.mark.parametrize("chunk", range(2))
def test_int_rows(chunk):
    """Every registered integer / logic form over edge values and random 64-bit patterns."""
    rows = [dict(r, carry_in=r["form"].split(".")[0] in ("addc", "subc", "madc"))
            for r in ROWS[chunk::2]]
    rng = np.random.default_rng(3120 + chunk)
    inp = rng.integers(0, 1 << 63, (len(rows), 4, LANES), dtype=np.uint64) * np.uint64(2) + \
        rng.integers(0, 2, (len(rows), 4, LANES), dtype=np.uint64)
    small = rng.integers(0, 70, (len(rows), 4, LANES), dtype=np.uint64)
    inp[:, :, 64:96] = small[:, :, 64:96]  # shift amounts, bit positions and lengths in range
    for k in range(4):
        inp[:, k, :len(EDGE)] = np.array(EDGE[k:] + EDGE[:k], np.uint64)
    out = run_rows(rows, inp, LANES)
    bad = []
    for i, r in enumerate(rows):
        op, ops = split(r["text"])
        dst = ops[0]
        dw = 64 if dst.startswith("%rd") else 16 if dst.startswith("%h") else \
            1 if dst.startswith("%p") else 32
        for lane in range(LANES):
            xs = [int(inp[i, k, lane]) for k in range(len(ops) - 1)]
            if r["form"].startswith("lop3"):
                xs = xs[:3]
            cf = 1 if r["carry_in"] and int(inp[i, 3, lane]) & 0xFFFFFFFF else 0
            if r["form"].endswith(".pred"):  # a predicate source is set when its input is not 0
                xs = [1 if x else 0 for x in xs]
            want, _ = ref(r["form"], xs, cf)
            if want is None:
                continue
            want &= (1 << dw) - 1
            got = int(out[i, 0, lane])
            if got != want:
                bad.append(f"{r['text']} {[hex(x) for x in xs]} cf={cf} -> {got:#x}, expected {want:#x}")
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:12])


LITERAL = [  # (instruction, sources, result): from the ISA's semantics, by hand
    ("prmt.b32.f4e", [0xF0F01234, 5, 1], 0x05F0F012),
    ("prmt.b32.b4e", [0x03020100, 0x07060504, 0], 0x05060700),
    ("prmt.b32.rc16", [0x03020100, 0, 1], 0x03020302),
    ("shf.l.wrap.b32", [0x80000001, 0x00000001, 33], 0x00000003),
    ("shf.r.clamp.b32", [0x00000000, 0x00000001, 40], 0x00000001),  # n clamps to 32: b
    ("bmsk.clamp.b32", [4, 8], 0x00000FF0),
    ("szext.wrap.s32", [0x000000F0, 8], 0xFFFFFFF0),
    ("fns.b32", [0b101100, 0, 2], 3),
    ("fns.b32", [0b101100, 5, -2 & 0xFFFFFFFF], 3),
    ("dp4a.s32.u32", [0xFF010203, 0x01010101, 10], 10 - 1 + 1 + 2 + 3),
    ("dp2a.hi.u32.u32", [0x00020003, 0x05040000, 1], 1 + 3 * 4 + 2 * 5),
    ("sad.u32", [3, 10, 100], 107),
    ("mad24.hi.u32", [0x00800000, 0x00800000, 0], 0x40000000),  # bits 47..16 of 2^46
]


@pytest.mark.parametrize("inst, srcs, want", LITERAL, ids=[x[0] for x in LITERAL])
def test_literal(inst, srcs, want):
    text = f"{inst} %r1, " + ", ".join(f"%r{k + 2}" for k in range(len(srcs))) + ";"
    inp = np.zeros((1, 4, LANES), np.uint64)
    for k, v in enumerate(srcs):
        inp[0, k, :] = v
    out = run_rows([{"text": text}], inp, LANES)
    assert int(out[0, 0, 0]) == want, f"{inst}: {int(out[0, 0, 0]):#x} != {want:#x}"


def test_carry_chain_128bit():
    """A 128-bit add and subtract in four 32-bit words through CC.CF."""
    import random
    rnd = random.Random(31)
    for _ in range(3):
        x, y = rnd.getrandbits(128), rnd.getrandbits(128)
        words = lambda v: [(v >> (32 * i)) & 0xFFFFFFFF for i in range(4)]  # noqa: E731
        inp = np.zeros((8, 4, LANES), np.uint64)
        rows = []
        for i, (a, b) in enumerate(zip(words(x), words(y))):
            inp[i, 0], inp[i, 1] = a, b
        # one row per word: the chain runs in row order, in one thread
        for i, head in enumerate(["add.cc.u32", "addc.cc.u32", "addc.cc.u32", "addc.u32"]):
            rows.append({"text": f"{head} %r1, %r2, %r3;"})
        for i, head in enumerate(["sub.cc.u32", "subc.cc.u32", "subc.cc.u32", "subc.u32"]):
            rows.append({"text": f"{head} %r1, %r2, %r3;"})
            inp[4 + i, 0], inp[4 + i, 1] = words(x)[i], words(y)[i]
        out = run_rows(rows, inp, LANES)
        s = sum(int(out[i, 0, 0]) << (32 * i) for i in range(4))
        d = sum(int(out[4 + i, 0, 0]) << (32 * i) for i in range(4))
        assert s == (x + y) & ((1 << 128) - 1)
        assert d == (x - y) & ((1 << 128) - 1)
