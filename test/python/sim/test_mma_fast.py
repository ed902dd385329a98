"""sim/mma_fast.py, the exact fast path of the tensor-core arithmetic: bit-identical to MMA-Sim on
random operands with specials for every kind our kernels use (the 1M-element run per kind is
`bench/sim.py --diff`), plus literal cases of the truncated fused sum."""

import numpy as np
import pytest

import mma_diff as md  # test/python/sim/mma_diff.py (conftest puts this directory on sys.path)

from tile_mlir.sim import mma_fast, mma_numerics as mn


@pytest.mark.parametrize("name", sorted(md.KINDS))
def test_fast_path_equals_mma_sim(name):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    total = 0
    for narrow, rate in ((False, 0.002), (True, 0.0), (True, 0.02)):
        bad, fast, ref, _, _ = md.compare(name, rng, 32, 32, special_rate=rate, narrow=narrow)
        assert len(bad) == 0, f"{name}: {len(bad)} of {fast.size} differ, first at {bad[0]}: " \
            f"fast 0x{int(fast[tuple(bad[0])]):x}, MMA-Sim 0x{int(ref[tuple(bad[0])]):x}"
        total += fast.size
    assert total == 3 * 32 * 32


def _bf16(x):
    return np.array(x, np.float32).view(np.uint32) >> 16


def _f32(x):
    return np.array(x, np.float32).view(np.uint32)


def _wgmma_bf16(a, b, c):
    return mn.wgmma("f32", "bf16", "bf16", _bf16(a).reshape(1, 16), _bf16(b).reshape(16, 1),
                    _f32(c).reshape(1, 1), n=8, k=16)[0, 0]


def test_literal_truncated_fused_sum():
    one = [1.0] + [0.0] * 15
    # 1 + 2^-30: C's neighbour below 2^e_max - 25 is truncated away (F = 25)
    assert _wgmma_bf16(one, [2.0 ** -30] + [0.0] * 15, 1.0) == _f32(1.0)
    # 1 - 2^-30: the truncated term is negative, truncation toward zero drops it too
    assert _wgmma_bf16(one, [-(2.0 ** -30)] + [0.0] * 15, 1.0) == _f32(1.0)
    # an exact cancellation is +0, whatever the signs of the zeros
    assert _wgmma_bf16(one, [-1.0] + [0.0] * 15, 1.0) == 0
    assert _wgmma_bf16(one, [-0.0] + [0.0] * 15, -0.0) == 0
    # RZ into f32: 1 + 1.5·2^-24 (exact in the sum; nearest f32 is 1 + 2^-23) rounds down
    assert _wgmma_bf16([1.0, 1.0] + [0.0] * 14, [1.0, 1.5 * 2.0 ** -24] + [0.0] * 14, 0.0) == \
        _f32(1.0)
    # inf - inf is the canonical NaN; NaN inputs too
    inf = float("inf")
    assert _wgmma_bf16([inf, inf] + [0.0] * 14, [1.0, -1.0] + [0.0] * 14, 0.0) == 0x7FFFFFFF
    assert _wgmma_bf16(one, [float("nan")] + [0.0] * 15, 1.0) == 0x7FFFFFFF
    assert _wgmma_bf16(one, [inf] + [0.0] * 15, 1.0) == _f32(inf)
    assert _wgmma_bf16([0.0] * 16, [inf] * 16, 1.0) == 0x7FFFFFFF  # 0 x inf


def test_decode_literals():
    d = mma_fast.decode(np.array([0x38, 0x01, 0x7F, 0xB8], np.uint32), "e4m3")  # 1, 2^-9, NaN, -1
    assert list(d.sig) == [8, 1, 0, 8] and list(d.exp[[0, 1, 3]]) == [0, -6, 0]
    assert list(d.nan) == [False, False, True, False] and list(d.neg) == [False, False, False, True]
    u = mma_fast.decode(np.array([127, 0, 255], np.uint32), "ue8m0")  # 2^0, 2^-127, NaN
    assert list(u.exp[:2]) == [0, -127] and list(u.nan) == [False, False, True]


@pytest.mark.parametrize("fmt, L", [("e4m3", 32), ("e5m2", 32), ("e2m3", 32), ("e2m1", 32), ("f16", 16),
                                    ("bf16", 16), ("tf32", 8)])
def test_float_sums_equal_the_integer_planes(fmt, L):
    """_product_sums' float form (where it is exact) gives the integer form's sums and e_max, with
    zeros, random C, block-scale exponents and each F of MMA-Sim's parameters."""
    rng = np.random.default_rng(7)
    nbits = {"f16": 16, "bf16": 16, "tf32": 32}.get(fmt, 8)
    compared = 0
    for trial in range(12):
        m, n = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        a = rng.integers(0, 1 << nbits, (m, L), dtype=np.uint64)
        b = rng.integers(0, 1 << nbits, (L, n), dtype=np.uint64)
        if fmt == "bf16":  # exponents near 1: the float form's range
            a, b = (a & 0x80FF) | 0x3C00, (b & 0x80FF) | 0x3C00
        if fmt == "tf32":
            a, b = (a & 0x87FFFFFF) | 0x38000000, (b & 0x87FFFFFF) | 0x38000000
        a[rng.random((m, L)) < 0.2] = 0
        da, db = mma_fast.decode(a, fmt), mma_fast.decode(b, fmt)
        for d in (da, db):  # (NaN and infinity are t_fdpa's _specials, not the sums')
            d.sig[d.nan | d.inf] = 0
        cbits = rng.integers(0, 1 << 32, (m, n), dtype=np.uint64).astype(np.uint32)
        cbits[(cbits & 0x7F800000) == 0x7F800000] = 0
        c = mma_fast.decode(cbits, "f32")
        extra = rng.integers(-8, 9, (m, n)).astype(np.int32) if trial % 2 else None
        F, e_zero = [(25, -133), (24, -132), (13, -20)][trial % 3]
        if F < da.frac + db.frac:
            continue
        assert mma_fast._float_exact(da, db)
        want = mma_fast._product_sums_int(da, db, F, e_zero, c, extra)
        got = mma_fast._product_sums_f32(da, db, F, e_zero, c, extra)
        assert np.array_equal(want[0], got[0]) and np.array_equal(want[1], got[1]), (fmt, trial)
        compared += 1
    assert compared >= 4
