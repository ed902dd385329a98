"""Lowerings of the persistent-kernel ops (dialect/ops/persistent.py): a ring stage picked by an SSA index
(a chain of selects over the stages' shared addresses), an mbarrier wait on an SSA parity, the grouped
raster order in i32 arithmetic, setmaxnreg (on the chips that have it)."""
from __future__ import annotations

from ...dialect.ops import MbarrierWaitParityOp, RasterGroupedOp, RingStageOp, SetMaxNRegOp
from ...dialect.ranges import unsigned_bound
from ..dispatch import predicate
from .. import nvvm_ir
from .registry import lowers


@lowers(RingStageOp)
def _ring_stage(k, op, em):
    """stage[index] as select(index == S-1, p[S-1], ... select(index == 1, p1, p0)), after a trap when
    index >= S (unsigned) unless the verifier's range proof bounds it inside the ring (dialect/ranges.py):
    an index outside the ring is a fault at the op's line, never stage 0's buffer."""
    stages = [k.buffers.get(s) for s in op.stages]
    bound = unsigned_bound(op.index)
    if bound is None or bound >= len(stages):
        with em.if_(em.cmp("uge", op.index, em.i32(len(stages)))):
            em.create("llvm.intr.trap")
    picked = stages[0]
    for i, ptr in enumerate(stages[1:], start=1):
        hit = em.cmp("eq", op.index, em.i32(i))
        picked = em.result("llvm.select", ptr.type, (hit, ptr, picked))
    k.buffers.bind(op.result, picked)


@lowers(MbarrierWaitParityOp)
def _mbarrier_wait_parity(k, op, em):
    bar = k.buffers.get(op.barrier)
    parity = em.and_(op.parity, em.i32(1))

    def try_wait(e):
        return nvvm_ir.mbarrier_try_wait(e, bar, parity)

    em.spin_until(try_wait)
    k.fences.after_thread_sync(op, em)


@lowers(RasterGroupedOp)
def _raster_grouped(k, op, em):
    """group = tile / (G tiles_n); rows = min(tiles_m - G group, G); in = tile % (G tiles_n);
    row = G group + in % rows, col = in / rows."""
    g = em.i32(op.group_m)
    per_group = em.mul(g, op.tiles_n)
    first = em.mul(em.udiv(op.tile, per_group), g)
    left = em.sub(op.tiles_m, first)
    rows = em.result("arith.minui", left.type, (left, g))
    inside = em.urem(op.tile, per_group)
    row = em.add(first, em.urem(inside, rows))
    col = em.udiv(inside, rows)
    for res, v in ((op.row, row), (op.col, col)):
        res.replace_all_uses_with(v)


def _has_setmaxnreg(op, ctx):
    return ctx.target.has_setmaxnreg, f"setmaxnreg needs sm_90a or an sm_100a-family target, not {ctx.target.arch}"


@lowers(SetMaxNRegOp, when=[predicate("target", _has_setmaxnreg)])
def _setmaxnreg(k, op, em):
    nvvm_ir.setmaxregister(em, op.action, op.count)
