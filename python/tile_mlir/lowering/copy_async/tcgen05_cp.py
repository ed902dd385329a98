"""copy_async variant `smem->tmem`: `tcgen05.cp.cta_group::N.<shape>[.<multicast>]`, issued by one thread.

Every shape of the PTX ISA: 128x256b, 128x128b, 4x256b, 64x128b.warpx2::02_13, 64x128b.warpx2::01_23
and 32x128b.warpx4, chosen by the planner from the tmem layout's rows and replica
(tcgen05_cp_shapes.py), with `.b8x16.b6x16_p32` / `.b8x16.b4x16_p64` decompression when the shared
buffer is declared in that packing.

Async contract: this variant emits the copies only. The program commits them to an mbarrier
(tile.commit = tcgen05.commit) and waits before any other thread reads the tensor memory.

The plan (all layout analysis and validation, steps A-I) is tcgen05_cp_plan.plan_tcgen05_cp; here:
  - predicates `validate_smem_tmem_copy` and `exec_scope` decide whether the variant applies;
  - J. the descriptor template is encoded once per (buffer, LBO, SBO, swizzle) right after the shared
    buffer's allocation, with the buffer's address in its start field;
  - K. each cp adds its 16-byte start offset to the descriptor's low 32-bit word (CUTLASS's
    DescriptorIterator does the same: a 64-bit add once miscompiled, docs/tcgen05.md §4, per-copy
    start address) and adds its lane << 16 | column to the tmem address (add, never OR: the base
    column is not aligned, docs/tcgen05.md §2).
"""
from __future__ import annotations

from ...dialect.decline import cached_plan
from ...dialect.enums import MemScope, Scope
from ...dialect.ops.tmem import has_tmem_address
from ..dispatch import predicate, register_dispatch
from ...mlir import ir
from .. import nvvm_ir
from ..emitter import I32, I64, Emitter
from .tcgen05_cp_plan import cp_element_format, plan_tcgen05_cp
from .tcgen05_cp_shapes import MULTICAST_REPLICAS, replica_text

__all__ = ["validate_smem_tmem_copy", "exec_scope", "copy_async_smem_tmem"]


def validate_smem_tmem_copy(op, ctx):
    if ctx.src_t.scope != MemScope.SHARED:
        return False, f"requires a shared-memory source, got {ctx.src_t.scope}"
    if ctx.dst_t.scope != MemScope.TMEM:
        return False, f"requires a tensor-memory destination, got {ctx.dst_t.scope}"
    if ctx.dst_t.layout_text is None:
        return False, "requires a layout on the tmem buffer"
    if not has_tmem_address(ctx.dst):
        return False, ("requires the tmem buffer's address (a tile.tmem.buffer over a tile.tmem.alloc slot, or a "
                       "tile.ring.stage of them)")
    rep = ctx.dst_t.layout.canonicalize().replica
    if rep not in MULTICAST_REPLICAS:
        return False, (f"requires a tcgen05.cp multicast replica on tmem (R[4 : 32@TLane], R[2 : 64@TLane], "
                       f"R[2 : 32@TLane]) or none, got {replica_text(rep)}")
    if not ctx.target.has_tcgen05:
        return False, f"tcgen05.cp needs an sm_100a-family target, not {ctx.target.arch}"
    return True, ""


def exec_scope(op, ctx):
    if ctx.scope != Scope.THREAD:
        return False, (f"tcgen05.cp is issued by a single thread (scope = \"thread\"), got scope = \"{ctx.scope}\"; "
                       "put the copy under an elected thread")
    return True, ""


@cached_plan(maxsize=4096)
def _cached_plan(src_t, src_region, dst_t, dst_region, cta_group):
    """Plans depend only on types, regions and cta_group (all hashable): programs repeat them a lot."""
    bits, src_format = cp_element_format(src_t.elem_bits, src_t.packing)
    return plan_tcgen05_cp(src_t.layout, src_t.shape, src_region, src_t.layout.swizzle,
                           dst_t.layout, dst_t.shape, dst_region, bits, cta_group, src_format)


def _plan(ctx):
    return _cached_plan(ctx.src_t, ctx.src_region, ctx.dst_t, ctx.dst_region, ctx.cta_group)


def _descriptor(ctx, plan):
    """J: the buffer's descriptor (start = buffer address), emitted once right after its allocation."""
    key = ("tcgen05_desc", ctx.src, plan.lbo_bytes, plan.sbo_bytes, plan.swizzle)
    desc = ctx.cache.get(key)
    if desc is not None:
        return desc
    owner = ctx.src.owner
    em = Emitter(ir.InsertionPoint.after(owner), owner.location, ctx.cache.setdefault("attrs", {}))
    ptr = ctx.values.get(ctx.src, em)
    addr = em.zext(em.ptrtoint(ptr, I32()), I64())
    start = em.shr(em.and_(addr, em.i64(0x3FFFF)), em.i64(4))
    desc = em.or_(em.i64(_signed64(plan.descriptor_template())), start)
    ctx.cache[key] = desc
    return desc


def _tmem_address(ctx):
    """The tmem buffer's i32 address (a cast convert-tile-to-nvvm resolves), emitted once per buffer
    right after its tile.tmem.buffer, like the descriptor: every copy into the buffer uses it."""
    key = ("tmem_address", ctx.dst)
    taddr = ctx.cache.get(key)
    if taddr is None:
        owner = ctx.dst.owner
        em = Emitter(ir.InsertionPoint.after(owner), owner.location, ctx.cache.setdefault("attrs", {}))
        taddr = ctx.cache[key] = ctx.values.get(ctx.dst, em)
    return taddr


def _signed64(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x


def copy_async_smem_tmem(op, ctx):
    plan = _plan(ctx)
    desc = _descriptor(ctx, plan)
    taddr = _tmem_address(ctx)
    em = Emitter(ir.InsertionPoint(op), op.location, ctx.cache.setdefault("attrs", {}))
    sh = plan.cp_shape
    attrs = {"shape": nvvm_ir.tcgen05_cp_shape(em, sh.name), "group": nvvm_ir.cta_group(em, ctx.cta_group)}
    if sh.multicast:
        attrs["multicast"] = nvvm_ir.tcgen05_cp_multicast(em, sh.multicast)
    if plan.src_format:  # .b8x16.<format>: 6-bit / padded 4-bit source chunks decompressed to 8-bit containers
        attrs["srcFormat"] = nvvm_ir.tcgen05_cp_src_fmt(em, plan.src_format)
    tag = f"sbo={plan.sbo_bytes} swizzle={plan.swizzle.value}" + (f" lbo={plan.lbo_bytes}" if plan.lbo_bytes else "")
    lo = hi = None
    for cp in plan.cps:
        # K: descriptor start += offset / 16 in the low word; tmem address += lane << 16 | column
        src_off, col = cp.src_offset, cp.col
        if src_off == 0:
            d = desc
        else:
            if lo is None:
                lo = em.trunc(desc, I32())
                hi = em.and_(desc, em.i64(_signed64(0xFFFFFFFF00000000)))
            d = em.or_(hi, em.zext(em.add(lo, em.i32(src_off >> 4)), I64()))
        t_off = cp.lane << 16 | col
        t = taddr if t_off == 0 else em.add(taddr, em.i32(t_off))
        lane = f" lane={cp.lane}" if cp.lane else ""
        attrs["tile.cp"] = ir.StringAttr.get(f"src_offset={src_off} col={col}{lane} {tag}")
        nvvm_ir.tcgen05_cp(em, em.inttoptr(t, 6), d, attrs)
    return plan


register_dispatch(
    "copy_async", "cuda", variant="smem->tmem", priority=10, moves=[(MemScope.SHARED, MemScope.TMEM)],
    when=[predicate("validate_smem_tmem_copy", validate_smem_tmem_copy), predicate("exec_scope", exec_scope)],
)(copy_async_smem_tmem)
