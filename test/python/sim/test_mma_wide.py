"""sim/mma_wide.py, mma_fast.t_fdpa's f32 chain with D kept as float64 values between groups: bit for
bit mma_fast.t_fdpa's result on chains of groups (dense kinds and kind::mxf8f6f4 block32), including
the data it hands back to mma_fast (specials, a subnormal or overflowing group result) and C's edge
cases (zero, subnormal, the largest f32)."""

import numpy as np
import pytest

import mma_diff as md  # test/python/sim/mma_diff.py (conftest puts this directory on sys.path)

from tile_mlir.sim import mma_fast, mma_numerics as mn, mma_wide

#: (atype, btype, L, block-scaled) of the chains mma_numerics sends here
CHAINS = [("e4m3", "e4m3", 32, True), ("e5m2", "e2m1", 32, True), ("e4m3", "e4m3", 32, False),
          ("e2m3", "e3m2", 32, False), ("bf16", "bf16", 16, False), ("f16", "f16", 16, False),
          ("tf32", "tf32", 8, False)]


def _both(a, b, c, at, bt, L, sfa=None, sfb=None):
    want = mma_fast.t_fdpa(a, b, c, at, bt, "f32", F=25, rho="RZ-FP32", e_zero=-133, L=L,
                           sfa=sfa, sfb=sfb, stype="ue8m0" if sfa is not None else None)
    got = mma_wide.t_fdpa(a, b, c, at, bt, F=25, e_zero=-133, L=L, sfa=sfa, sfb=sfb)
    return want, got


#: element type -> (bits, mask of the exponent field): a full field is NaN or infinity (e4m3: NaN
#: is its full field with a full mantissa, S.1111.111)
_FIELD = {"e4m3": (8, 0x7F), "e5m2": (8, 0x7C), "f16": (16, 0x7C00), "bf16": (16, 0x7F80),
          "tf32": (32, 0x7F800000), "f32": (32, 0x7F800000)}


def _finite(rng, etype, shape, narrow):
    """Random bit patterns of ``etype`` without NaN or infinity (narrow: md's band near 1)."""
    x = md._operand(rng, etype, shape, 0.0, narrow)
    if etype in _FIELD:
        field = _FIELD[etype][1]
        x[(x & field) == field] &= ~np.uint32(1 << (_FIELD[etype][0] - 2))  # exponent's top bit
    return x


def _operands(rng, at, bt, L, scaled, m, n, groups, narrow=False):
    k = L * groups
    a, b = _finite(rng, at, (m, k), narrow), _finite(rng, bt, (k, n), narrow)
    c = (rng.standard_normal((m, n)) * 2.0 ** rng.integers(-20, 20, (m, n))).astype(np.float32).view(np.uint32)
    sfa = sfb = None
    if scaled:
        sfa = rng.integers(120, 135, (m, groups)).astype(np.uint32)
        sfb = rng.integers(120, 135, (groups, n)).astype(np.uint32)
    return a, b, c, sfa, sfb


@pytest.mark.parametrize("at,bt,L,scaled", CHAINS)
def test_chain_equals_mma_fast(at, bt, L, scaled):
    rng = np.random.default_rng(len(at) * 31 + L + scaled)
    for narrow in (False, True):
        a, b, c, sfa, sfb = _operands(rng, at, bt, L, scaled, 48, 40, 6, narrow=narrow)
        c[:4] = 0  # zero C: e_zero
        c[4, :4] = [1, 0x807FFFFF, 0x7F7FFFFF, 0x80800000]  # subnormals, the extremes
        want, got = _both(a, b, c, at, bt, L, sfa, sfb)
        if got is None:  # handed back only where mma_fast's float bounds fail (wide bf16, tf32)
            assert not narrow and at in ("bf16", "tf32")
            assert not mma_fast._float_exact(mma_fast.decode(a, at), mma_fast.decode(b, bt))
            continue
        bad = np.argwhere(want != got)
        assert not len(bad), f"{len(bad)} differ, first at {bad[0]}: " \
            f"0x{int(want[tuple(bad[0])]):x} != 0x{int(got[tuple(bad[0])]):x}"


@pytest.mark.parametrize("what", ["nan_a", "inf_c", "nan_scale", "overflow", "subnormal"])
def test_handed_back_to_mma_fast(what):
    """What this path does not compute returns None, and mma_numerics' result is mma_fast's."""
    rng = np.random.default_rng(7)
    a, b, c, sfa, sfb = _operands(rng, "e4m3", "e4m3", 32, True, 16, 16, 3)
    if what == "nan_a":
        a[3, 5] = 0x7F
    elif what == "inf_c":
        c[2, 2] = 0x7F800000
    elif what == "nan_scale":
        sfa[1, 1] = 0xFF
    elif what == "overflow":  # 448 * 448 * 2^127 * 2^0: the second group's sum passes 2^128
        a[0, 32] = 0x7E
        b[32, 0] = 0x7E
        sfa[0, 1] = 254
    else:  # products of 1 x 1 x 2^-70 x 2^-70, C zero: 32 of them are 2^-135, an f32 subnormal
        a[:] = 0x38
        b[:] = 0x38
        sfa[:] = 127 - 70
        sfb[:] = 127 - 70
        c[:] = 0
    want, got = _both(a, b, c, "e4m3", "e4m3", 32, sfa, sfb)
    assert got is None
    d = mn.tcgen05_chain("mxf8f6f4", "f32", "e4m3", "e4m3", a, b, c, sfa=sfa, sfb=sfb)
    assert np.array_equal(d, want)


def test_mma_numerics_uses_it_and_equals_mma_sim():
    """The chain as mma_numerics computes it (this path) is MMA-Sim's result (md.compare)."""
    rng = np.random.default_rng(3)
    for name in ("tcgen05.mxf8f6f4.e4m3", "tcgen05.f8f6f4.e4m3", "wgmma.f32.bf16"):
        bad, fast, ref, _, _ = md.compare(name, rng, 16, 16, special_rate=0.0)
        assert len(bad) == 0, f"{name}: {len(bad)} of {fast.size} differ"


@pytest.mark.parametrize("sign", [0x00, 0x80])
def test_largest_products_sum_past_int32(sign):
    """32 products of 448 x 448 (e4m3's largest, 1.75 x 2^8) truncated to F = 25 bits below e_max are
    integers of about 2^26.6 each: the group's sum, about 2^31.6 in magnitude, passes int32, so the
    truncated terms are summed in two int32 parts (mma_wide._int_parts); it equals mma_fast's."""
    assert mma_wide._int_parts(25, 32) == 2
    a = np.full((8, 64), 0x7E, np.uint32)
    b = np.full((64, 8), 0x7E | sign, np.uint32)
    c = np.zeros((8, 8), np.uint32)
    sfa, sfb = np.full((8, 2), 127, np.uint32), np.full((2, 8), 127, np.uint32)
    for scales in ((None, None), (sfa, sfb)):
        want, got = _both(a, b, c, "e4m3", "e4m3", 32, *scales)
        assert got is not None and np.array_equal(want, got)
        # 2 groups of 32 x 448^2 = 12845056, below 2^24: exact in f32
        assert np.all(got.view(np.float32) == (-1.0 if sign else 1.0) * 64 * 448.0 * 448.0)
