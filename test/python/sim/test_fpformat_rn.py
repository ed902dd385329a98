"""fpformat.round_float's fast path (f16 and f32 to nearest even through CPython's packing) against
the exact path it stands in for (round_ratio of the double's ratio): every midpoint between
neighbouring f16 codes and the values just beside it (ties to even, subnormals, the overflow edge
at 65520), random doubles over f16's and f32's whole ranges, signed zeros and infinities."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tile_mlir.sim.fpformat import F16, F32, RN, decode, round_float, round_ratio


def _exact(x, f):
    if math.isinf(x):  # the infinity code of its sign (no ratio to round)
        return (0x7C00 if f is F16 else 0x7F800000) | ((1 << (f.bits - 1)) if x < 0 else 0)
    n, d = abs(x).as_integer_ratio()
    return round_ratio(math.copysign(1.0, x) < 0, n, d, f, RN)


def _f16_edges():
    xs = []
    for c in range(0, 0x7C00):  # every finite positive code and its upper neighbour
        a, b = decode(c, F16), decode(c + 1, F16)
        m = (a + b) / 2  # exact in a double
        xs += [m, math.nextafter(m, 0), math.nextafter(m, math.inf), a]
    return xs + [-x for x in xs]


@pytest.mark.parametrize("fmt", [F16, F32])
def test_fast_round_to_nearest_equals_exact(fmt):
    rng = np.random.default_rng(7)
    top = 16 if fmt is F16 else 128
    xs = list(rng.standard_normal(40000) * 2.0 ** rng.integers(-(top + 30), top + 2, 40000))
    xs += [0.0, -0.0, math.inf, -math.inf, 65504.0, 65519.99, 65520.0, 2.0 ** -24, 2.0 ** -25,
           3 * 2.0 ** -26, 2.0 ** -149, 2.0 ** -150, 3 * 2.0 ** -151, 3.4028235677973366e38]
    if fmt is F16:
        xs += _f16_edges()
    got = [(x, round_float(x, fmt, RN), _exact(x, fmt)) for x in xs]
    bad = [g for g in got if g[1] != g[2]]
    assert not bad, bad[:5]


def test_nan_keeps_the_canonical_code():
    assert round_float(math.nan, F16, RN) == 0x7FFF and round_float(math.nan, F32, RN) == 0x7FFFFFFF
