"""End to end for every tcgen05.cp shape: tile IR -> PTX (sm_100a) -> ptxas -> tile-sim, cta_group 1 and 2.

Each case's tmem layout names its shape (docs/tcgen05.md §7): the emitted PTX must use that shape, and the
emulated TMEM of all 128 lanes (every allocated column) and the tcgen05.ld readback must equal the numpy
expectation of e2e_kernels.expected, built from logical coordinates only (numpy indexing of the input on
the shared side, the tmem layout's apply() on the other). Unwritten cells must keep tile-sim's poison.
"""

import os

import numpy as np
import pytest

import tiers  # noqa: E402
from e2e_kernels import POISON, Case, find_ptxas, run_case  # noqa: E402
from tile_mlir.layout import SwizzleMode, kmajor_layout  # noqa: E402

PTXAS = find_ptxas()


def km(shape, bits, mode):
    return str(kmajor_layout(shape, bits, SwizzleMode(mode)))


# (case, PTX shape qualifiers, lanes the copy writes)
ALL, FOUR = set(range(128)), None
CASES = [
    (Case("128x256b_bf16_sw128_4cps", "bf16", (128, 64), km([128, 64], 16, "128B"), (128, 64),
          "S[(128, 64) : (1@TLane, 1@TCol)]"), ".128x256b", ALL),
    (Case("128x256b_bf16_interleaved_lbo", "bf16", (128, 16), "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", (128, 16),
          "S[(128, 16) : (1@TLane, 1@TCol)]"), ".128x256b", ALL),
    (Case("128x256b_f32_sw64_col_offset", "f32", (128, 16), km([128, 16], 32, "64B"), (128, 64),
          "S[(128, 64) : (1@TLane, 1@TCol)]", dst_region=((0, 24), (128, 16))), ".128x256b", ALL),
    (Case("128x128b_u8", "ui8", (128, 16), "S[(128, 16) : (16, 1)]", (128, 16),
          "S[(128, 16) : (1@TLane, 1@TCol)]"), ".128x128b", ALL),
    (Case("128x128b_bf16_gapped_tmem", "bf16", (128, 16), "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", (128, 2, 8),
          "S[(128, 2, 8) : (1@TLane, 16@TCol, 1@TCol)]"), ".128x128b", ALL),
    (Case("4x256b_f32_sw32", "f32", (8, 8), km([8, 8], 32, "32B"), (4, 8), "S[(4, 8) : (32@TLane, 1@TCol)]",
          src_region=((0, 0), (4, 8))), ".4x256b", {0, 32, 64, 96}),
    (Case("4x256b_f32_lane_middle", "f32", (4, 4, 8), "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", (4, 4, 8),
          "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]"), ".4x256b", {32 * q + i for q in range(4) for i in range(4)}),
    (Case("4x256b_u8_lane_offset_7", "ui8", (4, 32), "S[(4, 2, 16) : (16, 64, 1)]", (4, 32, 32),
          "S[(4, 32, 32) : (32@TLane, 1@TLane, 1@TCol)]", dst_region=((0, 7, 0), (4, 1, 32))),
     ".4x256b", {7, 39, 71, 103}),
    (Case("64x128b_02_13_u8", "ui8", (64, 16), "S[(64, 16) : (16, 1)]", (64, 16),
          "S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]"), ".64x128b.warpx2::02_13", ALL),
    (Case("64x128b_02_13_bf16_sw128", "bf16", (64, 64), km([64, 64], 16, "128B"), (64, 64),
          "S[(64, 64) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]"), ".64x128b.warpx2::02_13", ALL),
    (Case("64x128b_01_23_u8_sw64", "ui8", (64, 64), km([64, 64], 8, "64B"), (64, 64),
          "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]"), ".64x128b.warpx2::01_23", ALL),
    # block-scaled GEMM scale factors (docs/tcgen05.md §7): SFB 2x2 for cta_group 2, SFA 4x1
    (Case("64x128b_01_23_sfb_2by2_ue8m0", "f8E8M0FNU", (256, 4), "S[(2, 4, 32, 4) : (512, 4, 16, 1)]",
          (256, 4), "S[(2, 4, 32, 4) : (64@TLane, 4@TCol, 1@TLane, 1@TCol)] + R[2 : 32@TLane]"),
     ".64x128b.warpx2::01_23", ALL),
    (Case("32x128b_sfa_4by1_ue8m0", "f8E8M0FNU", (256, 4), "S[(2, 4, 32, 4) : (512, 4, 16, 1)]", (256, 4),
          "S[(2, 4, 32, 4) : (16@TCol, 4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]"), ".32x128b.warpx4", ALL),
    # padded 4-bit data decompressed into 8-bit containers (.b8x16.b4x16_p64), besides the packed copy
    (Case("32x128b_fp4_b4x16_p64", "f4E2M1FN", (32, 32), "S[(32, 2, 16) : (16, 512, 1)]", (32, 32),
          "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]", meta={"packing": "b4x16_p64"}),
     ".32x128b.warpx4.b8x16.b4x16_p64", ALL),
    (Case("128x256b_fp4_b4x16_p64_sw32", "f4E2M1FN", (128, 32), km([128, 32], 8, "32B"), (128, 32),
          "S[(128, 32) : (1@TLane, 1@TCol)]", meta={"packing": "b4x16_p64"}), ".128x256b.b8x16.b4x16_p64", ALL),
    (Case("128x128b_fp4_packed", "f4E2M1FN", (128, 32), "S[(128, 32) : (32, 1)]", (128, 32),
          "S[(128, 32) : (1@TLane, 1@TCol)]"), ".128x128b", ALL),
    (Case("64x128b_02_13_f6_b6x16_p32", "f6E3M2FN", (64, 16), "S[(64, 16) : (16, 1)]", (64, 16),
          "S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]"), ".64x128b.warpx2::02_13.b8x16.b6x16_p32", ALL),
]


def _params():
    for case, quals, lanes in CASES:
        for cg in (1, 2):
            c = Case(**{**case.__dict__, "name": f"cp_{case.name}_cg{cg}", "cta_group": cg, "meta": dict(case.meta)})
            yield pytest.param(c, quals, lanes, id=c.name)


# the fast tier: every case with one CTA and every copy shape with a CTA pair (tiers.cover); the slow
# tier the other pairs
@pytest.mark.parametrize("case,quals,lanes", tiers.cover(
    list(_params()), lambda case, quals, lanes: case.name.rsplit("_cg", 1)[0],
    lambda case, quals, lanes: (quals, case.cta_group)))
def test_e2e_shape(case, quals, lanes):
    if PTXAS is None:
        pytest.skip("ptxas not found (tile_mlir.driver.toolchain.find_tool): cannot assemble the emitted PTX")
    out = run_case(case, seed=hash(case.name) & 0xFFFF, ptxas_exe=PTXAS)
    assert out.cp_lines, out.ptx[-2000:]
    for ln in out.cp_lines:
        assert ln.split()[0] == f"tcgen05.cp.cta_group::{case.cta_group}{quals}", out.cp_lines
    assert all("never written" in w for w in out.warnings), out.warnings
    assert not out.mismatches(), "\n".join(out.mismatches())
    for c in range(case.cta_group):
        written = out.expected[c] != POISON
        assert {int(x) for x in np.nonzero(written.any(axis=1))[0]} == lanes
        assert (out.tmem[c][~written] == POISON).all()
    if case.cta_group == 2:  # each CTA copied its OWN shared tile (different inputs)
        assert not np.array_equal(out.tmem[0], out.tmem[1])
