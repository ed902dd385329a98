"""cvt on tile-sim, every row of the ISA coverage table registered to these tests, against an exact
reference (isa_harness.ref_round: codes decoded by numpy / ml_dtypes, Fractions), and exhaustively
over every 16-bit source where the source is 16 bits wide."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import tiers
from isa_harness import (BITS, CANON_NAN, isa_rows, random_codes, ref_round, run_rows, specials,
                         split, value)

T = "test/python/sim/test_isa_cvt.py::"
INTS = {"u8": 8, "u16": 16, "u32": 32, "u64": 64, "s8": 8, "s16": 16, "s32": 32, "s64": 64}
FLOATS = ("f16", "bf16", "f32", "f64")
LANES = 128
TF32_NAN = 0x7FFFE000  # Table A21: the canonical NaN, its low 13 bits zero


def _src_codes(rng, st):
    if st in FLOATS:
        sp = specials(st)
        c = random_codes(rng, st, LANES)
        c[:len(sp)] = sp
        if st == "f32":  # values near integers and halves, and beyond the integer ranges
            near = (rng.integers(-300, 300, 24) / 2).astype(np.float32)
            c[len(sp):len(sp) + 24] = near.view(np.uint32)
            big = np.array([2.0 ** 31, -2.0 ** 31, 2.0 ** 63, 4e9, -1e19, 65520.0, 65519.0,
                            2.0 ** -126, 2.0 ** -149, 0.5, 1.5, 2.5], np.float32)
            c[len(sp) + 24:len(sp) + 36] = big.view(np.uint32)
        return c
    w = INTS[st]
    c = rng.integers(0, 1 << min(w, 63), LANES, dtype=np.uint64)
    edge = [0, 1, (1 << w) - 1, 1 << (w - 1), (1 << (w - 1)) - 1, 3, 255, 256, 65504, 65520]
    c[:len(edge)] = [e & ((1 << w) - 1) for e in edge]
    if w == 64:
        c[len(edge):len(edge) + 16] = rng.integers(0, 1 << 63, 16, dtype=np.uint64) | \
            np.uint64(1 << 63)
    return c


def _tf32(x: Fraction, mode, satfinite, neg):
    """Round to 10 mantissa bits in f32's exponent range: returns f32 bits with 13 low zeros."""
    a = abs(x)
    s = 0x80000000 if neg else 0
    if a == 0:
        return s
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -126)
    q = a / Fraction(2) ** (e - 10)
    fl = math.floor(q)
    r = q - fl
    if mode == "rna":
        up = r >= Fraction(1, 2)
    elif mode == "rn":
        up = r > Fraction(1, 2) or (r == Fraction(1, 2) and fl & 1)
    else:  # rz
        up = False
    v = (fl + up) * Fraction(2) ** (e - 10)
    maxv = (2 - Fraction(1, 1024)) * Fraction(2) ** 127
    if v > maxv:
        return s | (0x7F7FE000 if satfinite or mode == "rz" else 0x7F800000)
    b = int(np.array(float(v), np.float32).view(np.uint32))
    return s | b


def ref_cvt(form, v):
    p = form.split(".")
    dt, st = p[-2], p[-1]
    mods = p[1:-2]
    ftz, sat, relu, satf = "ftz" in mods, "sat" in mods, "relu" in mods, "satfinite" in mods
    fr = next((m for m in mods if m in ("rn", "rz", "rm", "rp", "rna")), None)
    ir = next((m[:2] for m in mods if m in ("rni", "rzi", "rmi", "rpi")), None)
    if st in INTS:
        w = INTS[st]
        v &= (1 << w) - 1
        x = Fraction(v - (1 << w) if st[0] == "s" and v >> (w - 1) else v)
        xf = float(x)
        isnan = False
    else:
        if ftz and st == "f32" and 0 < (v & 0x7FFFFFFF) < 0x800000:
            v &= 0x80000000
        xf = value(v, st)
        isnan = xf != xf
        x = None if (isnan or math.isinf(xf)) else Fraction(xf)
    if dt in INTS:
        w = INTS[dt]
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if dt[0] == "s" else (0, (1 << w) - 1)
        if isnan:
            return 0
        if x is None:
            r = hi if xf > 0 else lo
        else:
            mode = ir or "rz"
            r = {"rn": round(x), "rz": math.trunc(x), "rm": math.floor(x), "rp": math.ceil(x)}[mode]
        if st in INTS and not sat:  # integer to integer: wraps
            return int(r) & ((1 << w) - 1)
        return max(lo, min(hi, int(r))) & ((1 << w) - 1)
    if dt == "tf32":
        if isnan:
            return TF32_NAN
        if x is None:
            code = (0x7F7FE000 if satf else 0x7F800000) | (0x80000000 if xf < 0 else 0)
        else:
            code = _tf32(x, fr or "rn", satf, math.copysign(1, xf) < 0)
        if relu and (value(code, "f32") <= 0):
            code = 0
        return code
    if isnan:
        code = CANON_NAN[dt]
    elif x is None:
        code = ref_round(Fraction(2) ** 2000 * (1 if xf > 0 else -1), dt, "rn", satf)
    else:
        if ir:
            x = Fraction({"rn": round(x), "rz": math.trunc(x), "rm": math.floor(x),
                          "rp": math.ceil(x)}[ir])
        if x == 0:
            code = (1 << (BITS[dt] - 1)) if math.copysign(1, xf) < 0 else 0
        else:
            code = ref_round(x, dt, fr or "rn", satf)
    if ftz and dt == "f32" and 0 < (code & 0x7FFFFFFF) < 0x800000:
        code &= 0x80000000
    y = value(code, dt)
    if sat:
        if y != y or y <= 0:
            return 0
        if y > 1:
            return ref_round(Fraction(1), dt, "rn")
    if relu:
        if y != y:
            return CANON_NAN[dt]
        if y <= 0:
            return 0
    return code


CVT = isa_rows(T + "test_cvt_rows")


@pytest.mark.parametrize("chunk", tiers.chunks(4, fast=(0, 1)))  # (2 in make test)
def test_cvt_rows(chunk):
    """cvt between every pair of f64, f32, f16, bf16 and the integers, every rounding mode, .ftz,
    .sat, .relu, .satfinite, and to tf32."""
    rows = CVT[chunk::4]
    assert rows
    rng = np.random.default_rng(3100 + chunk)
    inp = np.zeros((len(rows), 4, LANES), np.uint64)
    for i, r in enumerate(rows):
        inp[i, 0] = _src_codes(rng, r["form"].split(".")[-1])
    out = run_rows(rows, inp, LANES)
    bad = []
    for i, r in enumerate(rows):
        dt = r["form"].split(".")[-2]
        dw = INTS.get(dt) or (32 if dt == "tf32" else BITS[dt])
        for lane in range(LANES):
            want = ref_cvt(r["form"], int(inp[i, 0, lane])) & ((1 << dw) - 1)
            got = int(out[i, 0, lane]) & ((1 << dw) - 1)
            if got != want:
                bad.append(f"{r['form']}({int(inp[i, 0, lane]):#x}) -> {got:#x}, expected {want:#x}")
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:12])


# ------------------------------------------------------------------------------- packed forms
PACK = {"f16x2": ("f16", 16), "bf16x2": ("bf16", 16), "e4m3x2": ("e4m3", 8),
        "e5m2x2": ("e5m2", 8), "e2m1x2": ("e2m1", 4), "e2m3x2": ("e2m3", 8),
        "e3m2x2": ("e3m2", 8), "ue8m0x2": ("ue8m0", 8)}


def _max_code(fmt):
    from isa_harness import _max
    return _max(fmt)[1]


def ref_narrow(x: float, fmt: str, mode: str, satf: bool, relu: bool) -> int:
    """One element converted into a narrow format (from an exact double)."""
    if x != x:
        return CANON_NAN.get(fmt, _max_code(fmt))  # no NaN in e2m1/e2m3/e3m2: +max (Table A30)
    if fmt == "ue8m0":
        a = abs(x)
        if math.isinf(a):
            return 0xFE if satf else 0xFF
        if a == 0:
            return 0
        k = math.frexp(a)[1] - 1  # 2^k <= a < 2^(k+1)
        if mode == "rp" and a != 2.0 ** k:
            k += 1
        k = max(k, -127)
        return (0xFE if satf else 0xFF) if k > 127 else k + 127
    if relu and x <= 0:
        return 0
    if math.isinf(x):
        return ref_round(Fraction(2) ** 2000 * (1 if x > 0 else -1), fmt, "rn", satf)
    if x == 0:
        return (1 << (BITS[fmt] - 1)) if math.copysign(1, x) < 0 else 0
    return ref_round(Fraction(x), fmt, mode, satf)


def ref_pack(form, a, b):
    p = form.split(".")
    dt, st = p[-2], p[-1]
    mods = p[1:-2]
    mode = next(m for m in mods if m in ("rn", "rz", "rm", "rp"))
    satf, relu = "satfinite" in mods, "relu" in mods
    if st in PACK and st not in ("f16x2", "bf16x2"):  # unpack and widen
        sf, sb = PACK[st]
        df = PACK[dt][0]
        out = 0
        for e in range(2):
            c = (a >> (e * sb)) & ((1 << sb) - 1)
            v = 2.0 ** (c - 127) if sf == "ue8m0" and c != 0xFF else \
                float("nan") if sf == "ue8m0" else value(c, sf)
            if v != v:
                r = CANON_NAN[df]
            elif relu and v <= 0:
                r = 0
            elif math.isinf(v):
                r = ref_round(Fraction(2) ** 2000 * (1 if v > 0 else -1), df, "rn")
            else:
                r = ref_round(Fraction(v), df, "rn") if v != 0 else \
                    (0x8000 if math.copysign(1, v) < 0 else 0)
            out |= r << (16 * e)
        return out
    df, eb = PACK[dt]
    if st == "f32":
        xs = [value(a, "f32"), value(b, "f32")]
    else:  # one packed 16-bit source: upper half first
        sf = PACK[st][0]
        xs = [value(a >> 16, sf), value(a & 0xFFFF, sf)]
    hi, lo = (ref_narrow(x, df, mode, satf, relu) for x in xs)
    m = (1 << eb) - 1
    return ((hi & m) << eb) | (lo & m)


PACKROWS = isa_rows(T + "test_cvt_pack_rows")


def test_cvt_pack_rows():
    """Two values to a packed pair (f16x2, bf16x2, e4m3x2, e5m2x2, e2m1x2, e2m3x2, e3m2x2,
    ue8m0x2) with .relu / .satfinite, from f32 pairs or one f16x2 / bf16x2; and the packed narrow
    pairs widened to f16x2 / bf16x2."""
    rows = PACKROWS
    rng = np.random.default_rng(3101)
    inp = np.zeros((len(rows), 4, LANES), np.uint64)
    for i, r in enumerate(rows):
        st = r["form"].split(".")[-1]
        n = len(split(r["text"])[1]) - 1
        for k in range(n):
            if st == "f32":
                c = (rng.standard_normal(LANES) * np.exp2(rng.integers(-12, 12, LANES))) \
                    .astype(np.float32).view(np.uint32).astype(np.uint64)
                sp = specials("f32") + [0x43E00000, 0x43E80000, 0x47600000, 0x40A00000]
                c[:len(sp)] = sp[k::1][:len(sp)] + sp[:k]
            else:
                c = rng.integers(0, 1 << 32, LANES, dtype=np.uint64)
                if st in ("e2m3x2", "e3m2x2"):  # 6-bit codes: the ISA defines the two MSBs as 0
                    c &= np.uint64(0x3F3F)
            inp[i, k] = c
    out = run_rows(rows, inp, LANES)
    bad = []
    for i, r in enumerate(rows):
        for lane in range(LANES):
            a, b = int(inp[i, 0, lane]), int(inp[i, 1, lane])
            st = r["form"].split(".")[-1]
            if st in PACK and st not in ("f16x2", "bf16x2"):
                a &= (1 << (8 if PACK[st][1] == 4 else 16)) - 1
            want = ref_pack(r["form"], a & 0xFFFFFFFF, b & 0xFFFFFFFF)
            got = int(out[i, 0, lane])
            if got != want:
                bad.append(f"{r['form']}({a:#x}, {b:#x}) -> {got:#x}, expected {want:#x}")
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:12])


PACKINT = isa_rows(T + "test_cvt_pack_int_rows")


def test_cvt_pack_int_rows():
    """cvt.pack.sat: a and b saturated to the narrow type, a above b, c's low bits above them."""
    rows = PACKINT
    rng = np.random.default_rng(3102)
    inp = rng.integers(0, 1 << 32, (len(rows), 4, LANES), dtype=np.uint64)
    inp[:, :2, :16] = np.array([0, 1, 2, 3, 7, 8, 15, 16, 127, 128, 255, 256, 0xFFFFFFFF,
                                0xFFFFFFF8, 0x80000000, 0x7FFFFFFF], np.uint64)
    out = run_rows(rows, inp, LANES)
    for i, r in enumerate(rows):
        t = r["form"].split(".")[3]
        n = int(t[1:])
        lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if t[0] == "s" else (0, (1 << n) - 1)
        for lane in range(LANES):
            a, b, c = (int(inp[i, k, lane]) for k in range(3))
            sa, sb = (x - (1 << 32) if x >> 31 else x for x in (a, b))
            want = ((max(lo, min(hi, sa)) & ((1 << n) - 1)) << n) | (max(lo, min(hi, sb)) & ((1 << n) - 1))
            if n < 16:
                want = (want | (c << (2 * n))) & 0xFFFFFFFF
            assert int(out[i, 0, lane]) == want, (r["form"], a, b, c)


# ------------------------------------------------------------------------------- exhaustive
@pytest.mark.parametrize("form, src", [("cvt.f32.bf16", "bf16"), ("cvt.f32.f16", "f16"),
                                       ("cvt.rn.bf16.f16", "f16"), ("cvt.rz.f16.bf16", "bf16"),
                                       ("cvt.rni.s32.f16", "f16"), ("cvt.rn.f16x2.e4m3x2", "b16"),
                                       ("cvt.rn.f16x2.e5m2x2", "b16"), ("cvt.rn.bf16x2.ue8m0x2", "b16"),
                                       ("cvt.rn.satfinite.e4m3x2.f16x2", "f16x2")])
@pytest.mark.tiered
def test_exhaustive_16bit_sources(form, src):
    """Every 16-bit source pattern (2^16 lanes) against the exact reference; the fast tier checks an
    eighth of them, every exponent and sign with every residue of the low three bits (tiers.sample),
    and `make test-slow` all of them."""
    codes = tiers.sample(1 << 16)
    n = len(codes)
    dt = form.split(".")[-2]
    reg_d = {"f32": "%r1", "s32": "%r1", "bf16": "%h1", "f16": "%h1", "f16x2": "%r1",
             "bf16x2": "%r1", "e4m3x2": "%h1"}[dt]
    reg_s = "%r2" if src == "f16x2" else "%h2"
    if src == "f16x2":  # each f16 in the upper half, its negation in the lower
        codes = (codes << np.uint64(16)) | (codes ^ np.uint64(0x8000))
    inp = np.zeros((1, 4, n), np.uint64)
    inp[0, 0] = codes
    out = run_rows([{"text": f"{form} {reg_d}, {reg_s};"}], inp, n)[0, 0]
    bad = 0
    first = None
    for v in range(n):
        c = int(codes[v])
        if dt in ("f16x2", "bf16x2") or src == "f16x2":
            want = ref_pack(form, c, 0)
        else:
            want = ref_cvt(form, c)
        if int(out[v]) != want:
            bad += 1
            first = first or (hex(c), hex(int(out[v])), hex(want))
    assert bad == 0, f"{form}: {bad} of {n} differ, first {first}"
