"""Run rows of tile-sim's ISA coverage table (python/tile_mlir/sim/coverage/forms.json) on tile-sim,
many forms in one kernel, over many inputs, and give back their raw results; and an exact
reference for floating-point rounding that shares no code with tile-sim's (fpformat.py): the
neighbours of a value are found among a format's codes decoded by ml_dtypes / numpy, and chosen by
the rounding mode with Fractions.

Operands: each source register of a row's text is loaded with 64 bits of the input array, truncated
to the register (a predicate is set when the value is not 0); the destination (two for ``p|q``) is
stored zero-extended.  ``inputs[row, k, lane]`` feeds the k-th source operand.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from fractions import Fraction
from functools import lru_cache

import ml_dtypes
import numpy as np

from tile_mlir.sim import run_ptx
from tile_mlir.sim.coverage import decode_check, load
from tile_mlir.sim.coverage.tests import pattern_of

LANES = 128
_REG = re.compile(r"^%(p|c|h|r|rd|q)(\d+)$")
HEAD = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .pred %p<8>; .reg .b8 %c<8>; .reg .b16 %h<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
  .reg .b32 %tid; .reg .b32 %cta;
  mov.u32 %tid, %tid.x; mov.u32 %cta, %ctaid.x; mad.lo.u32 %tid, %cta, %ntid.x, %tid;
  ld.param.u64 %rd10, [pin]; ld.param.u64 %rd11, [pout];
  mul.wide.u32 %rd12, %tid, 8; add.u64 %rd10, %rd10, %rd12; add.u64 %rd11, %rd11, %rd12;
"""


def isa_rows(test_id: str) -> list[dict]:
    """The coverage table's rows that the test ``test_id`` is registered for."""
    rx = pattern_of(test_id)
    rows = [r for r in load()["forms"] if rx.match(r["form"])]
    ok = decode_check([r["text"] for r in rows])  # the rows tile-sim refuses are not its to test
    return [r for r, why in zip(rows, ok) if why is None]


def split(text: str):
    op, _, rest = text.rstrip(";").partition(" ")
    return op, [o.strip() for o in rest.split(",")] if rest.strip() else []


def _load(reg, lanes, off):
    m = _REG.match(reg)
    if not m:
        return []
    kind = m.group(1)
    ld = [f"  ld.global.b64 %rd14, [%rd10+{off}];"]
    conv = {"r": f"cvt.u32.u64 {reg}, %rd14;", "h": f"cvt.u16.u64 {reg}, %rd14;",
            "c": f"cvt.u8.u64 {reg}, %rd14;", "rd": f"mov.b64 {reg}, %rd14;",
            "p": f"setp.ne.u64 {reg}, %rd14, 0;"}[kind]
    return ld + ["  " + conv]


def _store(reg, off):
    kind = _REG.match(reg).group(1)
    conv = {"r": f"cvt.u64.u32 %rd15, {reg};", "h": f"cvt.u64.u16 %rd15, {reg};",
            "c": f"cvt.u64.u8 %rd15, {reg};", "rd": f"mov.b64 %rd15, {reg};",
            "p": f"selp.u64 %rd15, 1, 0, {reg};"}[kind]
    return ["  " + conv, f"  st.global.b64 [%rd11+{off}], %rd15;"]


def run_rows(rows, inputs: np.ndarray, lanes: int = LANES) -> np.ndarray:
    """outputs[row, j, lane] (j: the destination, or p and q of a pair) of each row's text."""
    n = len(rows)
    nsrc = inputs.shape[1]
    body = []
    for i, r in enumerate(rows):
        op, ops = split(r["text"])
        for k, o in enumerate(ops[1:]):
            body += _load(o, lanes, ((i * nsrc + k) * lanes) * 8)
        if r.get("carry_in"):  # CC.CF from input column 3 (0 or not): a carry out of r15 + ~0
            body += [f"  ld.global.b64 %rd14, [%rd10+{((i * nsrc + 3) * lanes) * 8}];",
                     "  cvt.u32.u64 %r15, %rd14;", "  min.u32 %r15, %r15, 1;",
                     "  add.cc.u32 %r14, %r15, 0xFFFFFFFF;"]
        body.append(f"  {r['text']}")
        dests = ops[0].split("|")
        for j, dreg in enumerate(dests):
            body += _store(dreg, ((i * 2 + j) * lanes) * 8)
    ptx = HEAD + "\n".join(body) + "\n  ret;\n}\n"
    out = np.zeros((n, 2, lanes), np.uint64)
    block = min(lanes, 128)
    run_ptx(ptx, "k", [np.ascontiguousarray(inputs, dtype=np.uint64), out],
            grid=(lanes // block, 1, 1), block=(block, 1, 1), workers=1)
    return out


# --------------------------------------------------------------------------------- references
DT = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn,
      "e5m2": ml_dtypes.float8_e5m2, "e2m3": ml_dtypes.float6_e2m3fn,
      "e3m2": ml_dtypes.float6_e3m2fn, "e2m1": ml_dtypes.float4_e2m1fn,
      "ue8m0": ml_dtypes.float8_e8m0fnu}
BITS = {"f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "e2m3": 6, "e3m2": 6, "e2m1": 4, "ue8m0": 8,
        "f32": 32, "f64": 64}
CANON_NAN = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF,
             "e4m3": 0x7F, "e5m2": 0x7F, "ue8m0": 0xFF}


def value(code: int, fmt: str) -> float:
    """The value of a code, decoded by numpy / ml_dtypes."""
    if fmt == "f32":
        return float(np.uint32(code).view(np.float32))
    if fmt == "f64":
        return float(np.uint64(code).view(np.float64))
    w = 8 if BITS[fmt] <= 8 else 16
    arr = np.array([code], np.uint8 if w == 8 else np.uint16)
    return float(arr.view(DT[fmt])[0])


@lru_cache(maxsize=None)
def _table(fmt):
    """(sorted finite values >= 0 as Fractions, their codes) of a format of at most 16 bits."""
    vals = {}
    for c in range(1 << BITS[fmt]):
        v = value(c, fmt)
        if v == v and abs(v) != float("inf") and np.copysign(1.0, v) > 0:
            vals.setdefault(Fraction(v), c)
    keys = sorted(vals)
    return keys, [vals[k] for k in keys]


def _neighbours(x: Fraction, fmt):
    """(lower, upper) codes around x >= 0 and their values; upper None beyond the largest."""
    if fmt in ("f32", "f64"):
        dt = np.float32 if fmt == "f32" else np.float64
        c = dt(float(x))
        while Fraction(float(c)) > x:
            c = np.nextafter(c, dt(0))
        hi = np.nextafter(c, dt(np.inf)) if Fraction(float(c)) != x else c
        code = (lambda v: int(np.array(v, dt).view(np.uint32 if fmt == "f32" else np.uint64)))
        lo_c, hi_c = code(c), code(hi)
        hi_v = None if np.isinf(hi) else Fraction(float(hi))
        return (lo_c, Fraction(float(c))), (hi_c, hi_v)
    keys, codes = _table(fmt)
    i = bisect_left(keys, x)
    if i < len(keys) and keys[i] == x:
        return (codes[i], x), (codes[i], x)
    lo = (codes[i - 1], keys[i - 1])
    hi = (codes[i], keys[i]) if i < len(keys) else (None, None)
    return lo, hi


INF_CODE = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000,
            "e5m2": 0x7C}


def _max(fmt):
    """(largest finite value, its code, the ulp below it)."""
    if fmt == "f32":
        return Fraction(value(0x7F7FFFFF, fmt)), 0x7F7FFFFF, Fraction(2) ** 104
    if fmt == "f64":
        return Fraction(value(0x7FEFFFFFFFFFFFFF, fmt)), 0x7FEFFFFFFFFFFFFF, Fraction(2) ** 971
    keys, codes = _table(fmt)
    return keys[-1], codes[-1], keys[-1] - keys[-2]


def ref_round(x: Fraction, fmt: str, mode: str, satfinite=False) -> int:
    """The code of the exact value x rounded into fmt by mode (rn, rna, rz, rm, rp)."""
    neg = x < 0
    a = -x if neg else x
    sign = (1 << (BITS[fmt] - 1)) if neg else 0
    maxv, maxc, ulp = _max(fmt)
    if a > maxv:
        over = a >= maxv + ulp / 2 if mode in ("rn", "rna") else \
            {"rz": False, "rp": not neg, "rm": neg}[mode]
        if over and not satfinite:
            if fmt in INF_CODE:
                return sign | INF_CODE[fmt]
            return sign | CANON_NAN[fmt]
        return sign | maxc
    (lc, lv), (hc, hv) = _neighbours(a, fmt)
    if lv == a:
        return sign | lc
    if mode in ("rn", "rna"):
        d_lo, d_hi = a - lv, hv - a
        up = d_hi < d_lo if d_lo != d_hi else (mode == "rna" or bool(lc & 1))
    else:
        up = {"rz": False, "rp": not neg, "rm": neg}[mode]
    return sign | (hc if up else lc)


def specials(fmt: str) -> list[int]:
    """Codes worth testing in every format: zeros, smallest and largest subnormals and normals,
    one, infinities, NaNs, and their negatives."""
    w = BITS[fmt]
    s = 1 << (w - 1)
    e = {"f16": 10, "bf16": 7, "f32": 23, "f64": 52}[fmt]
    ones = {"f16": 0x3C00, "bf16": 0x3F80, "f32": 0x3F800000, "f64": 0x3FF0000000000000}[fmt]
    inf = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000}[fmt]
    base = [0, 1, (1 << e) - 1, 1 << e, ones, ones + 1, ones - 1, inf - 1, inf, inf + 1,
            s - 1, ones + (1 << (e - 1)), ones | (1 << e)]
    return base + [c | s for c in base]


def random_codes(rng, fmt: str, n: int) -> np.ndarray:
    """Codes of mostly finite values of moderate exponent, and some uniform bit patterns."""
    w = BITS[fmt]
    if w == 64:
        v = rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))
        out = v.view(np.uint64).copy()
    elif w == 32:
        v = (rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n))).astype(np.float32)
        out = v.view(np.uint32).astype(np.uint64)
    else:
        out = rng.integers(0, 1 << w, n).astype(np.uint64)
    k = n // 8
    out[:k] = rng.integers(0, 1 << min(w, 63), k, dtype=np.uint64)
    return out
