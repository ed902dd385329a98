"""setp, set, selp and slct on tile-sim: every row of the ISA coverage table registered to this test,
against a reference written from the PTX ISA's definitions (ordered / unordered comparisons, NaN,
.ftz, boolean combination, the packed halves)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tiers
from isa_harness import BITS, isa_rows, random_codes, run_rows, specials, split, value

T = "test/python/sim/test_isa_compare.py::"
LANES = 128
INT_W = {"b16": 16, "u16": 16, "s16": 16, "b32": 32, "u32": 32, "s32": 32, "b64": 64, "u64": 64,
         "s64": 64}
FL = {"f32": "f32", "f64": "f64", "f16": "f16", "bf16": "bf16", "f16x2": "f16", "bf16x2": "bf16"}
ONE = {"f32": 0x3F800000, "f16": 0x3C00, "bf16": 0x3F80, "f16x2": 0x3C00, "bf16x2": 0x3F80}
ORD = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
       "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}


def sx(v, w):
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def cmp(op, t, a, b, ftz):
    if t in FL:
        f = FL[t]
        if ftz and f in ("f32", "f16"):
            e = {"f32": 23, "f16": 10}[f]
            a, b = [c & (1 << (BITS[f] - 1)) if 0 < (c & ((1 << (BITS[f] - 1)) - 1)) < (1 << e)
                    else c for c in (a, b)]
        x, y = value(a, f), value(b, f)
        nan = math.isnan(x) or math.isnan(y)
        if op == "num":
            return not nan
        if op == "nan":
            return nan
        if op.endswith("u") and op[:-1] in ORD:
            return nan or ORD[op[:-1]](x, y)
        return (not nan) and ORD[op](x, y)
    w = INT_W[t]
    uns = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
    if op in uns:
        return ORD[uns[op]](a & ((1 << w) - 1), b & ((1 << w) - 1))
    if t.startswith("s"):
        return ORD[op](sx(a, w), sx(b, w))
    return ORD[op](a & ((1 << w) - 1), b & ((1 << w) - 1))


BOOL = {"and": lambda t, c: t & c, "or": lambda t, c: t | c, "xor": lambda t, c: t ^ c}


def ref(form, xs):
    """[(output 0), (output 1)] of a form on raw sources."""
    p = form.split(".")
    op = p[0]
    if op == "selp":
        return [xs[0] if xs[2] else xs[1], None]
    if op == "slct":
        c = xs[2] & 0xFFFFFFFF
        if p[-1] == "f32":
            if "ftz" in p and 0 < (c & 0x7FFFFFFF) < 0x800000:
                c &= 0x80000000
            ok = value(c, "f32") >= 0
        else:
            ok = sx(c, 32) >= 0
        return [xs[0] if ok else xs[1], None]
    c_op = p[1]
    bo = p[2] if len(p) > 2 and p[2] in BOOL else None
    ftz = "ftz" in p
    st = p[-1]
    cin = (1 if xs[2] else 0) if bo else None
    comb = (lambda t: BOOL[bo](t, cin)) if bo else (lambda t: t)
    if st.endswith("x2"):
        ts = [int(cmp(c_op, st, (xs[0] >> s) & 0xFFFF, (xs[1] >> s) & 0xFFFF, ftz)) for s in (0, 16)]
        if op == "setp":
            return [comb(ts[0]), comb(ts[1])]
        dt = p[-2]
        one = ONE.get(dt, 0xFFFF)
        return [(one if comb(ts[0]) else 0) | ((one if comb(ts[1]) else 0) << 16), None]
    t = int(cmp(c_op, st, xs[0], xs[1], ftz))
    if op == "setp":
        return [comb(t), comb(1 - t)]
    dt = p[-2]
    dw = INT_W.get(dt) or BITS.get(dt, 32)
    one = ONE.get(dt, (1 << dw) - 1)
    return [one if comb(t) else 0, None]


ROWS = isa_rows(T + "test_compare_rows")


def _codes(rng, t):
    if t in ("f32", "f64", "f16", "bf16"):
        c = random_codes(rng, t, LANES)
        sp = specials(t)
        c[:len(sp)] = sp
        c[len(sp):2 * len(sp)] = sp[::-1]
        return c
    if t in ("f16x2", "bf16x2"):
        f = FL[t]
        lo, hi = _codes(rng, f), _codes(rng, f)
        return lo | (np.roll(hi, 3) << np.uint64(16))
    c = rng.integers(0, 1 << 63, LANES, dtype=np.uint64)
    c[::3] = rng.integers(0, 4, len(c[::3]), dtype=np.uint64)  # equal values now and then
    c[::5] |= np.uint64(1 << 63)
    return c


@pytest.mark.parametrize("chunk", tiers.chunks(4, fast=(0,)))  # (1 in make test)
def test_compare_rows(chunk):
    """Every registered setp / set / selp / slct form."""
    rows = ROWS[chunk::4]
    rng = np.random.default_rng(3130 + chunk)
    inp = np.zeros((len(rows), 4, LANES), np.uint64)
    for i, r in enumerate(rows):
        st = r["form"].split(".")[-1]
        a = _codes(rng, st) if r["form"].startswith(("setp", "set.")) else \
            rng.integers(0, 1 << 63, LANES, dtype=np.uint64)
        b = _codes(rng, st) if r["form"].startswith(("setp", "set.")) else \
            rng.integers(0, 1 << 63, LANES, dtype=np.uint64)
        b[::4] = a[::4]
        inp[i, 0], inp[i, 1] = a, b
        c = rng.integers(0, 2, LANES, dtype=np.uint64)
        if r["form"].startswith("slct"):
            c = _codes(rng, "f32") if st == "f32" else rng.integers(0, 1 << 32, LANES, dtype=np.uint64)
        inp[i, 2] = c
    out = run_rows(rows, inp, LANES)
    bad = []
    for i, r in enumerate(rows):
        ops = split(r["text"])[1]
        dst = ops[0].split("|")
        widths = [1 if d.startswith("%p") else 64 if d.startswith("%rd") else
                  16 if d.startswith("%h") else 32 for d in dst]
        srcw = [64 if o.startswith("%rd") else 16 if o.startswith("%h") else 1 if o.startswith("%p")
                else 32 for o in ops[1:]]
        for lane in range(LANES):
            xs = [int(inp[i, k, lane]) & ((1 << w) - 1) if w > 1 else int(inp[i, k, lane] != 0)
                  for k, w in enumerate(srcw)]
            want = ref(r["form"], xs)
            for j, w in enumerate(widths):
                got = int(out[i, j, lane])
                exp = want[j] & ((1 << w) - 1)
                if got != exp:
                    bad.append(f"{r['text']} {[hex(x) for x in xs]} -> out{j} {got:#x}, expected {exp:#x}")
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:12])
