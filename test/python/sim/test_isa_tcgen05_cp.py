"""tcgen05.cp of the 128x256b, 128x128b and 4x256b shapes, with and without decompression
(.b8x16.b4x16_p64 / .b6x16_p32), cta_group::1 and ::2, on tile-sim: every row registered to this
test is run against the literal tables of test_tcgen05_cp_shapes.py (from the PTX ISA's tcgen05.cp
figures): which source row lands in which tensor-memory lanes and columns, nothing else written,
and the decompressed bytes of one chunk -- in each CTA of the pair for cta_group::2."""

from __future__ import annotations

import numpy as np
import pytest

import test_tcgen05_cp_shapes as S
from cp_model import make_desc
from isa_harness import isa_rows
from ptxgen import cp_kernel
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_tcgen05_cp.py::"
ROWS = isa_rows(T + "test_tcgen05_cp_rows")
FMT = {"b4x16_p64": (S.B4_CHUNK, S.B4_OUT), "b6x16_p32": (S.B6_CHUNK, S.B6_OUT)}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_tcgen05_cp_rows(row, assemble):
    p = row["form"].split(".")  # tcgen05 cp cta_group::N shape [b8x16 fmt]
    cg, shape = int(p[2][-1]), p[3]
    if len(p) == 4:
        S.test_rows_land_in_the_tabled_lanes(shape, cg, assemble)
        return
    fmt = p[5]
    chunk, expect = FMT[fmt]
    img = np.frombuffer(chunk * (S.SMEM // 16), np.uint8)
    ptx = cp_kernel([(f"{shape}.b8x16.{fmt}", 0, 0, make_desc(S.BUF, 2048, 128, 0))], ncols=32,
                    smem_bytes=S.SMEM, cta_group=cg, commit_mask=3 if cg == 2 else None)
    assert f"tcgen05.cp.cta_group::{cg}.{shape}.b8x16.{fmt}" in ptx
    assemble(ptx)
    out = np.zeros((cg, 128, 32), np.uint32)
    run_ptx(ptx, "k", [np.tile(img, cg), out], grid=(cg, 1, 1), cluster=(cg, 1, 1), strict=True)
    for c in range(cg):
        for row_, lanes in S.ROW_LANES[shape].items():
            for lane in lanes:
                for k in range(2 if shape.endswith("256b") else 1):
                    got = [b for col in range(4 * k, 4 * k + 4) for b in S._bytes_at(out[c], lane, col)]
                    assert got == expect, (c, row_, lane, k)
