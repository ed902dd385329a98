"""The tcgen05.ld/st planner (lowering/copy_async/tcgen05_ldst_plan.py), pure Python: the shape, .num,
lane offsets, columns and register words it picks, and every check that declines."""
import pytest

from tile_mlir.dialect.decline import Decline as PlanError
from tile_mlir.layout import parse_layout
from tile_mlir.lowering.copy_async.tcgen05_ldst_plan import (LANE_OFFSETS, REGISTER_BUDGET, SHAPES, LdStInstr,
                                                             fragment_map, plan_tcgen05_ldst)

ROWS32 = "S[(4, 32, {n}) : (1@warpid, 1@laneid, 1@reg)]"
T16 = "S[(4, 16, {n}) : (32@TLane, 1@TLane, 1@TCol)]"


def plan(tmem, regs, shape, bits=32, scope="warpgroup", t_region=None, r_region=None, t_shape=None, r_shape=None):
    t_shape, r_shape = t_shape or shape, r_shape or shape
    whole = lambda s: tuple((0, d) for d in s)  # noqa: E731
    return plan_tcgen05_ldst(parse_layout(tmem), t_shape, t_region or whole(t_shape), parse_layout(regs), r_shape,
                             r_region or whole(r_shape), bits, scope)


def test_rows_of_a_warpgroup_are_32x32b():
    p = plan("S[(128, 64) : (1@TLane, 1@TCol)]", ROWS32.format(n=64), (128, 64))
    assert (p.shape, p.pack, p.warps, p.words) == ("32x32b", False, (0, 1, 2, 3), 64)
    assert p.instrs == (LdStInstr(0, 0, 64, tuple(range(64))),)


def test_the_register_budget_splits_instructions():
    p = plan("S[(128, 224) : (1@TLane, 1@TCol)]", ROWS32.format(n=224), (128, 224))
    assert [(i.col, i.num) for i in p.instrs] == [(0, 128), (128, 64), (192, 32)]
    assert REGISTER_BUDGET == 128


@pytest.mark.parametrize("regs, shape, num", [
    ("S[(4, 2, 8, 16, 2) : (1@warpid, 1@laneid, 4@laneid, 1@reg, 2@laneid)]", "16x64b", 16),
    ("S[(4, 2, 8, 8, 4) : (1@warpid, 1@reg, 4@laneid, 2@reg, 1@laneid)]", "16x128b", 8),
    ("S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]", "16x256b", 4),
])
def test_16_lane_fragments_pick_their_shape(regs, shape, num):
    p = plan(T16.format(n=32), regs, (64, 32))
    assert p.shape == shape and [(i.lane_offset, i.col, i.num) for i in p.instrs] == [(0, 0, num)]


def test_16x32bx2_takes_the_half_split_offset():
    p = plan("S[(4, 16, 2, 8) : (32@TLane, 1@TLane, 100@TCol, 1@TCol)]",
             "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]", (64, 16))
    assert p.shape == "16x32bx2" and p.instrs == (LdStInstr(0, 0, 8, tuple(range(8)), imm=100),)


def test_upper_half_of_the_quarter():
    p = plan(T16.format(n=16) + " + O[(16@TLane, 8@TCol)]",
             "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]", (64, 16))
    assert p.shape == "16x256b" and [(i.lane_offset, i.col) for i in p.instrs] == [(16, 8)]


def test_both_halves_of_each_quarter_take_two_instructions():
    p = plan("S[(4, 2, 16, 16) : (32@TLane, 16@TLane, 1@TLane, 1@TCol)]",
             "S[(4, 2, 2, 8, 2, 4, 2) : (1@warpid, 32@reg, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]", (128, 16))
    assert p.shape == "16x256b" and [(i.lane_offset, i.num, i.regs[0]) for i in p.instrs] == [(0, 2, 0), (16, 2, 32)]


def test_16_bit_elements_alone_in_their_columns_pack():
    p = plan("S[(128, 32) : (1@TLane, 2@TCol)]", ROWS32.format(n=32), (128, 32), bits=16)
    assert p.pack and p.words == 16 and p.instrs[0].num == 16


def test_16_bit_pairs_in_columns_and_registers_do_not_pack():
    p = plan("S[(128, 32) : (1@TLane, 1@TCol)]", ROWS32.format(n=32), (128, 32), bits=16)
    assert not p.pack and p.instrs[0].num == 16


def test_a_register_word_half_in_the_region_declines():
    with pytest.raises(PlanError, match="holds 1 elements of the copy, not 2") as e:
        plan("S[(128, 8) : (1@TLane, 1@TCol)]", ROWS32.format(n=8), (128, 7), bits=16, t_shape=(128, 8),
             r_shape=(128, 8), t_region=((0, 128), (0, 7)), r_region=((0, 128), (0, 7)))
    assert e.value.check == "words"


def test_regions_are_sliced_on_both_sides():
    p = plan("S[(128, 64) : (1@TLane, 1@TCol)]", ROWS32.format(n=16), (128, 16), t_shape=(128, 64),
             t_region=((0, 128), (32, 48)))
    assert p.instrs == (LdStInstr(0, 32, 16, tuple(range(16))),)


def test_register_words_need_not_be_consecutive():
    """The tile's slots 0..7 of a 16-slot row are moved; registers name the words they are."""
    p = plan("S[(128, 8) : (1@TLane, 1@TCol)]", "S[(4, 32, 8) : (1@warpid, 1@laneid, 2@reg)]", (128, 8))
    assert p.instrs[0].regs == (0, 2, 4, 6, 8, 10, 12, 14)


def test_one_warp_of_a_later_quarter():
    p = plan("S[(32, 8) : (1@TLane, 1@TCol)] + O[96@TLane]", "S[(32, 8) : (1@laneid, 1@reg)] + O[7@warpid]",
             (32, 8), scope="warp")
    assert p.warps == (7,) and p.instrs[0].lane_offset == 0


@pytest.mark.parametrize("tmem, regs, shape, bits, scope, check, why", [
    ("S[(128, 8) : (1@TLane, 1@TCol)]", ROWS32.format(n=8), (128, 8), 64, "warpgroup", "dtype", "64-bit"),
    ("S[(32, 8) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]", ROWS32.format(n=8), (128, 8), 32, "warpgroup", "replica",
     "replica"),
    ("S[(128, 8) : (1@TLane, 1@TCol)]", "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@m)]", (128, 8), 32, "warpgroup",
     "register-layout", "got m"),
    ("S[(128, 8) : (1@TLane, 1@TCol)]", "S[(4, 32, 8) : (1@warpid, 1@laneid, 2@reg)]", (128, 8), 16, "warpgroup",
     "words", "position 0 of its register but 1 of its tmem column"),
    ("S[(128, 8) : (1@TLane, 2@TCol)]", "S[(4, 32, 8) : (1@warpid, 1@laneid, 2@reg)]", (128, 8), 8, "warpgroup",
     "words", "holds 2 elements of the copy, not 4"),
    ("S[(128, 2, 4) : (1@TLane, 0@TCol, 1@TCol)]", ROWS32.format(n=8), (128, 8), 32, "warpgroup", "slice",
     "share a tmem cell"),
    ("S[(128, 8) : (1@TLane, 1@TCol)]", ROWS32.format(n=8), (128, 8), 32, "warp", "scope", "1 consecutive"),
    ("S[(128, 8) : (1@TLane, 1@TCol)]", "S[(4, 32, 8) : (2@warpid, 1@laneid, 1@reg)]", (128, 8), 32, "warpgroup",
     "scope", r"warps \[0, 2, 4, 6\]"),
    ("S[(4, 16, 8) : (32@TLane, 1@TLane, 1@TCol)]", "S[(4, 16, 8) : (1@warpid, 1@laneid, 1@reg)]", (64, 8), 32,
     "warpgroup", "threads", "same register words"),
    ("S[(32, 8) : (1@TLane, 1@TCol)] + O[32@TLane]", "S[(32, 8) : (1@laneid, 1@reg)]", (32, 8), 32, "warp",
     "lane-quarter", r"reaches only the lanes of its quarter, 0\.\.31"),
    ("S[(4, 32, 8) : (32@TLane, 1@TLane, 1@TCol)]", "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]", (128, 8), 32,
     "warpgroup", None, None),
    ("S[(128, 32) : (1@TLane, 1@TCol)]", "S[(4, 32, 32) : (1@warpid, 1@reg, 1@laneid)]", (128, 32), 32,
     "warpgroup", "shape", "no tcgen05.ld/st shape covers the copy"),  # a transpose needs shuffles
    ("S[(4, 16, 8) : (32@TLane, 1@TLane, 1@TCol)] + O[8@TLane]",
     "S[(4, 2, 8, 1, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]", (64, 8), 32, "warpgroup",
     "shape", "lane offset 0 or 16"),
])
def test_declines_name_their_check(tmem, regs, shape, bits, scope, check, why):
    if check is None:  # (the control case: the same warps and quarters plan)
        plan(tmem, regs, shape, bits, scope)
        return
    with pytest.raises(PlanError, match=why) as e:
        plan(tmem, regs, shape, bits, scope)
    assert e.value.check == check


def test_tables_of_the_planner_are_those_of_the_emulators_figures():
    """fragment_map(shape) over x1 equals the literal figure tables of test/python/sim (both from PTX)."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "sim"))
    from test_tcgen05_ldst_shapes import IMM, cells

    for shape, (rpx, _, _) in SHAPES.items():
        rows, cols = fragment_map(shape)
        table = cells(shape)
        for t in range(32):
            for i in range(rpx):
                lane, col = table[(t, i)]
                half = IMM if shape == "16x32bx2" and t >= 16 else 0
                assert (rows[t, i], cols[t, i] + half) == (lane, col), (shape, t, i)
    assert set(LANE_OFFSETS) == set(SHAPES)
