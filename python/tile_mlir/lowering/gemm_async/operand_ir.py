"""IR for gemm_async operands, shared by the variants: shared-memory descriptors and tensor-memory addresses,
each built once per buffer value right after the op that defines it (an allocation is hoisted with its
buffer; one ring stage's view is rebuilt where the view is), then advanced per K-step.

A K-step's descriptor adds its start offset (>> 4) to the descriptor's low 32-bit word, as CUTLASS's
DescriptorIterator does (a 64-bit add once miscompiled: docs/tcgen05.md §4); tensor-memory addresses are
added to, never OR-ed (the allocation's base column is not aligned).
"""
from __future__ import annotations

from ...mlir import ir
from ..emitter import I32, I64, Emitter

__all__ = ["emitter_at", "desc_base", "DescSteps", "tmem_address", "signed"]


def signed(x: int, bits: int) -> int:
    """x as the signed integer of the same `bits` bits (arith constants are signed)."""
    return x - (1 << bits) if x >= 1 << (bits - 1) else x


def emitter_after_def(ctx, value) -> Emitter:
    owner = value.owner
    if isinstance(owner, ir.Block):  # a block argument: at the start of its block
        return Emitter(ir.InsertionPoint.at_block_begin(owner), ctx.op.location, ctx.cache.setdefault("attrs", {}))
    return Emitter(ir.InsertionPoint.after(owner), owner.location, ctx.cache.setdefault("attrs", {}))


def emitter_at(ctx, op) -> Emitter:
    return Emitter(ir.InsertionPoint(op), op.location, ctx.cache.setdefault("attrs", {}))


def desc_base(ctx, value, template: int):
    """The descriptor `template` (start field 0) with the shared buffer `value`'s address in its start field."""
    key = ("gemm_desc", value, template)
    desc = ctx.cache.get(key)
    if desc is None:
        em = emitter_after_def(ctx, value)
        ptr = ctx.values.get(value, em)
        addr = em.zext(em.ptrtoint(ptr, I32()), I64())
        start = em.shr(em.and_(addr, em.i64(0x3FFFF)), em.i64(4))
        desc = ctx.cache[key] = em.or_(em.i64(signed(template, 64)), start)
    return desc


class DescSteps:
    """A descriptor `base` advanced per K-step: `at(offset_bytes)` (a 16-byte multiple) adds offset >> 4 to
    its low word; the word split is emitted once, at the first non-zero offset."""

    def __init__(self, em: Emitter, base):
        self.em, self.base, self._words = em, base, None

    def at(self, offset_bytes: int):
        if offset_bytes == 0:
            return self.base
        em = self.em
        if self._words is None:
            self._words = (em.trunc(self.base, I32()), em.and_(self.base, em.i64(signed(0xFFFFFFFF00000000, 64))))
        lo, hi = self._words
        return em.or_(hi, em.zext(em.add(lo, em.i32(offset_bytes >> 4)), I64()))


def tmem_address(ctx, value):
    """The tmem buffer `value`'s i32 address (a cast convert-tile-to-nvvm resolves)."""
    key = ("gemm_tmem", value)
    taddr = ctx.cache.get(key)
    if taddr is None:
        em = emitter_after_def(ctx, value)
        taddr = ctx.cache[key] = ctx.values.get(value, em)
    return taddr
