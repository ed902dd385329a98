"""Tensor memory: allocation (tcgen05.alloc / dealloc / relinquish_alloc_permit), the buffer over an
allocation, tcgen05.commit, and tile.tmem.load (tmem back to global memory)."""
from __future__ import annotations

from ...target import TMEM_COLUMNS
from ..checks import buffer_type, check_slot, tmem_columns
from ..decline import fail
from ..enums import CtaGroup, MemScope, Scope
from ..op_def import I64, Attr, BufferOf, Emits, Operand, Result, TileOp, Trait, Writes
from .persistent import RingStageOp

__all__ = ["TmemAllocOp", "TmemRelinquishOp", "TmemDeallocOp", "TmemBufferOp", "CommitOp", "TmemLoadOp",
           "has_tmem_address"]

_TC, _TMEM = Trait.TCGEN05, Trait.USES_TMEM


def _pow2_cols(n: int) -> None:
    if n < 32 or n > TMEM_COLUMNS or n & (n - 1):
        fail("tmem-alloc", f"num_cols must be a power of two in [32, {TMEM_COLUMNS}] (PTX tcgen05.alloc), got {n}")


class TmemAllocOp(TileOp, name="tmem.alloc"):
    """tcgen05.alloc of num_cols tensor-memory columns by the executing warp; the address is written to
    `slot` (a shared 1xi32 buffer)."""

    slot = Operand(BufferOf(MemScope.SHARED))
    num_cols = Attr(I64, required=True)
    cta_group = Attr(CtaGroup, default=CtaGroup.CTA_1)
    TRAITS = (_TC, _TMEM, Emits("nvvm.tcgen05.alloc", "tcgen05.alloc", _TC))

    def verify(self, kernel) -> None:
        check_slot(self.slot, 32, "operand #0 (slot)")
        _pow2_cols(self.num_cols)


class TmemRelinquishOp(TileOp, name="tmem.relinquish"):
    """tcgen05.relinquish_alloc_permit by the executing warp."""

    cta_group = Attr(CtaGroup, default=CtaGroup.CTA_1)
    TRAITS = (_TC, _TMEM, Emits("nvvm.tcgen05.relinquish_alloc_permit", "tcgen05.relinquish_alloc_permit", _TC))


class TmemDeallocOp(TileOp, name="tmem.dealloc"):
    """tcgen05.dealloc of the allocation whose address is in `slot`, by the executing warp."""

    slot = Operand(BufferOf(MemScope.SHARED))
    num_cols = Attr(I64, required=True)
    cta_group = Attr(CtaGroup, default=CtaGroup.CTA_1)
    TRAITS = (_TC, _TMEM, Emits("nvvm.tcgen05.dealloc", ("tcgen05.dealloc", "ld"), _TC))

    verify = TmemAllocOp.verify


class TmemBufferOp(TileOp, name="tmem.buffer"):
    """A tensor-memory buffer over the address that tile.tmem.alloc wrote to `slot`, plus col_offset
    columns (buffers of one type at different columns: the stages of a tile.ring.stage over tmem)."""

    slot = Operand(BufferOf(MemScope.SHARED))
    result = Result(BufferOf(MemScope.TMEM))
    col_offset = Attr(I64, default=0)
    TRAITS = (_TMEM, Emits(None, ("ld", "add")))

    def verify(self, kernel) -> None:
        check_slot(self.slot, 32, "operand #0 (slot)")
        if not 0 <= self.col_offset < TMEM_COLUMNS:
            fail("tmem-address", f"col_offset must be in [0, {TMEM_COLUMNS}) (a tmem column), got {self.col_offset}")
        allocs = [u.owner for u in self.slot.uses
                  if getattr(u.owner, "name", None) == TmemAllocOp.OPERATION_NAME]
        if not allocs:
            fail("tmem-address", "the slot is not written by any tile.tmem.alloc, so the buffer has no address")
        bt = buffer_type(self.result, "result")
        cols = tmem_columns(bt)
        end = self.col_offset + cols
        if end > TMEM_COLUMNS:
            fail("tmem-columns", f"columns [{self.col_offset}, {end}) (col_offset {self.col_offset} + the {cols} "
                 f"32-bit columns its layout spans) reach past tensor memory's {TMEM_COLUMNS}")
        allocated = min(_num_cols(a) for a in allocs)
        if allocated is not None and end > allocated:
            fail("tmem-columns", f"columns [{self.col_offset}, {end}) (col_offset {self.col_offset} + the {cols} "
                 f"32-bit columns its layout spans) reach past the {allocated} columns tile.tmem.alloc allocates "
                 "in the slot")


def _num_cols(alloc_op) -> int:
    """num_cols of a tile.tmem.alloc (as its own verifier bounds it; TMEM_COLUMNS when unreadable)."""
    attr = alloc_op.attributes["num_cols"] if "num_cols" in alloc_op.attributes else None
    return getattr(attr, "value", TMEM_COLUMNS)


def has_tmem_address(value) -> bool:
    """Whether a tmem buffer value has an address the lowering can read: a tile.tmem.buffer, or a
    tile.ring.stage whose stages all have one."""
    owner = getattr(value, "owner", None)
    name = getattr(owner, "name", None)
    if name == TmemBufferOp.OPERATION_NAME:
        return True
    return name == RingStageOp.OPERATION_NAME and all(has_tmem_address(s) for s in list(owner.operands)[1:])


class CommitOp(TileOp, name="commit"):
    """tcgen05.commit: arrive once on `barrier` when this thread's earlier tcgen05 async ops complete
    (multicast to the CTAs of multicast_mask when given)."""

    barrier = Operand(BufferOf(MemScope.SHARED))
    cta_group = Attr(CtaGroup, default=CtaGroup.CTA_1)
    multicast_mask = Attr(I64)
    TRAITS = (_TC, Emits("nvvm.tcgen05.commit", "tcgen05.commit", _TC))

    def verify(self, kernel) -> None:
        check_slot(self.barrier, 64, "operand #0 (barrier)")
        mask = self.multicast_mask
        if mask is not None and not 0 <= mask < (1 << 16):
            fail("multicast", f"multicast_mask must be a 16-bit mask of CTA ranks (PTX ctaMask), got {mask}")


class TmemLoadOp(TileOp, name="tmem.load"):
    """Read tensor memory back to a global buffer: each warp of `scope` reads the 32 lanes of its quarter,
    columns [col_offset, col_offset + num_cols) (32-bit) of `src`, with tcgen05.ld.32x32b and
    tcgen05.wait::ld, and stores row (lane) by row into dst (shape [lanes, num_cols * 32 / bits])."""

    dst = Operand(BufferOf(MemScope.GLOBAL))
    src = Operand(BufferOf(MemScope.TMEM))
    col_offset = Attr(I64, default=0)
    num_cols = Attr(I64, required=True)
    scope = Attr(Scope, default=Scope.WARPGROUP, choices=(Scope.WARP, Scope.WARPGROUP))
    TRAITS = (_TC, _TMEM, Writes("dst"), Emits("nvvm.tcgen05.ld", "tcgen05.ld", _TC),
              Emits("nvvm.tcgen05.wait", "tcgen05.wait::ld", _TC), Emits(None, "st"))

    def verify(self, kernel) -> None:
        n = self.num_cols
        if n < 1 or n > TMEM_COLUMNS or n & (n - 1):
            fail("tmem-load", f"num_cols must be a power of two in [1, {TMEM_COLUMNS}] (tcgen05.ld.32x32b.xN, N <= "
                 f"128 per instruction), got {n}")
        dst_t = buffer_type(self.dst, "operand #0 (dst)")
        if dst_t.elem_bits == 6:
            fail("tmem-load", f"dst holds packed 6-bit {dst_t.elem}, but tmem holds 6-bit data in 8-bit containers "
                 "and tile.tmem.load copies whole 32-bit columns: read them into an 8-bit buffer (e.g. ui8)")
        lanes = 32 if self.scope == Scope.WARP else 128
        if len(dst_t.shape) != 2 or dst_t.shape[0] != lanes or dst_t.shape[1] * dst_t.elem_bits != n * 32:
            fail("tmem-load", f"dst must be [{lanes}, {n * 32 // max(dst_t.elem_bits, 1)}] of {dst_t.elem} "
                 f"({lanes} lanes x {n} 32-bit columns), got {'x'.join(map(str, dst_t.shape))}")
        col = self.col_offset
        if col < 0:
            fail("tmem-load", "col_offset must be non-negative")
        if col + n > TMEM_COLUMNS:
            fail("tmem-load", f"columns [{col}, {col + n}) reach beyond the {TMEM_COLUMNS} tmem columns")
