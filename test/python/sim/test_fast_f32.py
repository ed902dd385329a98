"""sim/fast_f32.py, the scalar binary64 fast paths of add / sub / mul / fma.rn.f32, max / min.f32 and
ex2.approx.ftz.f32, against the general code they stand in for (fpexact, the array model of approx_math) on
random codes, operands of close and far exponents (cancellation, absorption), results near overflow and near
the smallest normal, and every special class; a fast path may decline (None), never differ."""
from __future__ import annotations

import numpy as np
import pytest

from tile_mlir.sim import fast_f32 as F
from tile_mlir.sim import fpexact as X
from tile_mlir.sim.approx_math import mufu_ex2
from tile_mlir.sim.approx_tables import table
from tile_mlir.sim.fpformat import F32

RN = X.Spec(F32, "rn")
N = 20000


def _to_f32(x):
    with np.errstate(over="ignore"):
        return x.astype(np.float32)


def _codes(rng, n):
    """Codes of every class: uniform bits (NaN, inf, subnormal, zero included), values of one exponent band
    (cancellation), huge and tiny magnitudes, literal edges."""
    parts = [rng.integers(0, 1 << 32, n, dtype=np.uint64),
             (np.float32(1) + rng.standard_normal(n).astype(np.float32)).view(np.uint32),
             # (magnitudes past f32's range become infinities on purpose)
             _to_f32(rng.standard_normal(n) * 2.0 ** rng.integers(-130, 128, n)).view(np.uint32),
             np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00800000, 0x807FFFFF, 0x7F7FFFFF,
                       0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x00000001], dtype=np.uint64)]
    return [int(x) & 0xFFFFFFFF for x in np.concatenate(parts)]


@pytest.mark.parametrize("name", ["add", "sub", "mul", "fma"])
def test_fast_arith_equals_fpexact(name):
    rng = np.random.default_rng({"add": 1, "sub": 2, "mul": 3, "fma": 4}[name])
    a, b, c = (_codes(rng, N) for _ in range(3))
    rng.shuffle(b)
    took = 0
    for i in range(len(a)):
        x, y, z = a[i], b[i], c[i]
        if name == "fma":
            got, want = F.fma_rn(x, y, z), X.fma(x, y, z, RN)
            # (and a c that nearly cancels a * b: the binary64 sum inexact, rounded to odd)
            with np.errstate(all="ignore"):
                p = np.float32(np.float64(np.uint32(x).view(np.float32)) * np.float64(np.uint32(y).view(np.float32)))
            z2 = int((-p).view(np.uint32))
            g2, w2 = F.fma_rn(x, y, z2), X.fma(x, y, z2, RN)
            assert g2 is None or g2 == w2, (hex(x), hex(y), hex(z2))
        else:
            fast = {"add": F.add_rn, "sub": F.sub_rn, "mul": F.mul_rn}[name]
            got = fast(x, y)
            want = X.add(x, y, RN, negb=name == "sub") if name != "mul" else X.mul(x, y, RN)
        if got is not None:
            took += 1
            assert got == want, (name, hex(x), hex(y), hex(z))
    assert took > len(a) // 3  # the fast path takes the common case


def test_fast_maxmin():
    """max / min by the codes' bits == the order fparith's decode_minmax takes (value, then -0 below +0; NaN:
    declined here), zeros and infinities included."""
    import math

    rng = np.random.default_rng(5)
    a, b = _codes(rng, N), _codes(rng, N)
    rng.shuffle(b)
    a += [0, 0x80000000, 0x80000000, 0x7F800000, 0xFF800000, 1, 0x80000001]
    b += [0x80000000, 0, 0x80000000, 0xFF800000, 0x7F800000, 0x80000001, 1]

    def key(code):
        v = float(np.uint32(code).view(np.float32))
        return (v, math.copysign(1.0, v))

    took = 0
    for x, y in zip(a, b):
        for is_max in (True, False):
            got = F.maxmin(x, y, is_max)
            if got is None:
                assert math.isnan(key(x)[0]) or math.isnan(key(y)[0])
                continue
            took += 1
            kx, ky = key(x), key(y)
            want = x if (kx >= ky if is_max else kx <= ky) else y
            assert got == want, (hex(x), hex(y), is_max)
    assert took > len(a)


def test_fast_ex2_equals_the_array_model():
    rng = np.random.default_rng(6)
    codes = _codes(rng, 4 * N) + [int(v) for v in np.arange(-160.0, 140.0, 0.37, dtype=np.float32).view(np.uint32)]
    want = mufu_ex2(np.array(codes, dtype=np.uint32))
    pos, neg = table("ex2_pos"), table("ex2_neg")
    got = [F.ex2_approx_ftz(c, pos, neg) for c in codes]
    assert got == [int(w) for w in want]


@pytest.mark.parametrize("name", ["add", "mul", "fma"])
def test_fast_pairs_equal_the_words(name):
    """.f32x2 at once == each word by the scalar exact path (or a decline)."""
    rng = np.random.default_rng(7)
    a, b, c = (_codes(rng, N) for _ in range(3))
    rng.shuffle(b)
    rng.shuffle(c)
    fast = {"add": F.add2_rn, "mul": F.mul2_rn, "fma": F.fma2_rn}[name]
    exact = {"add": lambda x, y, z: X.add(x, y, RN), "mul": lambda x, y, z: X.mul(x, y, RN),
             "fma": lambda x, y, z: X.fma(x, y, z, RN)}[name]
    took = 0
    for i in range(0, len(a) - 1, 2):
        x, y, z = (v[i] | v[i + 1] << 32 for v in (a, b, c))
        got = fast(x, y, z) if name == "fma" else fast(x, y)
        if got is not None:
            took += 1
            want = exact(a[i], b[i], c[i]) | exact(a[i + 1], b[i + 1], c[i + 1]) << 32
            assert got == want, (name, hex(x), hex(y), hex(z))
    assert took > len(a) // 20


#: (operation, operand codes, result code): signed zeros by IEEE 754 §6.3 as the PTX ISA's .rn add / sub / mul /
#: fma.f32 give them without .ftz (subnormals kept); each row must be taken by the fast path
_P0, _N0, _ONE, _MONE, _TWO, _SIX = 0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x40000000, 0x40C00000
_SUB, _NSUB = 0x00000001, 0x80000001  # the smallest subnormals
ZERO_ROWS = [
    ("fma", (_P0, _ONE, _P0), _P0), ("fma", (_N0, _ONE, _P0), _P0), ("fma", (_N0, _ONE, _N0), _N0),
    ("fma", (_P0, _MONE, _N0), _N0), ("fma", (_N0, _MONE, _N0), _P0), ("fma", (_ONE, _N0, _P0), _P0),
    ("fma", (_P0, _TWO, _NSUB), _NSUB), ("fma", (_N0, _SUB, _TWO), _TWO), ("fma", (_P0, _P0, _MONE), _MONE),
    ("fma", (_TWO, 0x40400000, _N0), _SIX), ("fma", (_MONE, _TWO, _P0), 0xC0000000),
    ("mul", (_P0, _MONE), _N0), ("mul", (_N0, _N0), _P0), ("mul", (_P0, _SUB), _P0), ("mul", (_N0, _SUB), _N0),
    ("add", (_P0, _N0), _P0), ("add", (_N0, _N0), _N0), ("add", (_N0, _NSUB), _NSUB), ("add", (_ONE, _N0), _ONE),
    ("sub", (_P0, _P0), _P0), ("sub", (_N0, _P0), _N0), ("sub", (_P0, _ONE), _MONE), ("sub", (_N0, _N0), _P0),
    ("sub", (_SUB, _P0), _SUB),
]


@pytest.mark.parametrize("op,args,want", ZERO_ROWS, ids=[f"{r[0]}-{i}" for i, r in enumerate(ZERO_ROWS)])
def test_fast_zero_operands_literal(op, args, want):
    """Zero operands take the fast path (a million fma of zeros ran 14.7 s on the exact one) with the ISA's
    signed-zero results, which the exact path gives too."""
    fast = {"add": F.add_rn, "sub": F.sub_rn, "mul": F.mul_rn, "fma": F.fma_rn}[op]
    exact = {"add": lambda x, y: X.add(x, y, RN), "sub": lambda x, y: X.add(x, y, RN, negb=True),
             "mul": lambda x, y: X.mul(x, y, RN), "fma": lambda x, y, z: X.fma(x, y, z, RN)}[op]
    assert fast(*args) == want
    assert exact(*args) == want


_INF, _NINF, _NAN, _MAX = 0x7F800000, 0xFF800000, 0x7FFFFFFF, 0x7F7FFFFF  # (_NAN: the canonical NaN, Table A21)
SPECIAL_ROWS = [
    ("fma", (_P0, _INF, _ONE), _NAN), ("fma", (_ONE, _ONE, _NINF), _NINF), ("fma", (_INF, 0xC0000000, _INF), _NAN),
    ("fma", (_INF, _TWO, _ONE), _INF), ("fma", (0x7FC00001, _P0, _P0), _NAN), ("fma", (_SUB, _NINF, _P0), _NINF),
    ("fma", (_MAX, _TWO, _MAX | _N0), _MAX), ("fma", (_MAX, _TWO, _P0), _INF), ("fma", (_MAX | _N0, _TWO, _ONE), _NINF),
    ("mul", (_N0, _INF), _NAN), ("mul", (0xC0000000, _INF), _NINF), ("mul", (_MAX, _TWO), _INF),
    ("add", (_INF, _NINF), _NAN), ("add", (_P0, 0xFFC00000), _NAN), ("add", (_MAX, _MAX), _INF),
    ("sub", (_INF, _INF), _NAN), ("sub", (_ONE, _INF), _NINF), ("sub", (_MAX | _N0, _MAX), _NINF),
]


@pytest.mark.parametrize("op,args,want", SPECIAL_ROWS, ids=[f"{r[0]}-{i}" for i, r in enumerate(SPECIAL_ROWS)])
def test_fast_specials_literal(op, args, want):
    """An infinity or NaN operand, or a result past f32's range, is taken too (an accumulator that overflowed
    sent a million fma to the exact path): IEEE's infinities, the canonical NaN, overflow to an infinity under
    .rn, and fma's product that does not overflow before its sum."""
    fast = {"add": F.add_rn, "sub": F.sub_rn, "mul": F.mul_rn, "fma": F.fma_rn}[op]
    exact = {"add": lambda x, y: X.add(x, y, RN), "sub": lambda x, y: X.add(x, y, RN, negb=True),
             "mul": lambda x, y: X.mul(x, y, RN), "fma": lambda x, y, z: X.fma(x, y, z, RN)}[op]
    assert fast(*args) == want
    assert exact(*args) == want
