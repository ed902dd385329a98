"""Address arithmetic in IR from a layout: element index -> byte offset (with shared-memory swizzle).

Only what the layout algebra decided is emitted: the layout is sliced to the copied region first,
so a row-major element index over the region decomposes directly over the sliced layout's shard
iters (outer to inner), each contributing coord * stride on the memory axis.
"""
from __future__ import annotations

from ..layout import SwizzleMode, m, swizzle_params
from .emitter import I32, I64

__all__ = ["byte_offset", "swizzle_value", "vector_bytes", "group_runs"]


def swizzle_value(em, byte_off, mode):
    """em-emitted byte_off ^ swizzle bits, CuTe's Swizzle<B, M, S> (layout.swizzle_bytes): bits
    [M + S, M + S + B) XORed into bits [M, M + B). Buffers are aligned to their swizzle repeat, so
    relative offsets swizzle as absolute addresses do."""
    if mode is None or mode == SwizzleMode.NONE:
        return byte_off
    b, mm, s = swizzle_params(mode)
    bits = em.and_(em.shr(byte_off, em.i32(mm + s)), em.i32((1 << b) - 1))
    return em.xor(byte_off, em.shl(bits, em.i32(mm)))


def byte_offset(em, layout, elem_index, elem_bits: int):
    """i32 byte offset of element `elem_index` (i32 or i64, row-major over the layout's shard) on axis m;
    i64 when the index is i64 or the layout reaches 2^31 bytes or beyond (a region of a global tensor
    over 2 GiB), where i32 arithmetic would wrap.

    Sub-byte elements: callers only ask for elements that start a byte (vector_bytes and
    group_runs guarantee it), so the element offset times elem_bits is a whole number of bytes.
    A packed buffer (BufferType.packing) is addressed at whole groups with elem_bits = addr_bits (8)."""
    inner = layout.inner
    swz = layout.swizzle
    reach = inner.offset_on(m) + sum((it.extent - 1) * it.stride for it in inner.shard if it.axis is m)
    if elem_index.type == I64() or (reach + 1) * elem_bits >= 8 << 31:
        t = I64()
        if elem_index.type != t:
            elem_index = em.zext(elem_index, t)
    else:
        t = I32()
    off = em.const(inner.offset_on(m), t)
    below = 1
    for it in reversed(inner.shard):
        coord = elem_index
        if below > 1:
            coord = em.udiv(coord, em.const(below, t))
        if below * it.extent < _total(inner):
            coord = em.urem(coord, em.const(it.extent, t))
        off = em.add(off, em.mul(coord, em.const(it.stride, t)))
        below *= it.extent
    if elem_bits % 8 == 0:
        byte = em.mul(off, em.const(elem_bits // 8, t)) if elem_bits != 8 else off
    elif 8 % elem_bits == 0:  # 8 / elem_bits elements per byte (4-bit: 2)
        byte = em.shr(off, em.const((8 // elem_bits).bit_length() - 1, t))
    else:  # 6-bit: off * 6 / 8, exact at the starts of 4-element (3-byte) runs
        byte = em.shr(em.mul(off, em.const(elem_bits, t)), em.const(3, t))
    return swizzle_value(em, byte, swz)


def _total(layout) -> int:
    n = 1
    for it in layout.shard:
        n *= it.extent
    return n


def vector_bytes(layouts, elem_bits: int, limit: int = 16) -> int:
    """The widest access (bytes, power of two <= limit) that moves whole contiguous runs on every
    layout; 0 when not even single bytes can be moved whole (sub-byte elements that share a byte with
    elements outside the copied run)."""
    for w in (16, 8, 4, 2, 1):
        if w > limit or w * 8 < elem_bits or (w * 8) % elem_bits:
            continue
        n = w * 8 // elem_bits  # elements per access
        if n == 1:
            return w  # one whole-byte element per access: any strides will do
        ok = True
        for lay in layouts:
            inner = lay.inner
            shard = [it for it in inner.shard if it.extent > 1]
            if not shard:
                ok = False
                break
            last = shard[-1]
            if last.stride != 1 or last.extent % n:
                ok = False
                break
            if any((it.stride * elem_bits) % (w * 8) for it in shard[:-1]):
                ok = False
                break
            if (inner.offset_on(m) * elem_bits) % (w * 8):
                ok = False
                break
        if ok:
            return w
    return 0


def group_runs(layout, n: int) -> bool:
    """True when every aligned run of n consecutive elements of the (sliced) layout is contiguous and
    starts at a multiple of n: what moving whole packing groups of n elements needs."""
    inner = layout.inner
    shard = [it for it in inner.shard if it.extent > 1]
    if not shard or shard[-1].stride != 1 or shard[-1].extent % n:
        return False
    return all(it.stride % n == 0 for it in shard[:-1]) and inner.offset_on(m) % n == 0
