"""Lowerings of tile.copy (loops of vectorised loads and stores; to and from register tiles) and tile.convert."""
from __future__ import annotations

from ...dialect.enums import MemScope
from ...dialect.ops import ConvertOp, CopyOp
from ...dialect.types import BufferType
from ...layout import first_replica_masks
from .. import registers
from ..address import group_runs, vector_bytes
from ..copy_loop import GROUP, access_limit, copy_types, pointer_align, emit_copy_loop, emit_group_copy, scope_rank, sliced_layouts
from .registry import LoweringError, lowers


@lowers(ConvertOp)
def _convert(k, op, em):
    dst_t, src_t = BufferType.of(op.dst.type), BufferType.of(op.src.type)
    registers.emit_convert(em, dst_t, src_t, k.buffers.get(op.dst), k.buffers.get(op.src), op.rounding)


def _copy_registers(k, op, em, load: bool):
    """tile.copy to or from a register tile: each thread moves what it holds (lowering/registers.py)."""
    dst_l, src_l, bits, _ = sliced_layouts(op)
    mem_l, reg_l = (src_l, dst_l) if load else (dst_l, src_l)
    mem_v, reg_v = (op.src, op.dst) if load else (op.dst, op.src)
    mem_t = BufferType.of(mem_v.type)
    mem_align = pointer_align(mem_v, mem_t)
    try:
        plan = registers.plan_register_store(mem_l, reg_l, bits, mem_align)
    except registers.StoreError as e:
        raise LoweringError(op, f"tile.copy {'to' if load else 'from'} registers: {e}") from None
    tid = k.tid(em)
    warp = em.shr(tid, em.i32(5))
    lane = em.and_(tid, em.i32(31))
    nthreads = k.block[0] * k.block[1] * k.block[2]
    args = (plan, k.buffers.get(mem_v), k.buffers.get(reg_v), warp, lane, load)
    guard = None
    if nthreads > 32 * plan.warps or plan.first_warp != 0:
        guard = em.cmp("ult", em.sub(warp, em.i32(plan.first_warp)), em.i32(plan.warps))
    lane_mask, warp_mask = (0, 0) if load else first_replica_masks(BufferType.of(reg_v.type).layout)
    for value, mask in ((lane, lane_mask), (warp, warp_mask)):  # a replicated tile: replica 0 stores
        if mask:
            first = em.cmp("eq", em.and_(value, em.i32(mask)), em.i32(0))
            guard = first if guard is None else em.and_(guard, first)
    if guard is not None:
        with em.if_(guard):
            registers.emit_move(em, *args)
    else:
        registers.emit_move(em, *args)
    if not load and mem_t.scope == MemScope.SHARED:
        k.fences.after_generic_shared_writes(op, em)


@lowers(CopyOp)
def _copy(k, op, em):
    dst_t, src_t = copy_types(op)
    if MemScope.REG in (dst_t.scope, src_t.scope):
        return _copy_registers(k, op, em, load=dst_t.scope == MemScope.REG)
    dst_l, src_l, bits, numel = sliced_layouts(op)
    if bits == 6 or dst_t.packing or src_t.packing:  # 6-bit data, padded 4-bit data (b4x16_p64)
        _group_copy(k, op, em, (dst_l, src_l), numel)
    else:
        limit = access_limit(op)
        if not vector_bytes((dst_l, src_l), bits, limit):
            raise LoweringError(op, f"tile.copy of {bits}-bit elements needs whole bytes: each contiguous run "
                                "of the copied region must start on a byte and cover whole bytes on both sides")
        rank, n = scope_rank(em, op.scope, k.tid(em), k.block)
        emit_copy_loop(em, (k.buffers.get(op.dst), k.buffers.get(op.src)), (dst_l, src_l), bits, numel, rank, n,
                       max_width=limit)
    if dst_t.scope == MemScope.SHARED:
        k.fences.after_generic_shared_writes(op, em)


def _group_copy(k, op, em, layouts, numel):
    """6-bit (4-bit) elements: whole groups of 16 (copy_loop.emit_group_copy), packed <-> .b6x16_p32
    (.b4x16_p64)."""
    types = copy_types(op)
    for side, lay, t in zip(("dst", "src"), layouts, types):
        if t.elem_bits == 6 and lay.swizzle is not None and t.packing is None:
            raise LoweringError(op, f"tile.copy of 6-bit elements: the {side} buffer is swizzled but holds "
                                "packed 6-bit data, whose 12-byte groups straddle swizzle units; "
                                "declare it with packing b6x16_p32")
        if not group_runs(lay, GROUP):
            raise LoweringError(op, f"tile.copy of {t.elem_bits}-bit elements moves whole groups of {GROUP} "
                                f"({GROUP * t.elem_bits // 8} bytes packed, 16 bytes in packing "
                                f"{'b6x16_p32' if t.elem_bits == 6 else 'b4x16_p64'}): every run of {GROUP} "
                                f"elements of the {side} region must be contiguous and start at a multiple "
                                f"of {GROUP} elements")
    rank, n = scope_rank(em, op.scope, k.tid(em), k.block)
    emit_group_copy(em, (k.buffers.get(op.dst), k.buffers.get(op.src)), layouts, types, numel, rank, n)
