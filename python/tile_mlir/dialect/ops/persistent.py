"""What a persistent kernel needs beyond one tile per CTA: the ring stage and the mbarrier phase of a K step
chosen by SSA values (a K step's place in the ring runs on across tiles), the grouped raster order that
maps a linear tile index to the tile's (row, column) so that the CTAs in flight share operand panels in L2,
and the register budget a warpgroup of a warp-specialized kernel moves to or from the CTA's pool."""
from __future__ import annotations

from ..checks import buffer_type, check_slot
from ..decline import fail
from ..enums import MemScope, RegAction
from ..op_def import I64, Attr, BufferOf, Emits, Operand, Result, TileOp, TypeIs
from ..ranges import constant_value

__all__ = ["RingStageOp", "MbarrierWaitParityOp", "RasterGroupedOp", "SetMaxNRegOp"]

# setmaxnreg's register count: a multiple of 8 in [24, 256] (PTX ISA "setmaxnreg")
SETMAXNREG_MIN, SETMAXNREG_MAX, SETMAXNREG_STEP = 24, 256, 8
WARPGROUP_THREADS = 128

_I32 = TypeIs("i32")


class RingStageOp(TileOp, name="ring.stage"):
    """Stage `index` (0 <= index < len(stages)) of a ring of shared or tensor-memory buffers of one type: a
    view of that stage's buffer, so the copies, MMAs and barriers of a K step may name a stage chosen at run
    time (tmem stages: tile.tmem.buffers at different col_offsets, e.g. double-buffered accumulators)."""

    index = Operand(_I32)
    stages = Operand(BufferOf(MemScope.SHARED, MemScope.TMEM), variadic=True)
    result = Result(BufferOf(MemScope.SHARED, MemScope.TMEM))
    TRAITS = (Emits(None, ("setp", "selp")),)

    def verify(self, kernel) -> None:
        if len(self.stages) < 2:
            fail("ring-stages", f"a ring of {len(self.stages)} buffer(s): at least 2 stages")

        index = constant_value(self.index)
        if index is not None and index >= len(self.stages):
            shown = index - (1 << 32) if index >= 1 << 31 else index
            fail("ring-index", f"index {shown} is outside the ring of {len(self.stages)} stages (0 <= index < "
                 f"{len(self.stages)})")
        for i, s in enumerate(self.stages):
            buffer_type(s, f"operand #{i + 1} (stage {i})")
            if s.type != self.result.type:
                fail("result-type", f"stage {i} is {s.type}, the result {self.result.type}: every stage has the "
                     "result's type")


class MbarrierWaitParityOp(TileOp, name="mbarrier.wait_parity"):
    """Spin on mbarrier.try_wait.parity until the phase whose parity is bit 0 of `parity` completes (the
    phase of a ring stage's barrier counted at run time, as a persistent kernel's K steps run on)."""

    barrier = Operand(BufferOf(MemScope.SHARED))
    parity = Operand(_I32)
    TRAITS = (Emits("nvvm.mbarrier.try_wait", ("mbarrier.try_wait", "bra", "setp", "selp")),)

    def verify(self, kernel) -> None:
        check_slot(self.barrier, 64, "operand #0 (barrier)")


class RasterGroupedOp(TileOp, name="raster.grouped"):
    """The (row, column) of output tile `tile` of a tiles_m x tiles_n grid in grouped order: `group_m` tile
    rows at a time, down each column of the group, then the next column (the last group may be shorter)."""

    tile = Operand(_I32)
    tiles_m = Operand(_I32)
    tiles_n = Operand(_I32)
    row = Result(_I32)
    col = Result(_I32)
    group_m = Attr(I64, required=True)
    TRAITS = (Emits(None, ("div", "min", "mul", "sub")),)  # (the remainders become mul + sub)

    def verify(self, kernel) -> None:
        if not 1 <= self.group_m <= 1 << 16:
            fail("raster-group", f"group_m must be in [1, 65536], got {self.group_m}")


class SetMaxNRegOp(TileOp, name="setmaxnreg"):
    """setmaxnreg.{inc,dec}.sync.aligned.u32 count: the executing warpgroup's per-thread register maximum
    becomes `count`, taken from (inc) or released to (dec) the CTA's pool; the producer warpgroup of a
    warp-specialized kernel gives registers to its consumers. Every warp of the warpgroup executes it
    (sm_90a and the sm_100a family; checked when lowered)."""

    action = Attr(RegAction, required=True)
    count = Attr(I64, required=True)
    TRAITS = (Emits("nvvm.setmaxregister", "setmaxnreg"),)

    def verify(self, kernel) -> None:
        n = self.count
        if not SETMAXNREG_MIN <= n <= SETMAXNREG_MAX or n % SETMAXNREG_STEP:
            fail("register-count", f"count must be a multiple of {SETMAXNREG_STEP} in [{SETMAXNREG_MIN}, "
                 f"{SETMAXNREG_MAX}], got {n}")
        if kernel.threads is not None and kernel.threads % WARPGROUP_THREADS:
            fail("warpgroup", f"every warp of a warpgroup executes setmaxnreg: the kernel's {kernel.threads} "
                 f"threads are not whole warpgroups of {WARPGROUP_THREADS}")
