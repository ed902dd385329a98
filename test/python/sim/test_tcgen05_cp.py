"""tcgen05.cp: every shape / multicast / swizzle against the independent model in cp_model.py,
read back through tcgen05.ld by all four warps (all 128 lanes)."""

import numpy as np
import pytest

from cp_model import POISON, make_desc, model_cp
from ptxgen import cp_kernel
from tile_mlir.sim import EmulationError, run_ptx

BUF = 1024  # the generator's `buf` lands at shared 0x400 (after the 16-byte slot, align 1024)
SMEM = 16384


def _run(cps_model, ncols=32, cta_group=1, nctas=1, decomp=None, strict=True, **kw):
    cps = [(q, col, lane, make_desc(BUF + st, lbo, sbo, mode))
           for (q, col, lane, st, lbo, sbo, mode) in cps_model]
    ptx = cp_kernel(cps, ncols=ncols, smem_bytes=SMEM, cta_group=cta_group, **kw)
    rng = np.random.default_rng(1234)
    src = rng.integers(0, 256, size=SMEM * nctas, dtype=np.uint8)
    out = np.zeros((nctas, 128, ncols), np.uint32)
    res = run_ptx(ptx, "k", [src, out], grid=(nctas, 1, 1), cluster=(nctas, 1, 1), strict=strict)
    expected = []
    for c in range(nctas):
        smem = np.zeros(BUF + SMEM, np.uint8)
        smem[BUF:] = src[c * SMEM:(c + 1) * SMEM]
        tm = np.full((128, 512), POISON, np.uint32)
        for (q, col, lane, st, lbo, sbo, mode) in cps_model:
            parts = q.split(".")
            shape = parts[0]
            mc = next((p for p in parts if p.startswith("warpx")), None)
            model_cp(smem, tm, shape, mc, lane, col, BUF + st, lbo, sbo, mode,
                     decomp=next((p for p in parts if p in ("b4x16_p64", "b6x16_p32")), None))
        expected.append(tm)
    return ptx, res, out, expected


SW = [0, 6, 4, 2]
SBO = {0: 128, 6: 256, 4: 512, 2: 1024}

CASES = []
for mode in SW:
    CASES += [
        ("128x256b", 0, 0, mode),
        ("128x128b", 4, 0, mode),
        ("4x256b", 8, 5, mode),
        ("64x128b.warpx2::02_13", 12, 0, mode),
        ("64x128b.warpx2::01_23", 16, 0, mode),
        ("32x128b.warpx4", 20, 0, mode),
    ]


@pytest.mark.parametrize("q,col,lane,mode", CASES)
def test_cp_shape_swizzle(q, col, lane, mode, assemble):
    lbo = 2048 if mode == 0 else 0  # sw0 256-bit shapes read their 2nd chunk at LBO
    ptx, res, out, exp = _run([(q, col, lane, 0, lbo, SBO[mode], mode)])
    assemble(ptx)
    np.testing.assert_array_equal(out[0], exp[0][:, :32])
    np.testing.assert_array_equal(res.tmem[0][:, :32], exp[0][:, :32])


def test_multi_cp_k_steps_and_columns(assemble):
    # 4 tiles of 32 rows x 16 B (TVM "multi-cp") + K stepping inside a 128B swizzle row
    cps = [("32x128b.warpx4", 4 * i, 0, 512 * i, 0, 128, 0) for i in range(4)]
    cps += [("128x128b", 16 + 4 * k, 0, 16 * k, 0, 1024, 2) for k in range(4)]
    ptx, res, out, exp = _run(cps)
    assemble(ptx)
    np.testing.assert_array_equal(out[0], exp[0][:, :32])
    assert not any("never written" in w for w in res.warnings)


def test_cta_group_2_pair_multicast_commit(assemble):
    cps = [("128x256b", 0, 0, 0, 0, 1024, 2), ("64x128b.warpx2::02_13", 8, 0, 0, 0, 1024, 2)]
    ptx, res, out, exp = _run(cps, cta_group=2, nctas=2, commit_mask=3)
    assemble(ptx)
    for c in range(2):  # each CTA copies from its OWN shared memory into its OWN TMEM
        np.testing.assert_array_equal(out[c], exp[c][:, :32])
    assert not np.array_equal(out[0], out[1])


def test_decompress_b4x16_p64(assemble):
    q = "128x128b.b8x16.b4x16_p64"
    ptx, res, out, exp = _run([(q, 0, 0, 0, 0, 1024, 2)])
    assemble(ptx)
    np.testing.assert_array_equal(out[0], exp[0][:, :32])


def test_decompress_b4_measured_example():
    # docs/emulator.md A2 (GB300 probe): bytes 00 01 .. 0f read back as 0,0,4,0,8,0,...,28,0
    from tile_mlir.sim.handlers.tcgen05_cp import decompress_b4 as _decompress_b4
    out = _decompress_b4(np.arange(16, dtype=np.uint8)[None, :])[0]
    assert list(out) == [0, 0, 4, 0, 8, 0, 12, 0, 16, 0, 20, 0, 24, 0, 28, 0]


@pytest.mark.parametrize("q", ["128x128b.b8x16.b6x16_p32", "32x128b.warpx4.b8x16.b6x16_p32"])
def test_decompress_b6x16_p32(q, assemble):
    ptx, res, out, exp = _run([(q, 0, 0, 0, 0, 1024, 2)])
    assemble(ptx)
    np.testing.assert_array_equal(out[0], exp[0][:, :32])
    assert not (out[0][:, :4] & 0xC0C0C0C0).any()  # the cp writes 4 columns: 6 data bits per byte


def test_decompress_b6_example():
    # sixteen 6-bit values packed low bits first into 12 bytes, then 4 bytes of padding (ignored)
    from tile_mlir.sim.handlers.tcgen05_cp import decompress_b6 as _decompress_b6
    vals = [63, 0, 1, 62, 33, 30, 5, 58, 17, 46, 9, 54, 2, 61, 32, 31]
    word = sum(v << (6 * i) for i, v in enumerate(vals))
    chunk = np.frombuffer(word.to_bytes(12, "little") + b"\xff" * 4, np.uint8)[None, :]
    assert list(_decompress_b6(chunk)[0]) == vals


def test_cp_64_columns_16_cps():
    cps = [("32x128b.warpx4", 4 * i, 0, (i % 32) * 512, 0, 128, 0) for i in range(16)]
    ptx, res, out, exp = _run(cps, ncols=64)
    np.testing.assert_array_equal(out[0], exp[0][:, :64])
