"""sim/lane_f32.py, lane_vec's add / sub / mul / fma.rn.f32 over arrays, against the exact path (fpexact)
element by element: every pair (triple for fma) of edge codes -- both zeros, subnormals (smallest, largest),
the smallest and largest normals, ones, infinities, quiet and signalling NaNs with payloads, of both signs --
and random codes of every class, with results that overflow, cancel or fall below the normal range. An
element is either exact or left to the scalar function (ok false); the common classes must be taken."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from tile_mlir.sim import fpexact as X
from tile_mlir.sim import lane_f32
from tile_mlir.sim.fpformat import F32

RN = X.Spec(F32, "rn")
EDGES = [0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x00800001, 0x3F800000, 0x3F800001, 0x7F7FFFFF,
         0x7F000000, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0x33000000, 0x477FF000, 0x1F800000]
EDGES += [c | 0x80000000 for c in EDGES]


def _exact(kind, a, b, c=0):
    if kind == "fma":
        return X.fma(a, b, c, RN)
    if kind == "mul":
        return X.mul(a, b, RN)
    return X.add(a, b, RN, negb=kind == "sub")


def _random(rng, n):
    with np.errstate(over="ignore"):
        wide = (rng.standard_normal(n) * 2.0 ** rng.integers(-150, 129, n)).astype(np.float32).view(np.uint32)
    parts = [rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32), wide,
             (np.float32(1) + rng.standard_normal(n).astype(np.float32)).view(np.uint32)]
    c = np.concatenate(parts).astype(np.uint64)
    return c[rng.permutation(len(c))]


def _subnormal(c):
    return (c & 0x7F800000 == 0) & (c & 0x7FFFFFFF != 0)


def _check(kind, xs):
    """(elements taken, elements that had to be taken): every element is exact where ok, and ok wherever no
    operand and not the result is subnormal (or a zero from nonzero factors, or the smallest normal: they may be
    rounded from below the normal range)."""
    with np.errstate(all="ignore"):
        codes, ok = lane_f32.words(kind, [np.asarray(x, np.uint64) for x in xs])
    must = 0
    for i in range(len(ok)):
        args = [int(x[i]) for x in xs]
        want = _exact(kind, *args)
        if ok[i]:
            assert int(codes[i]) == want, (kind, [hex(a) for a in args], hex(int(codes[i])), hex(want))
        underflow = want & 0x7FFFFFFF == 0 and all(a & 0x7FFFFFFF for a in args[:2])  # (maybe a rounded tiny)
        if not (any(_subnormal(a) for a in args + [want]) or underflow or want & 0x7FFFFFFF == 0x800000):
            must += 1
            assert ok[i], (kind, [hex(a) for a in args])
    return int(ok.sum()), must


@pytest.mark.parametrize("kind", ["add", "sub", "mul", "fma"])
def test_edges_exact(kind):
    n = 3 if kind == "fma" else 2
    combos = list(itertools.product(EDGES, repeat=n))
    xs = [np.array([c[i] for c in combos], np.uint64) for i in range(n)]
    took, must = _check(kind, xs)
    assert took >= must > len(combos) // 3


@pytest.mark.parametrize("kind", ["add", "sub", "mul", "fma"])
def test_random_exact(kind):
    rng = np.random.default_rng({"add": 11, "sub": 12, "mul": 13, "fma": 14}[kind])
    xs = [_random(rng, 2000) for _ in range(3 if kind == "fma" else 2)]
    if kind == "fma":  # (and addends that nearly cancel the product: the binary64 sum rounded to odd)
        with np.errstate(all="ignore"):
            p = (_f32(xs[0]).astype(np.float64) * _f32(xs[1]).astype(np.float64)).astype(np.float32)
        xs.append(xs[0]), xs.append(xs[1]), xs.append((-p).view(np.uint32).astype(np.uint64))
        xs = [np.concatenate([xs[0], xs[3]]), np.concatenate([xs[1], xs[4]]), np.concatenate([xs[2], xs[5]])]
    took, must = _check(kind, xs)
    assert took >= must > len(xs[0]) // 3


def _f32(c):
    return np.asarray(c).astype(np.uint32).view(np.float32)


def test_zero_special_and_overflow_literals():
    """The rules by hand: signed zero sums, a zero product's sign, an fma's zero product plus a subnormal,
    inf - inf, 0 * inf and an overflow to infinity."""
    cases = [("add", (0x80000000, 0x80000000), 0x80000000), ("add", (0x80000000, 0x00000000), 0x00000000),
             ("sub", (0x00000000, 0x00000000), 0x00000000), ("sub", (0x80000000, 0x00000000), 0x80000000),
             ("mul", (0x80000000, 0x3F800000), 0x80000000), ("mul", (0xBF800000, 0x80000000), 0x00000000),
             ("fma", (0x00000000, 0xBF800000, 0x00000001), 0x00000001),
             ("fma", (0x80000000, 0x3F800000, 0x00000000), 0x00000000),
             ("fma", (0x80000000, 0x3F800000, 0x80000000), 0x80000000),
             ("add", (0x7F800000, 0xFF800000), F32.nan), ("mul", (0x00000000, 0xFF800000), F32.nan),
             ("mul", (0x7F7FFFFF, 0x40000000), 0x7F800000), ("fma", (0xFF7FFFFF, 0x40000000, 0x3F800000),
                                                              0xFF800000)]
    for kind, args, want in cases:
        with np.errstate(all="ignore"):
            codes, ok = lane_f32.words(kind, [np.array([a], np.uint64) for a in args])
        assert ok[0] and int(codes[0]) == want == _exact(kind, *args), (kind, args)
