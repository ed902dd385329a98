"""End to end: tile IR -> PTX (sm_100a) -> ptxas -> tile-sim, for the seed's smem -> tmem cases (apache/tvm
test_smem_tmem.py at bb6f8aec55) and the cases TVM never ran (bf16 / f32 / 4-bit / 6-bit, tmem column offsets,
all four lane quarters, cta_group 2). Both the emulated TMEM (all 128 lanes, every allocated column) and
the tcgen05.ld readback are compared with a numpy expectation built from logical coordinates only
(e2e_kernels.expected: numpy indexing on the shared side, the tmem layout's apply() on the other)."""

import os

import numpy as np
import pytest


from e2e_kernels import POISON, Case, find_ptxas, kernel_text, run_case  # noqa: E402
from tile_mlir.diagnostics import TileError  # noqa: E402
from tile_mlir.layout import SwizzleMode, kmajor_layout  # noqa: E402

PTXAS = find_ptxas()
T_BASIC = "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"


def t2d(rows, cols):
    return f"S[({rows}, {cols}) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"


def km(shape, bits, mode):
    return str(kmajor_layout(shape, bits, SwizzleMode(mode) if mode != "none" else SwizzleMode.NONE))


def seed(name, shape, layout, region=None):
    return Case(name, "ui8", shape, layout, (32, 16), T_BASIC, src_region=region)


CASES = [
    # ---- the seed's eight single-cp cases (uint8, tmem S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane])
    seed("sw0_plain_atom_aligned", (32, 16), "S[(32, 16) : (16, 1)]"),
    seed("sw1_32B_atom", (32, 32), "Swizzle<32B> o S[(32, 32) : (32, 1)]", ((0, 0), (32, 16))),
    seed("sw2_64B_atom", (32, 64), "Swizzle<64B> o S[(32, 64) : (64, 1)]", ((0, 0), (32, 16))),
    seed("sw3_128B_atom", (32, 128), "Swizzle<128B> o S[(32, 128) : (128, 1)]", ((0, 0), (32, 16))),
    seed("sw3_64x128_corner", (64, 128), "Swizzle<128B> o S[(64, 128) : (128, 1)]", ((0, 0), (32, 16))),
    seed("sw3_64x128_atom_row_8", (64, 128), "Swizzle<128B> o S[(64, 128) : (128, 1)]", ((8, 0), (32, 16))),
    seed("sw2_32x256_col_64", (32, 256), "Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]", ((0, 64), (32, 16))),
    seed("sw0_M_atom_major_4_0", (64, 32), "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", ((4, 0), (32, 16))),
    # ---- multi-cp (4 stacked tiles) and align-middle (nvfp4 scale factors)
    Case("multi_cp_4tiles", "ui8", (4, 32, 16), "S[(4, 32, 16) : (512, 16, 1)]", (4, 32, 16),
         "S[(4, 32, 16) : (16@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]"),
    Case("align_middle_nvfp4_sf", "ui8", (256, 16), "S[(2, 4, 32, 4, 4) : (2048, 4, 16, 512, 1)]", (256, 16),
         "S[(2, 4, 32, 4, 4) : (16@TCol, 4@TCol, 1@TLane, 32@TCol, 1@TCol)] + R[4 : 32@TLane]"),
    # ---- beyond TVM: dtypes
    Case("bf16_32x8", "bf16", (32, 8), "S[(32, 8) : (8, 1)]", (32, 8), t2d(32, 8)),
    Case("f32_32x4", "f32", (32, 4), "S[(32, 4) : (4, 1)]", (32, 4), t2d(32, 4)),
    Case("u4_32x32", "ui4", (32, 32), "S[(32, 32) : (32, 1)]", (32, 32), t2d(32, 32)),
    Case("fp4_sw64_k_steps", "f4E2M1FN", (32, 128), km([32, 128], 4, "64B"), (32, 128), t2d(32, 128)),
    Case("bf16_sw128_k_steps", "bf16", (32, 64), "Swizzle<128B> o S[(32, 64) : (64, 1)]", (32, 64), t2d(32, 64)),
    Case("f32_sw32_two_atoms", "f32", (32, 16), km([32, 16], 32, "32B"), (32, 16), t2d(32, 16)),
    Case("bf16_sw128_64rows_rows_32_64", "bf16", (64, 128), km([64, 128], 16, "128B"), (32, 128), t2d(32, 128),
         src_region=((32, 0), (32, 128))),
    Case("ui8_sw64_8_cps_256_cols", "ui8", (32, 512), km([32, 512], 8, "64B"), (32, 512), t2d(32, 512)),
    # ---- beyond TVM: 6-bit (.b8x16.b6x16_p32 decompression; shared packing b6x16_p32, tmem 8-bit containers)
    Case("f6e3m2_32x16", "f6E3M2FN", (32, 16), "S[(32, 16) : (16, 1)]", (32, 16), t2d(32, 16)),
    Case("f6e2m3_sw128_k_steps", "f6E2M3FN", (32, 128), km([32, 128], 8, "128B"), (32, 128), t2d(32, 128)),
    Case("i6_sw32_rows_8_40_col_offset", "i6", (64, 32), km([64, 32], 8, "32B"), (32, 64), t2d(32, 64),
         src_region=((8, 0), (32, 32)), dst_region=((0, 32), (32, 32))),
    Case("cta_group_2_f6_core_matrices", "f6E3M2FN", (32, 64), "S[(32, 4, 16) : (16, 512, 1)]", (32, 64),
         t2d(32, 64), cta_group=2),
    # ---- beyond TVM: tmem column offsets (whole 32-bit columns, multiples of 4)
    Case("tmem_column_offset_16", "ui8", (32, 16), "S[(32, 16) : (16, 1)]", (32, 64), t2d(32, 64),
         dst_region=((0, 16), (32, 16))),
    Case("tmem_column_offset_bf16_col_100", "bf16", (32, 16), "Swizzle<32B> o S[(32, 16) : (16, 1)]",
         (32, 256), t2d(32, 256), dst_region=((0, 200), (32, 16))),
    Case("tmem_column_offset_f32_col_388", "f32", (32, 8), "S[(32, 2, 4) : (4, 128, 1)]", (32, 512),
         t2d(32, 512), dst_region=((0, 388), (32, 8))),
    # ---- beyond TVM: cta_group 2 (both CTAs allocate; the even CTA issues; multicast commit)
    Case("cta_group_2_f32", "f32", (32, 4), "S[(32, 4) : (4, 1)]", (32, 4), t2d(32, 4), cta_group=2),
    Case("cta_group_2_ui8_sw128_multi", "ui8", (32, 128), km([32, 128], 8, "128B"), (32, 128), t2d(32, 128),
         cta_group=2),
    Case("cta_group_2_u4_col_offset", "ui4", (32, 64), km([32, 64], 4, "32B"), (32, 128), t2d(32, 128),
         dst_region=((0, 64), (32, 64)), cta_group=2),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_e2e(case):
    if PTXAS is None:
        pytest.skip("ptxas not found (tile_mlir.driver.toolchain.find_tool): cannot assemble the emitted PTX")
    out = run_case(case, seed=hash(case.name) & 0xFFFF, ptxas_exe=PTXAS)
    assert out.cp_lines and all(".32x128b.warpx4" in ln and f"cta_group::{case.cta_group}" in ln
                                for ln in out.cp_lines), out.cp_lines
    decompress = ".b8x16.b6x16_p32" if case.bits == 6 else ".b8x16"
    assert all((decompress in ln) == (case.bits == 6) for ln in out.cp_lines), out.cp_lines
    assert all("never written" in w for w in out.warnings), out.warnings
    assert not out.mismatches(), "\n".join(out.mismatches())
    for c in range(case.cta_group):
        tm, ex = out.tmem[c], out.expected[c]
        written = ex != POISON
        assert written.any()
        # warpx4: the same 32 rows in every lane quarter; lanes 32-127 are checked, not inferred
        for q in (1, 2, 3):
            np.testing.assert_array_equal(tm[32 * q:32 * q + 32], tm[0:32], err_msg=f"quarter {q}")
            assert written[32 * q:32 * q + 32].sum() == written[0:32].sum()
    if case.cta_group == 2:  # each CTA copied its OWN shared tile (different inputs)
        assert not np.array_equal(out.tmem[0], out.tmem[1])


def test_expectation_is_not_vacuous():
    """The comparison catches a wrong copy: the same kernel checked against a shifted source region."""
    if PTXAS is None:
        pytest.skip("ptxas not found")
    case = CASES[5]  # sw3_64x128_atom_row_8
    out = run_case(case, seed=1, ptxas_exe=PTXAS)
    assert not out.mismatches()
    from e2e_kernels import expected, make_input
    A = make_input(case, np.random.default_rng(1))
    wrong = Case(**{**case.__dict__, "src_region": ((0, 0), (32, 16))})
    assert not np.array_equal(expected(wrong, A), out.tmem[0])


@pytest.mark.parametrize("name,shape,layout,region,check", [
    ("sw3_mid_atom_row", (64, 128), "Swizzle<128B> o S[(64, 128) : (128, 1)]", ((4, 0), (32, 16)),
     "alignment.src_start"),
    ("sw2_mid_atom_col", (32, 128), "Swizzle<64B> o S[(32, 2, 64) : (64, 2048, 1)]", ((0, 16), (32, 16)),
     "alignment.src_start"),
    ("sw0_row_stride_64", (64, 64), "S[(64, 64) : (64, 1)]", ((0, 0), (32, 16)), "swizzle"),
])
def test_seed_rejected_cases(name, shape, layout, region, check):
    from tile_mlir.driver.compiler import compile
    with pytest.raises(TileError) as ei:
        compile(kernel_text(seed(name, shape, layout, region)), arch="sm_100a")
    first = next(d for d in ei.value.diagnostics if d.severity == "error")
    assert "dispatch" in first.message and f"smem->tmem: declined: {check} - " in first.message, first.message
