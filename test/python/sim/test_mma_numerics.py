"""sim/mma_numerics.py, the one module calling MMA-Sim: what it composes itself (integer kinds,
negation, scale-input-d, row subsets, the fp4 packing) against literal values and against MMA-Sim
called directly."""

import numpy as np
import pytest

from tile_mlir.sim import mma_numerics as mn

from lazy_import import Lazy

mmasim = Lazy("mmasim.nv_ptx")  # (imported by the first test that uses it: lazy_import.py)
torch = Lazy("torch")


def test_integer_wrap_and_saturate():
    a = np.array([[0x7F, 0x7F]], np.uint32)  # s8 127, 127
    b = np.array([[0x7F], [0x7F]], np.uint32)
    c = np.array([[0x7FFF_C000]], np.uint32)  # 2^31 - 2^14; + 2 * 16129 overflows
    assert mn.integer_mma(a, b, c, "s8", "s8", False)[0, 0] == (0x7FFF_C000 + 32258) & 0xFFFFFFFF
    assert mn.integer_mma(a, b, c, "s8", "s8", True)[0, 0] == 0x7FFF_FFFF
    a = np.array([[0xFF, 0x80]], np.uint32)  # u8 255, 128 / s8 -1, -128
    b = np.array([[0x80], [0xFF]], np.uint32)
    zero = np.zeros((1, 1), np.uint32)
    assert mn.integer_mma(a, b, zero, "u8", "s8", False)[0, 0] == (255 * -128 + 128 * -1) & \
        0xFFFFFFFF
    assert mn.integer_mma(a, b, zero, "s8", "u8", False)[0, 0] == (-1 * 128 + -128 * 255) & \
        0xFFFFFFFF
    c = np.array([[0x8000_0000]], np.uint32)  # -2^31 - 1 saturates at the bottom
    one = np.array([[0xFF]], np.uint32)
    assert mn.integer_mma(one, np.array([[1]], np.uint32), c, "s8", "s8", True)[0, 0] == \
        0x8000_0000


@pytest.mark.parametrize("etype, x, neg", [("f16", 0x3C00, 0xBC00), ("bf16", 0x3F80, 0xBF80),
                                           ("tf32", 0x3F80_0000, 0xBF80_0000),
                                           ("e4m3", 0x38, 0xB8), ("e2m1", 0x08, 0x28),
                                           ("e3m2", 0x0C, 0x2C), ("e2m1x2", 0x2, 0xA)])
def test_negate_flips_the_sign_bit_of_each_format(etype, x, neg):
    assert mn.negate(np.array([x], np.uint32), etype)[0] == neg


def _t(bits, dt):
    return torch.from_numpy(bits.astype(np.uint16).view(np.int16)).view(dt)


def test_rows_of_a_warp_equal_the_full_instruction():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 1 << 16, (64, 16)).astype(np.uint32) & 0x7BFF
    b = rng.integers(0, 1 << 16, (16, 32)).astype(np.uint32) & 0x7BFF
    c = np.zeros((64, 32), np.uint32)
    full = mn.wgmma("f32", "f16", "f16", a, b, c, n=32, k=16)
    op = mmasim.WGMMA("Hopper", "m64n32k16.f32.f16.f16")
    direct = op(_t(a, torch.float16), _t(b, torch.float16), torch.zeros(64, 32))
    assert np.array_equal(full, direct.view(torch.int32).numpy().view(np.uint32))
    for w in range(4):
        rows = slice(16 * w, 16 * w + 16)
        assert np.array_equal(mn.wgmma("f32", "f16", "f16", a[rows], b, c[rows], n=32, k=16),
                              full[rows])


def test_scale_input_d_is_an_exact_power_of_two():
    c = np.array([[0x4100_0000, 0x0080_0000, 0x3F80_0001]], np.uint32)  # 8, 2^-126, 1 + ulp
    assert list(mn._scale_c(c, "f32", 3)[0]) == [0x3F80_0000, 0x0010_0000, 0x3E00_0001]
    h = np.array([[0x4800]], np.uint32)  # f16 8.0
    assert mn._scale_c(h, "f16", 3)[0, 0] == 0x3C00


def test_fp4_packing_puts_the_even_element_high_for_mmasim():
    assert mn._pack_fp4(np.array([[0x1, 0x2, 0x3, 0x4]], np.uint32)).tolist() == [[0x12, 0x34]]


def test_missing_model_is_an_emulation_error():
    from tile_mlir.sim import EmulationError
    with pytest.raises(EmulationError, match="no Hopper model"):
        mn._op("WGMMA", "Hopper", "m64n12k16.f32.f16.f16")
