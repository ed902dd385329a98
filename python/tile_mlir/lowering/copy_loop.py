"""Element copies divided among the threads of a scope: the loop shared by tile.copy (ld/st) and the
copy_async cp.async variant.

The copied region's layouts are sliced first, so chunk c of the region is element c * per on both
sides; each thread moves chunks rank, rank + n, ... with the widest access (16/8/4/2/1 bytes) that
whole contiguous runs on both layouts allow.
"""
from __future__ import annotations

from ..dialect.enums import MemScope, Scope
from ..dialect.ir_utils import region_of
from ..dialect.ops import view
from ..dialect.types import BufferType
from ..mlir import ir, nvvm
from .address import byte_offset, group_runs, vector_bytes
from .emitter import I32, I64, int_type
from .window_align import MAX_ALIGN, base_align

__all__ = ["linear_tid", "scope_rank", "copy_types", "sliced_layouts", "emit_copy_loop", "load_store",
           "emit_group_copy", "GROUP", "SCOPE_THREADS", "pointer_align", "access_limit"]

SCOPE_THREADS = {Scope.THREAD: 1, Scope.WARP: 32, Scope.WARPGROUP: 128}


def linear_tid(em, block):
    """tid.x + ntid.x * (tid.y + ntid.y * tid.z), specialised for the kernel's static block shape."""
    x = nvvm.read_ptx_sreg_tid_x(I32(), loc=em.loc, ip=em.ip)
    bx, by, bz = block
    if by == 1 and bz == 1:
        return x
    y = nvvm.read_ptx_sreg_tid_y(I32(), loc=em.loc, ip=em.ip)
    z = nvvm.read_ptx_sreg_tid_z(I32(), loc=em.loc, ip=em.ip)
    return em.add(x, em.mul(em.add(y, em.mul(z, em.i32(by))), em.i32(bx)))


def scope_rank(em, scope: str, tid, block) -> tuple:
    """(rank of this thread in `scope`, number of threads of `scope`)."""
    if scope == Scope.CTA:
        return tid, block[0] * block[1] * block[2]
    n = SCOPE_THREADS[scope]
    return (em.and_(tid, em.i32(n - 1)) if n > 1 else em.i32(0)), n


def copy_types(op):
    """(dst BufferType, src BufferType) of a copy op (tile.copy, tile.copy_async: a view or an Operation)."""
    v = view(op)
    return BufferType.of(v.dst.type), BufferType.of(v.src.type)


def sliced_layouts(op):
    """(dst layout, src layout, element bits, element count) of a copy op's regions."""
    dst_t, src_t = copy_types(op)
    dst_r, src_r = region_of(op, "dst", dst_t), region_of(op, "src", src_t)
    dst_l = dst_t.layout.slice(dst_t.shape, dst_r).canonicalize()
    src_l = src_t.layout.slice(src_t.shape, src_r).canonicalize()
    return dst_l, src_l, dst_t.elem_bits, dst_r.numel


def pointer_align(value, t: BufferType) -> int:
    """Bytes the buffer `value` (of type t) is known to start aligned to, at most MAX_ALIGN: a global
    window's from its offsets (window_align), a shared buffer's from its align."""
    if t.scope == MemScope.GLOBAL:
        return base_align(value)
    return min(t.align or MAX_ALIGN, MAX_ALIGN)


def access_limit(op) -> int:
    """The widest access (bytes) a copy op's two pointers allow: what both are known aligned to."""
    v = view(op)
    dst_t, src_t = copy_types(op)
    return min(pointer_align(v.dst, dst_t), pointer_align(v.src, src_t))


def load_store(em, dst, src, width: int) -> None:
    t = ir.VectorType.get([4], I32()) if width == 16 else int_type(width * 8)
    em.store(em.load(t, src, align=width), dst, align=width)


def _index_type(numel: int):
    """i32 element indices, i64 for regions of 2^31 elements or more (an i32 index would wrap)."""
    return I64() if numel >= 1 << 31 else I32()


def emit_copy_loop(em, ptrs, layouts, elem_bits: int, numel: int, rank, nthreads: int, move=load_store,
                   max_width: int = 16):
    """for c in [rank, n_chunks) step nthreads: move(dst + off_d(c), src + off_s(c), width)."""
    width = vector_bytes(layouts, elem_bits, limit=max_width)
    if not width:
        raise ValueError(f"{elem_bits}-bit elements share bytes with elements outside the copied runs")
    per = width * 8 // elem_bits
    it = _index_type(numel)
    lb = em.index_cast(rank, ir.IndexType.get())
    with em.for_(lb, em.index(numel // per), em.index(nthreads)) as iv:
        c = em.index_cast(iv, it)
        e = em.mul(c, em.const(per, it)) if per > 1 else c
        d_off = byte_offset(em, layouts[0], e, elem_bits)
        s_off = byte_offset(em, layouts[1], e, elem_bits)
        move(em, em.gep(ptrs[0], d_off), em.gep(ptrs[1], s_off), width)
    return width


# 6-bit (and padded 4-bit) elements move in groups of 16: 12 (8) bytes packed contiguously (global
# memory, or any buffer without a packing), or one 16-byte .b6x16_p32 (.b4x16_p64) unit in shared
# memory: the data bytes, then 4 (8) padding bytes.
GROUP = 16
_UNIT = 16  # bytes of one padded group


def emit_group_copy(em, ptrs, layouts, types, numel: int, rank, nthreads: int):
    """Copy 6-bit or 4-bit elements group by group: for c in [rank, numel / 16) step nthreads, the 12 (8)
    data bytes of group c move as 32-bit words (a group starts on a multiple of 12 (8) bytes packed, of
    16 padded: 4-byte aligned either way); a padded destination also gets its padding bytes zeroed
    (TMA leaves them undefined; zero keeps the shared image deterministic). Callers check group_runs."""
    data = GROUP * types[0].elem_bits // 8
    it = _index_type(numel)
    lb = em.index_cast(rank, ir.IndexType.get())
    with em.for_(lb, em.index(numel // GROUP), em.index(nthreads)) as iv:
        e = em.mul(em.index_cast(iv, it), em.const(GROUP, it))
        d_off, s_off = (byte_offset(em, lay, e, t.addr_bits) for lay, t in zip(layouts, types))
        dst, src = em.gep(ptrs[0], d_off), em.gep(ptrs[1], s_off)
        words = [em.load(I32(), em.gep(src, k), align=4) for k in range(0, data, 4)]
        for k, w in zip(range(0, data, 4), words):
            em.store(w, em.gep(dst, k), align=4)
        if types[0].packing is not None:
            for k in range(data, _UNIT, 4):
                em.store(em.i32(0), em.gep(dst, k), align=4)
