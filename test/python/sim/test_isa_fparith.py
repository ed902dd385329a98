"""Floating-point arithmetic of tile-sim, every row of the ISA coverage table registered to these
tests, against an exact reference: Fractions rounded by isa_harness.ref_round (codes decoded by
numpy / ml_dtypes, neighbours chosen by the mode), IEEE 754 special values, and literal values
worked out from the PTX ISA's definitions."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import tiers
from isa_harness import (BITS, CANON_NAN, isa_rows, random_codes, ref_round, run_rows, specials,
                         split, value)

T = "test/python/sim/test_isa_fparith.py::"
ELEM = {"f32": ("f32", 1), "f64": ("f64", 1), "f16": ("f16", 1), "bf16": ("bf16", 1),
        "f16x2": ("f16", 2), "bf16x2": ("bf16", 2), "f32x2": ("f32", 2)}
LANES = 128


def parse(form):
    p = form.split(".")
    t, mixed = p[-1], None
    mods = p[1:-1]
    if t in ("f16", "bf16") and p[-2] == "f32":
        mixed, t, mods = t, "f32", p[1:-2]
    return p[0], t, mixed, mods


def subnormal(code, fmt):
    e = {"f16": 10, "bf16": 7, "f32": 23, "f64": 52}[fmt]
    mag = code & ((1 << (BITS[fmt] - 1)) - 1)
    return 0 < mag < (1 << e)


def flushed(code, fmt):
    return code & (1 << (BITS[fmt] - 1)) if subnormal(code, fmt) else code


def enc_special(v, fmt, mode="rn"):
    """The code of an infinity or zero."""
    if v != v:
        return CANON_NAN[fmt]
    s = 1 << (BITS[fmt] - 1) if math.copysign(1, v) < 0 else 0
    if v == 0:
        return s
    return ref_round(Fraction(2) ** 20000 * (-1 if s else 1), fmt, "rn")  # an infinity


def finish(code, fmt, ftz, sat, relu):
    if ftz:
        code = flushed(code, fmt)
    v = value(code, fmt)
    if sat:
        if v != v or v <= 0:
            return 0
        if v > 1:
            return ref_round(Fraction(1), fmt, "rn")
    if relu:
        if v != v:
            return CANON_NAN[fmt]
        if v <= 0:
            return 0
    return code


def ref_arith(op, fmt, mode, ftz, xs, in_fmts):
    """The exact result code of one element (before sat/relu)."""
    vals = []
    for c, f in zip(xs, in_fmts):
        if ftz and f in ("f32", "f16"):
            c = flushed(c, f)
        vals.append(value(c, f))
    if any(v != v for v in vals):
        return CANON_NAN[fmt]
    if op in ("add", "sub"):
        a, b = vals
        b = -b if op == "sub" else b
        if math.isinf(a) or math.isinf(b):
            return CANON_NAN[fmt] if (math.isinf(a) and math.isinf(b) and a != b) else \
                enc_special(a if math.isinf(a) else b, fmt)
        s = Fraction(a) + Fraction(b)
        if s == 0:
            neg = (math.copysign(1, a) < 0 and math.copysign(1, b) < 0) if (a == 0 and b == 0) \
                else mode == "rm"
            return enc_special(-0.0 if neg else 0.0, fmt)
        return ref_round(s, fmt, mode)
    if op == "mul":
        a, b = vals
        if (math.isinf(a) and b == 0) or (math.isinf(b) and a == 0):
            return CANON_NAN[fmt]
        if math.isinf(a) or math.isinf(b) or a == 0 or b == 0:
            return enc_special(a * b, fmt)
        return ref_round(Fraction(a) * Fraction(b), fmt, mode)
    if op in ("fma", "mad"):
        a, b, c = vals
        if (math.isinf(a) and b == 0) or (math.isinf(b) and a == 0):
            return CANON_NAN[fmt]
        if math.isinf(a) or math.isinf(b) or math.isinf(c):
            p = a * b
            if math.isinf(p) and math.isinf(c) and p != c:
                return CANON_NAN[fmt]
            return enc_special(p if math.isinf(p) else c, fmt)
        s = Fraction(a) * Fraction(b) + Fraction(c)
        if s == 0:
            pneg = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
            both = (a == 0 or b == 0) and c == 0
            neg = (pneg and math.copysign(1, c) < 0) if both else mode == "rm"
            return enc_special(-0.0 if neg else 0.0, fmt)
        return ref_round(s, fmt, mode)
    if op in ("div", "rcp"):
        a, b = (1.0, vals[0]) if op == "rcp" else vals
        if (a == 0 and b == 0) or (math.isinf(a) and math.isinf(b)):
            return CANON_NAN[fmt]
        neg = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
        if math.isinf(a) or b == 0:
            return enc_special(-math.inf if neg else math.inf, fmt)
        if math.isinf(b) or a == 0:
            return enc_special(-0.0 if neg else 0.0, fmt)
        return ref_round(Fraction(a) / Fraction(b), fmt, mode)
    if op == "sqrt":
        (a,) = vals
        if a < 0:
            return CANON_NAN[fmt]
        if a == 0 or math.isinf(a):
            return enc_special(a, fmt)
        return ref_round(_sqrt_fraction(Fraction(a)), fmt, mode)
    raise AssertionError(op)


def _sqrt_fraction(x: Fraction) -> Fraction:
    """sqrt(x) when exact; otherwise a value strictly inside the same 2^-200-relative interval,
    which rounds as the root does (the root of a rational that is not a square is irrational, so
    it is never a rounding boundary)."""
    n, d = x.numerator, x.denominator
    k = 240 + d.bit_length()
    big = (n << (2 * k)) // d
    r = math.isqrt(big)
    if r * r * d == n << (2 * k):
        return Fraction(r, 1 << k)
    return Fraction(2 * r + 1, 1 << (k + 1))


def _inputs(rng, rows, nsrc_fmts):
    """inputs[row, k, lane]: specials of each source's format first, then random codes."""
    inp = np.zeros((len(rows), 4, LANES), np.uint64)
    for i, fmts in enumerate(nsrc_fmts):
        for k, (f, n) in enumerate(fmts):
            sp = specials(f)
            col = np.zeros(LANES, np.uint64)
            for e in range(n):
                el = random_codes(rng, f, LANES)
                # lane j takes special (j + 7k) % len for the first 2 * len lanes
                for j in range(min(LANES, 3 * len(sp))):
                    el[j] = sp[(j * (k + 1) + 3 * k + e) % len(sp)]
                col |= el << np.uint64(e * BITS[f])
            inp[i, k] = col
    return inp


def _check_rows(rows, ref_elem):
    """Run rows, compare each element to ref_elem(row, per-source element codes)."""
    rng = np.random.default_rng(31)
    fmts = []
    for r in rows:
        op, t, mixed, mods = parse(r["form"])
        f, n = ELEM[t]
        nsrc = len(split(r["text"])[1]) - 1
        fs = [(f, n)] * nsrc
        if mixed:  # add.f32.bf16 d, a, c / fma.f32.bf16 d, a, b, c: the last source is f32
            fs = [(mixed, 1)] * (nsrc - 1) + [("f32", 1)]
        fmts.append(fs)
    inp = _inputs(rng, rows, fmts)
    out = run_rows(rows, inp, LANES)
    bad = []
    for i, r in enumerate(rows):
        op, t, mixed, mods = parse(r["form"])
        f, n = ELEM[t]
        w = BITS[f]
        m = (1 << w) - 1
        for lane in range(LANES):
            got = int(out[i, 0, lane])
            want = 0
            for e in range(n):
                xs = [(int(inp[i, k, lane]) >> (e * BITS[ff])) & ((1 << BITS[ff]) - 1)
                      for k, (ff, _) in enumerate(fmts[i])]
                want |= (ref_elem(r["form"], f, xs, [ff for ff, _ in fmts[i]]) & m) << (e * w)
            if got != want:
                bad.append(f"{r['form']}: sources {[hex(int(inp[i, k, lane])) for k in range(len(fmts[i]))]}"
                           f" -> {got:#x}, expected {want:#x}")
    assert not bad, f"{len(bad)} mismatches, first: " + "\n".join(bad[:10])


ARITH = isa_rows(T + "test_arith_rows")


@pytest.mark.parametrize("chunk", tiers.chunks(4, fast=(0, 1)))  # (2 in make test)
def test_arith_rows(chunk):
    """add/sub/mul/fma/mad/div/sqrt/rcp in every rounding mode, ftz, sat, relu, packed, mixed."""
    rows = [r for r in ARITH if not r["form"].startswith(("div.approx", "div.full", "sqrt.approx",
                                                           "rcp.approx"))][chunk::4]

    def ref(form, f, xs, in_fmts):
        op, t, mixed, mods = parse(form)
        mode = next((m for m in mods if m in ("rn", "rz", "rm", "rp")), "rn")
        ftz = "ftz" in mods
        return finish(ref_arith(op, f, mode, ftz, xs, in_fmts), f, ftz, "sat" in mods,
                      "relu" in mods)
    assert rows
    _check_rows(rows, ref)


MINMAX = isa_rows(T + "test_minmax_rows")


def test_minmax_rows():
    """min/max: NaN operands ignored (.NaN: canonical NaN), -0 < +0, .abs, .xorsign.abs, three
    sources."""
    def ref(form, f, xs, in_fmts):
        op, t, mixed, mods = parse(form)
        s = 1 << (BITS[f] - 1)
        if "ftz" in mods:
            xs = [flushed(c, f) for c in xs]
        sign = 0
        for c in xs:
            sign ^= c & s
        if "abs" in mods:
            xs = [c & (s - 1) for c in xs]
        vals = [(value(c, f), c) for c in xs]
        nums = [v for v in vals if v[0] == v[0]]
        if not nums or ("NaN" in mods and len(nums) < len(vals)):
            return CANON_NAN[f]
        key = lambda v: (v[0], math.copysign(1, v[0]))  # noqa: E731
        best = (max if op == "max" else min)(nums, key=key)[1]
        if "xorsign" in mods:
            best = (best & (s - 1)) | sign
        return best
    _check_rows(MINMAX, ref)


SIGN = isa_rows(T + "test_sign_test_rows")


def test_sign_test_rows():
    """neg / abs flip / clear the sign bit (.ftz: of a flushed subnormal); copysign d, a, b is b
    with a's sign; testp classifies."""
    def ref(form, f, xs, in_fmts):
        p = form.split(".")
        s = 1 << (BITS[f] - 1)
        if p[0] in ("neg", "abs"):
            c = flushed(xs[0], f) if "ftz" in p else xs[0]
            return c ^ s if p[0] == "neg" else c & (s - 1)
        if p[0] == "copysign":
            return (xs[1] & (s - 1)) | (xs[0] & s)
        v = value(xs[0], f)
        return int({"finite": math.isfinite(v), "infinite": math.isinf(v),
                    "number": v == v, "notanumber": v != v,
                    "normal": math.isfinite(v) and v != 0 and not subnormal(xs[0], f),
                    "subnormal": subnormal(xs[0], f)}[p[1]])
    _check_rows(SIGN, ref)


# ------------------------------------------------------------------------------- literal values
LITERAL = [  # (instruction, sources, result): worked out by hand from the ISA's definitions
    ("add.rz.f32", [0x3F800000, 0x33800000], 0x3F800000),   # 1 + 2^-24: toward zero
    ("add.rp.f32", [0x3F800000, 0x33800000], 0x3F800001),   # ... toward +inf
    ("add.rn.f32", [0x3F800000, 0x33800000], 0x3F800000),   # a tie: to even
    ("add.rn.f32", [0x3F800001, 0x33800000], 0x3F800002),   # a tie: to even, upward
    ("add.rm.f32", [0x3F800000, 0xBF800000], 0x80000000),   # 1 + -1 in .rm: -0
    ("add.rn.f32", [0x3F800000, 0xBF800000], 0x00000000),
    ("sub.rn.f32", [0x7F800000, 0x7F800000], 0x7FFFFFFF),   # inf - inf: the canonical NaN
    ("mul.rz.f32", [0x7F7FFFFF, 0x40000000], 0x7F7FFFFF),   # overflow toward zero: the largest
    ("mul.rn.f32", [0x7F7FFFFF, 0x40000000], 0x7F800000),
    ("mul.rn.ftz.f32", [0x00800000, 0x3F000000], 0x00000000),  # 2^-127: subnormal, flushed
    ("mul.rn.f32", [0x00800000, 0x3F000000], 0x00400000),
    ("div.rn.f32", [0x3F800000, 0x40400000], 0x3EAAAAAB),   # 1/3
    ("div.rz.f32", [0x3F800000, 0x40400000], 0x3EAAAAAA),
    ("sqrt.rn.f32", [0x40000000], 0x3FB504F3),              # sqrt 2
    ("sqrt.rp.f32", [0x40000000], 0x3FB504F4),
    ("rcp.rn.f64", [0x4008000000000000], 0x3FD5555555555555),  # 1/3 in f64
    ("fma.rn.f32", [0x3F800001, 0x3F800001, 0xBF800002], 0x28800000),  # (1+u)^2 - (1+2u) = u^2
    ("add.sat.f32", [0x3F800000, 0x3F800000], 0x3F800000),
    ("add.rn.f16", [0x3C00, 0x1400], 0x3C01),               # 1 + 2^-10 (f16 ulp)
    ("add.rn.bf16", [0x3F80, 0x3B80], 0x3F80),              # 1 + 2^-8: a tie, to even
    ("fma.rn.relu.bf16", [0xBF80, 0x3F80, 0x0000], 0x0000),  # -1: relu
]


@pytest.mark.parametrize("inst, srcs, want", LITERAL, ids=[x[0] for x in LITERAL])
def test_literal(inst, srcs, want):
    reg = {16: "%h", 32: "%r", 64: "%rd"}
    w = 16 if inst.endswith(("f16", "bf16")) else 64 if inst.endswith("f64") else 32
    text = f"{inst} {reg[w]}1, " + ", ".join(f"{reg[w]}{k + 2}" for k in range(len(srcs))) + ";"
    inp = np.zeros((1, 4, LANES), np.uint64)
    for k, v in enumerate(srcs):
        inp[0, k, :] = v
    out = run_rows([{"text": text}], inp, LANES)
    assert int(out[0, 0, 0]) == want, f"{inst}: {int(out[0, 0, 0]):#x} != {want:#x}"
