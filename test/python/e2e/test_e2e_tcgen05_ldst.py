"""End to end: tile IR -> PTX (sm_100a) -> ptxas -> tile-sim for tensor memory <-> registers, every
tcgen05.ld / tcgen05.st shape, cta_group 1 and 2, and the epilogue conversions.

Each kernel (e2e_ldst_kernels.kernel_text) loads a global tile into registers, stores it to tensor
memory with tcgen05.st, reads it back with tcgen05.ld into another register layout and stores that to
global memory; tensor memory is compared with the tmem layout's apply() of every logical coordinate,
the round trip with the input, and converted tiles with numpy / ml_dtypes."""

import os
import re

import pytest


import tiers  # noqa: E402
from e2e_kernels import find_ptxas  # noqa: E402
from e2e_ldst_kernels import LdStCase, run_case  # noqa: E402

PTXAS = find_ptxas()
ROWS32 = "S[(4, 32, {n}) : (1@warpid, 1@laneid, 1@reg)]"          # 32x32b: lane t of warp w = row 32w + t
# per warp 16 rows at lanes 32w.. of its quarter (tmem), as the 16-lane fragments lay them out
T16 = "S[(4, 16, {n}) : (32@TLane, 1@TLane, 1@TCol)]"
F16x64 = "S[(4, 2, 8, {n}, 2) : (1@warpid, 1@laneid, 4@laneid, 1@reg, 2@laneid)]"
F16x128 = "S[(4, 2, 8, {j}, 4) : (1@warpid, 1@reg, 4@laneid, 2@reg, 1@laneid)]"
F16x256 = "S[(4, 2, 8, {j}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"


def rows32(n, elem="f32"):
    num = min(128, n * NBITS[elem] // 32)
    return LdStCase(f"r32_{elem}_{n}", elem, (128, n), f"S[(128, {n}) : (1@TLane, 1@TCol)]", ROWS32.format(n=n),
                    ROWS32.format(n=n), expect={"st": f"32x32b.x{num}", "ld": f"32x32b.x{num}"})


NBITS = {"f32": 32, "bf16": 16, "ui8": 8}


CASES = [
    rows32(16),
    rows32(192),  # x128 + x64: one instruction moves at most 128 registers
    LdStCase("r32_bf16_pack", "bf16", (128, 32), "S[(128, 32) : (1@TLane, 2@TCol)]", ROWS32.format(n=32),
             ROWS32.format(n=32), expect={"st": "32x32b.x16.unpack::16b", "ld": "32x32b.x16.pack::16b"}),
    rows32(64, "bf16"),  # two bf16 per column and per register: no packing
    rows32(32, "ui8"),
    LdStCase("f16x64b", "f32", (64, 32), T16.format(n=32), F16x64.format(n=16), F16x64.format(n=16),
             expect={"st": "16x64b.x16", "ld": "16x64b.x16"}),
    LdStCase("f16x128b", "f32", (64, 32), T16.format(n=32), F16x128.format(j=8), F16x128.format(j=8),
             expect={"st": "16x128b.x8", "ld": "16x128b.x8"}),
    LdStCase("f16x256b", "f32", (64, 64), T16.format(n=64), F16x256.format(j=8), F16x256.format(j=8),
             expect={"st": "16x256b.x8", "ld": "16x256b.x8"}),
    LdStCase("f16x256b_upper_half", "f32", (64, 32), T16.format(n=32) + " + O[16@TLane]", F16x256.format(j=4),
             F16x256.format(j=4), expect={"st": "16x256b.x4", "ld": "16x256b.x4"}),
    LdStCase("f16x32bx2", "f32", (64, 16), "S[(4, 16, 2, 8) : (32@TLane, 1@TLane, 64@TCol, 1@TCol)]",
             "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]",
             "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]",
             expect={"st": "16x32bx2.x8", "ld": "16x32bx2.x8"}),
    # st by one shape, ld by another, of the same tensor memory
    LdStCase("st32_ld16x256", "f32", (128, 16), "S[(4, 2, 16, 16) : (32@TLane, 16@TLane, 1@TLane, 1@TCol)]",
             ROWS32.format(n=16), "S[(4, 2, 2, 8, 2, 4, 2) : (1@warpid, 32@reg, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]",
             expect={"st": "32x32b.x16", "ld": "16x256b.x2"}),
    # one warp (warp 2 of 4: its quarter, lanes 64..95), the other warps skip
    LdStCase("warp2_only", "f32", (32, 8), "S[(32, 8) : (1@TLane, 1@TCol)] + O[64@TLane]",
             "S[(32, 8) : (1@laneid, 1@reg)] + O[2@warpid]", "S[(32, 8) : (1@laneid, 1@reg)] + O[2@warpid]",
             scope="warp", expect={"st": "32x32b.x8", "ld": "32x32b.x8"}),
    # a CTA of 8 warps whose second warpgroup holds the tile (warps 4..7 reach quarters 0..3)
    LdStCase("second_warpgroup", "f32", (128, 8), "S[(128, 8) : (1@TLane, 1@TCol)]",
             ROWS32.format(n=8) + " + O[4@warpid]", ROWS32.format(n=8) + " + O[4@warpid]", block=256,
             expect={"st": "32x32b.x8", "ld": "32x32b.x8"}),
    # cta_group 2: each CTA of the pair moves its own tensor memory
    LdStCase("cg2_r32", "f32", (128, 16), "S[(128, 16) : (1@TLane, 1@TCol)]", ROWS32.format(n=16),
             ROWS32.format(n=16), cta_group=2, expect={"st": "32x32b.x16", "ld": "32x32b.x16"}),
    LdStCase("cg2_16x256b", "f32", (64, 32), T16.format(n=32), F16x256.format(j=4), F16x256.format(j=4),
             cta_group=2, expect={"st": "16x256b.x4", "ld": "16x256b.x4"}),
    # the epilogue: f32 accumulator -> cvt -> store
    LdStCase("cvt_bf16_rn", "f32", (128, 16), "S[(128, 16) : (1@TLane, 1@TCol)]", ROWS32.format(n=16),
             ROWS32.format(n=16), convert=("bf16", "rn")),
    LdStCase("cvt_f16_rn", "f32", (128, 16), "S[(128, 16) : (1@TLane, 1@TCol)]", ROWS32.format(n=16),
             ROWS32.format(n=16), convert=("f16", "rn")),
    LdStCase("cvt_e4m3", "f32", (128, 16), "S[(128, 16) : (1@TLane, 1@TCol)]", ROWS32.format(n=16),
             ROWS32.format(n=16), convert=("f8E4M3FN", "rn_satfinite")),
    LdStCase("cvt_e5m2_16x256b", "f32", (64, 32), T16.format(n=32), F16x256.format(j=4), F16x256.format(j=4),
             convert=("f8E5M2", "rn_satfinite")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_tmem_registers_round_trip(case):
    out = run_case(case, ptxas_exe=PTXAS)
    assert out.mismatches() == []
    assert not [w for w in out.warnings if "poison" in w], out.warnings
    if case.expect:
        for op, form in case.expect.items():
            assert re.search(rf"tcgen05\.{op}\.sync\.aligned\.{re.escape(form)}\.b32", out.ptx), (op, form)


def test_every_shape_is_covered():
    shapes = {form.split(".")[0] for c in CASES if c.expect for form in c.expect.values()}
    assert shapes == {"32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"}


# -- the fuzzer's family (test/python/ldst_fuzz.py, bench/fuzz.py --family ldst), a fixed sample --------
SMOKE = range(24)


class _Chooser:
    """The chooser API of the fuzzer's families (ch.int inclusive, ch.pick, ch.bool) over numpy."""

    def __init__(self, rng):
        self.rng = rng

    def int(self, lo, hi):
        return int(self.rng.integers(lo, hi + 1))

    def pick(self, seq):
        return seq[int(self.rng.integers(0, len(seq)))]

    def bool(self, p=0.5):
        return bool(self.rng.random() < p)


# the first 8 draws in make test, the other 16 in the slow tier
@pytest.mark.parametrize("i", tiers.chunks(len(SMOKE), fast=range(8)))
def test_fuzz_family_sample(i):
    """Valid draws match on tile-sim; invalid ones are rejected by the check their kind names."""
    import numpy as np

    import ldst_fuzz
    from tile_mlir.diagnostics import TileError

    ch = _Chooser(np.random.default_rng([7, i]))
    invalid = ldst_fuzz.INVALID_KINDS[i % len(ldst_fuzz.INVALID_KINDS)] if i % 4 == 3 else None
    case = ldst_fuzz.random_case(ch, invalid, i)
    if invalid is None:
        assert run_case(case, seed=i).mismatches() == []
        return
    with pytest.raises(TileError) as e:
        run_case(case, seed=i)
    msg = next(d.message for d in e.value.diagnostics if d.severity == "error")
    assert ldst_fuzz.CHECK_RE.search(msg).group(1) == ldst_fuzz.INVALID_CHECK[invalid], msg
