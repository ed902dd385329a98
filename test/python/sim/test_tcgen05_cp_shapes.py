"""tcgen05.cp in tile-sim against LITERAL tables: for each shape and multicast, which source row lands in
which tensor-memory lanes, which columns a row's 16-byte chunks fill, and the decompressed bytes.

The tables are written out by hand from the PTX ISA's text and figures for tcgen05.cp
(#tcgen05-instructions-tcgen05-cp, #tcgen05-data-movement-shape, #tcgen05-optional-decompression) as
docs/tcgen05.md §7/§8 restate them; warpx2 (both warps of a pair get the same 32 rows) and 4x256b are
docs/emulator.md A5/A6, the decompressed bit placement A1/A2. Nothing here is computed by a formula of
the emulator or of our layout algebra: each expected lane list is a literal.

The kernels (ptxgen.cp_kernel) fill shared memory with *tags*: the 16-byte chunk at byte offset o of the
buffer holds the little-endian u16 o / 16 in bytes 0-1 and 0xC0 + k in byte k (k = 2..15). The descriptor
has no swizzle, SBO 128 and LBO 2048, so row r's first chunk is chunk r and a 256-bit row's second chunk
is chunk 128 + r (docs/tcgen05.md §6). All four warps read their lane quarters back by tcgen05.ld.
"""

import numpy as np
import pytest

from cp_model import POISON, make_desc
from ptxgen import cp_kernel
from tile_mlir.sim import run_ptx

BUF = 1024   # cp_kernel's `buf` is at shared 0x400
SMEM = 4096  # 256 chunks: tags 0..255

# row -> the tmem lanes it is written to (taddr lane field 0 unless the case says otherwise)
ROW_LANES = {
    "128x256b": {0: (0,), 1: (1,), 7: (7,), 8: (8,), 31: (31,), 32: (32,), 63: (63,), 64: (64,), 100: (100,),
                 127: (127,)},
    "128x128b": {0: (0,), 5: (5,), 31: (31,), 32: (32,), 95: (95,), 96: (96,), 127: (127,)},
    "4x256b": {0: (0,), 1: (32,), 2: (64,), 3: (96,)},
    "64x128b.warpx2::02_13": {0: (0, 64), 1: (1, 65), 31: (31, 95), 32: (32, 96), 33: (33, 97), 63: (63, 127)},
    "64x128b.warpx2::01_23": {0: (0, 32), 1: (1, 33), 31: (31, 63), 32: (64, 96), 33: (65, 97), 63: (95, 127)},
    "32x128b.warpx4": {0: (0, 32, 64, 96), 1: (1, 33, 65, 97), 16: (16, 48, 80, 112), 31: (31, 63, 95, 127)},
}
ROWS = {"128x256b": 128, "128x128b": 128, "4x256b": 4, "64x128b.warpx2::02_13": 64,
        "64x128b.warpx2::01_23": 64, "32x128b.warpx4": 32}
LANES_WRITTEN = {  # every lane each shape writes (with lane field 0)
    "128x256b": tuple(range(128)), "128x128b": tuple(range(128)), "4x256b": (0, 32, 64, 96),
    "64x128b.warpx2::02_13": tuple(range(128)), "64x128b.warpx2::01_23": tuple(range(128)),
    "32x128b.warpx4": tuple(range(128)),
}
# (chunk, byte of the chunk) -> (column offset from C0, byte of the 32-bit cell): little-endian words
BYTE_PLACE = {(0, 0): (0, 0), (0, 1): (0, 1), (0, 3): (0, 3), (0, 4): (1, 0), (0, 9): (2, 1), (0, 15): (3, 3),
              (1, 0): (4, 0), (1, 6): (5, 2), (1, 15): (7, 3)}


def _tags():
    img = np.zeros(SMEM, np.uint8).reshape(-1, 16)
    chunk = np.arange(len(img))
    img[:, 0], img[:, 1] = chunk & 0xFF, chunk >> 8
    img[:, 2:] = 0xC0 + np.arange(2, 16)
    return img.reshape(-1)


def _run(quals, col=0, lane=0, cta_group=1, ncols=32):
    desc = make_desc(BUF, 2048, 128, 0)
    ptx = cp_kernel([(quals, col, lane, desc)], ncols=ncols, smem_bytes=SMEM, cta_group=cta_group,
                    commit_mask=3 if cta_group == 2 else None)
    src = np.tile(_tags(), cta_group)
    out = np.zeros((cta_group, 128, ncols), np.uint32)
    res = run_ptx(ptx, "k", [src, out], grid=(cta_group, 1, 1), cluster=(cta_group, 1, 1), strict=True)
    return ptx, out, res


def _bytes_at(out, lane, col):
    return [(int(out[lane, col]) >> (8 * b)) & 0xFF for b in range(4)]


@pytest.mark.parametrize("cta_group", [1, 2])
@pytest.mark.parametrize("shape", list(ROW_LANES))
def test_rows_land_in_the_tabled_lanes(shape, cta_group, assemble):
    ptx, out, res = _run(shape, col=8, cta_group=cta_group)
    assemble(ptx)
    nch = 2 if shape.endswith("256b") else 1
    for c in range(cta_group):
        tm = out[c]
        for row, lanes in ROW_LANES[shape].items():
            for ln in lanes:
                for ch in range(nch):  # chunk ch of row `row` is tag row (+128 for the second)
                    b = _bytes_at(tm, ln, 8 + 4 * ch)
                    assert b[0] | b[1] << 8 == row + 128 * ch, (shape, row, ln, ch, b)
        written = set(np.nonzero((tm[:, 8:8 + 4 * nch] != POISON).any(axis=1))[0].tolist())
        assert written == set(LANES_WRITTEN[shape])
        assert (tm[:, :8] == POISON).all() and (tm[:, 8 + 4 * nch:] == POISON).all()  # only C0.. C0+4nch-1
        assert len({int(tm[ln, 8]) & 0xFFFF for ln in written}) == ROWS[shape]  # each row exactly once


def test_4x256b_lane_field_shifts_every_row():
    # taddr lane field 5: rows 0..3 to lanes 5, 37, 69, 101 (docs/emulator.md A4, A6)
    _, out, _ = _run("4x256b", lane=5)
    tags = {ln: int(out[0, ln, 0]) & 0xFFFF for ln in (5, 37, 69, 101)}
    assert tags == {5: 0, 37: 1, 69: 2, 101: 3}
    assert set(np.nonzero((out[0] != POISON).any(axis=1))[0].tolist()) == {5, 37, 69, 101}


def test_chunk_bytes_fill_columns_little_endian():
    _, out, _ = _run("128x256b", col=4)
    for (ch, k), (dc, b) in BYTE_PLACE.items():
        got = _bytes_at(out[0], 3, 4 + dc)[b]  # row 3: chunk tags 3 and 131
        want = {0: (3 + 128 * ch) & 0xFF, 1: 0}.get(k, 0xC0 + k)
        assert got == want, ((ch, k), got, want)


# decompression (.b8x16.<format>): one 16-byte source chunk in, 16 bytes out, literal
B4_CHUNK = bytes([0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE]) + b"\xff" * 8
B4_OUT = [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60]  # nibble i << 2 (A2)
# sixteen 6-bit fields 0, 1, ..., 15 packed low bits first into 12 bytes, then 4 bytes of padding
B6_CHUNK = bytes([0x40, 0x20, 0x0C, 0x44, 0x61, 0x1C, 0x48, 0xA2, 0x2C, 0x4C, 0xE3, 0x3C]) + b"\xa5" * 4
B6_OUT = list(range(16))  # field i in container bits [5, 0] (A1)


@pytest.mark.parametrize("fmt,chunk,expect", [("b4x16_p64", B4_CHUNK, B4_OUT), ("b6x16_p32", B6_CHUNK, B6_OUT)],
                         ids=["b4x16_p64", "b6x16_p32"])
@pytest.mark.parametrize("shape", ["128x128b", "64x128b.warpx2::01_23", "32x128b.warpx4", "4x256b"])
def test_decompression_bytes(shape, fmt, chunk, expect, assemble):
    img = np.frombuffer(chunk * (SMEM // 16), np.uint8)
    desc = make_desc(BUF, 2048, 128, 0)
    ptx = cp_kernel([(f"{shape}.b8x16.{fmt}", 0, 0, desc)], ncols=32, smem_bytes=SMEM)
    assemble(ptx)
    out = np.zeros((128, 32), np.uint32)
    run_ptx(ptx, "k", [img.copy(), out], strict=True)
    lane = ROW_LANES[shape][0][-1]  # row 0, its last lane (every row holds the same chunk here)
    for c in range(2 if shape.endswith("256b") else 1):
        got = [b for col in range(4 * c, 4 * c + 4) for b in _bytes_at(out, lane, col)]
        assert got == expect
