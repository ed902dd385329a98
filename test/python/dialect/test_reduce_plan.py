"""dialect/reduce_plan.py and dialect/regtile.py without IR: the plans of the layouts attention uses, element by
element against the formulas of docs/registers.md §1, and each decline."""
from __future__ import annotations

import numpy as np
import pytest

from tile_mlir.dialect.decline import Decline
from tile_mlir.dialect.reduce_plan import fold_order, plan_reduce
from tile_mlir.dialect.regtile import coordinates, slot_map
from tile_mlir.dialect.types import BufferType
from tile_mlir.layout import fragment_of, parse_layout

WGMMA = "S[(4, 2, 8, {j}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"
WGMMA_ROW = "S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)] + R[4 : 1@laneid]"
ROWS = "S[(4, 32, {n}) : (1@warpid, 1@laneid, 1@reg)]"


def reg(shape, layout):
    return BufferType("reg", tuple(shape), "f32", layout)


def test_fold_order_halves():
    assert fold_order(1) == []
    assert fold_order(4) == [[(0, 2), (1, 3)], [(0, 1)]]
    assert fold_order(5) == [[(0, 3), (1, 4)], [(0, 2)], [(0, 1)]]  # the middle value waits a level


def test_rows_layout_reduces_inside_the_thread():
    plan = plan_reduce(reg((128, 64), ROWS.format(n=64)), reg((128, 1), ROWS.format(n=1)), 1)
    assert plan.groups == (tuple(range(64)),) and plan.lane_masks == () and plan.warps == 1
    assert plan.dst_slots == (0,)


@pytest.mark.parametrize("n", [8, 64, 256])
def test_wgmma_accumulator_partials_and_butterfly(n):
    """Thread (w, l) holds row 16w + l/4 + 8h in slots v with (v >> 1) & 1 == h, columns 8(v/4) + 2(l%4) + (v&1):
    two partials (h = 0, 1), each its slots in ascending column order, then lanes l ^ 1, l ^ 2."""
    plan = plan_reduce(reg((64, n), WGMMA.format(j=n // 8)), reg((64, 1), WGMMA_ROW), 1)
    v = np.arange(n // 2)
    for h, group in enumerate(plan.groups):
        want = [int(s) for s in v if (s >> 1) & 1 == h]
        assert list(group) == sorted(want, key=lambda s: 8 * (s // 4) + (s & 1))
    assert plan.lane_masks == (1, 2) and plan.warps == 1 and plan.dst_slots == (0, 1)


def test_replicated_row_layout_tabulates_every_copy():
    f = fragment_of(parse_layout(WGMMA_ROW), replicas=True)
    assert f.slot.size == 4 * 64 and sorted(set((f.lane % 4).tolist())) == [0, 1, 2, 3]
    rows = 16 * f.warp + f.lane // 4 + 8 * f.slot
    assert (rows == f.elem).all()


def test_cross_warp_plan_addresses_the_scratch():
    src = reg((128, 64), "S[(4, 32, 2, 32) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]")
    dst = reg((128, 1), "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]")
    plan = plan_reduce(src, dst, 1)
    assert plan.warps == 2 and plan.threads == 256 and plan.warp_coeffs == ((2, 1),)
    t = np.arange(256)
    out = plan.out_base + sum(((t >> b) & 1) * c for b, c in plan.out_coeffs)
    assert (out == t % 128).all()  # thread 32w + l, w < 8, reduces row 32(w % 4) + l


def test_elementwise_slot_map_broadcasts_rows():
    tile = reg((64, 16), WGMMA.format(j=2))
    sm = slot_map(tile, ((reg((64, 1), WGMMA_ROW), "row"),))
    assert sm.slots == tuple(range(8)) and sm.sources == ((0, 0, 1, 1, 0, 0, 1, 1),)


def test_coordinates_of_the_wgmma_fragment():
    c = coordinates(reg((64, 16), WGMMA.format(j=2)), "x")
    t = np.arange(128)[:, None]
    row = c.base[0] + sum(((t >> b) & 1) * k for b, k in c.coeffs[0]) + np.array(c.slot_part[0])[None]
    col = c.base[1] + sum(((t >> b) & 1) * k for b, k in c.coeffs[1]) + np.array(c.slot_part[1])[None]
    v = np.arange(8)[None]
    w, lane = t // 32, t % 32
    assert (row == 16 * w + lane // 4 + 8 * ((v >> 1) & 1)).all()
    assert (col == 8 * (v // 4) + 2 * (lane % 4) + (v & 1)).all()


@pytest.mark.parametrize("src, dst, axis, check", [
    (reg((32, 8), "S[(32, 8) : (1@laneid, 1@reg)]"), reg((32, 1), "S[(32, 1) : (1@laneid, 1@reg)]"), 3, "axis"),
    (reg((32, 8), "S[(32, 8) : (1@laneid, 1@reg)]"), reg((32, 2), "S[(32, 2) : (1@laneid, 1@reg)]"), 1, "shape"),
    (reg((8, 24), "S[(8, 3, 8) : (3@laneid, 1@laneid, 1@reg)]"), reg((8, 1), "S[(8, 1) : (3@laneid, 1@reg)]"), 1,
     "lanes"),
    (reg((64, 16), WGMMA.format(j=2)), reg((64, 1), "S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)] + O[1@warpid]"),
     1, "layout"),
])
def test_declines(src, dst, axis, check):
    with pytest.raises(Decline) as e:
        plan_reduce(src, dst, axis)
    assert e.value.check == check
