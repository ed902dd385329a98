"""copy_async variant `tma`: one `cp.async.bulk.tensor.<N>d` (tile mode) between a global tensor and shared
memory, through a tensor map the kernel declares (tile.tensor_map), issued by the executing thread.

  load  (global -> shared): `cp.async.bulk.tensor.Nd.shared::cta.global.tile.mbarrier::complete_tx::bytes`
        completing on the op's mbarrier (operand #2); with multicast_mask, `.shared::cluster ...
        .multicast::cluster` to the CTAs of the mask; with cta_group = 2 (sm_100a), `.cta_group::2`.
  store (shared -> global): `cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group`, then
        `cp.async.bulk.commit_group`.

Async contract: a load completes on its mbarrier, which the program arms with the box's bytes
(tile.mbarrier.arrive_expect_tx) and waits on (tile.mbarrier.wait); a store completes at the issuing
thread's tile.bulk_wait (cp.async.bulk.wait_group). The copy is issued by every thread that executes it, so
the program puts it under one elected thread (scope "thread"). Analysis is tma_plan.plan_tma (steps A-E);
here: the predicates, the kernel's declared maps, and the emission. docs/tma.md.
"""
from __future__ import annotations

from ...dialect.decline import Decline, cached_plan
from ...dialect.enums import BarrierCta, MemScope, Reduction, Scope
from ...dialect.ir_utils import Region, enclosing_kernel
from ...dialect.ops import SUBVIEW_DYNAMIC, CopyAsyncOp, SubviewOp, TensorMapOp
from ...dialect.types import BufferType
from ..dispatch import DispatchError, Rejection, predicate, register_dispatch
from ...mlir import ir
from .. import nvvm_ir
from ..emitter import I16, I32, Emitter
from ..window_align import known_multiple
from .tma_plan import DeclaredMap, plan_tma

__all__ = ["validate_tma_copy", "exec_scope", "copy_async_tma", "would_be_tma_load"]


def _direction(ctx) -> str | None:
    return {(MemScope.GLOBAL, MemScope.SHARED): "load", (MemScope.SHARED, MemScope.GLOBAL): "store"}.get((ctx.src_t.scope, ctx.dst_t.scope))


def validate_tma_copy(op, ctx):
    direction = _direction(ctx)
    if direction is None:
        return False, f"moves global <-> shared, got {ctx.src_t.scope} -> {ctx.dst_t.scope}"
    if not ctx.target.has_tma:
        return False, f"cp.async.bulk.tensor needs sm_90 or later, not {ctx.target.arch}"
    if direction == "load" and ctx.barrier is None:
        return False, "a TMA load completes on an mbarrier: give one as operand #2"
    if ctx.cta_group == 2 and not ctx.target.has_tcgen05:
        return False, f".cta_group::2 needs an sm_100a-family target, not {ctx.target.arch}"
    if ctx.multicast_mask is not None and not ctx.target.has_clusters:
        return False, f".multicast::cluster needs clusters (sm_90 or later), not {ctx.target.arch}"
    return True, ""


def exec_scope(op, ctx):
    if ctx.scope != Scope.THREAD:
        return False, (f"cp.async.bulk.tensor is issued by a single thread (scope = \"thread\"), got scope = "
                       f"\"{ctx.scope}\"; put the copy under an elected thread")
    return True, ""


def _through_window(g, g_t, g_region):
    """A global operand that is a tile.subview: its source, its type, the region at the window's static
    offsets (dynamic ones counted as 0: the window's box is planned at the source's origin) and the
    (dim, SSA offset) pairs the coordinates add. Otherwise the operand as it is, with none."""
    owner = g.owner
    if not isinstance(owner, ir.Operation) and hasattr(owner, "operation"):
        owner = owner.operation
    if getattr(owner, "name", None) != SubviewOp.OPERATION_NAME:
        return g, g_t, g_region, []
    window = SubviewOp(owner)
    source = window.source
    dynamic = iter(window.offsets)
    base, moved = [], []
    for dim, o in enumerate(window.static_offsets):
        if o == SUBVIEW_DYNAMIC:
            base.append(0)
            moved.append((dim, next(dynamic)))
        else:
            base.append(o)
    region = Region((b + lo, b + hi) for b, (lo, hi) in zip(base, g_region))
    return source, BufferType.of(source.type), region, moved


def _decline_unproven_start(g_t, moved) -> None:
    """A box must start on 16 bytes in the inner dim (step A's `coordinate`; the H200 faults otherwise). A
    window's SSA offset there is checked as far as its IR shows (window_align.known_multiple): a multiple
    of 16 bytes, or the variant declines (a store then falls to st.global, which moves what is aligned)."""
    inner = len(g_t.shape) - 1
    for dim, offset in moved:
        if dim == inner:
            k = known_multiple(offset)
            if k * g_t.elem_bits // 8 % 16:
                raise Decline("coordinate", f"the window's SSA offset in the inner dim is known only to be a "
                              f"multiple of {k} element(s) ({k * g_t.elem_bits // 8} B); a TMA box starts on "
                              f"16 bytes (the H200 faults otherwise): make it a constant multiple of "
                              f"{16 * 8 // g_t.elem_bits} elements (e.g. a tile index times the box)")


def _refuse_edge_overrun(g_t, moved) -> None:
    """A store writes dimension 0 to 16-byte granularity where it crosses the tensor's edge (docs/emulator.md
    A27, measured on the H200): bytes past a tensor whose dimension 0 is not whole 16-byte chunks. A box at
    static offsets stays inside (plan_tma); a window at an SSA offset in dimension 0 may cross the edge, so
    it is refused, not handed to another variant (st.global would not clip at all). Only a rank-1 tensor
    can have such a dimension 0: longer rows are strides, multiples of 16 bytes (tensor-map-stride). A runtime
    extent there is checked at launch (runtime/tensor_map.py at_shape)."""
    row_bytes = g_t.shape[-1] * g_t.elem_bits // 8
    rank = len(g_t.shape)
    if rank - 1 in g_t.dynamic:  # (a runtime extent: the launch refuses rows of other than 16-byte multiples)
        return
    if row_bytes % 16 and any(dim == rank - 1 for dim, _ in moved):
        raise DispatchError("copy_async", "cuda", [Rejection(
            "tma", "refused (no other variant tried)", "tma-store-edge",
            f"tma-store-edge - a TMA store through a window at an SSA offset into a tensor of {row_bytes} bytes per row (not "
            f"a multiple of 16): where the box crosses the edge the H200 writes the row's last 16-byte chunk "
            f"whole (A27), {16 - row_bytes % 16} bytes past the tensor; pad the tensor to a multiple of 16 "
            f"bytes or store at static offsets")])


def _declared_maps(ctx, buffer) -> tuple[list[DeclaredMap], list]:
    """The kernel's tile.tensor_map declarations of `buffer` (DeclaredMap, with its ordinal among all the
    kernel's maps, which is its parameter's) and the map values, by ordinal."""
    kernel = enclosing_kernel(ctx.op)
    key = ("tma_maps", kernel)
    found = ctx.cache.get(key)
    if found is None:
        found = ctx.cache[key] = [TensorMapOp(op.operation) for op in kernel.regions[0].blocks[0].operations
                                  if op.operation.name == TensorMapOp.OPERATION_NAME]
    maps = [DeclaredMap(i, tuple(m.box), m.swizzle) for i, m in enumerate(found) if m.buffer == buffer]
    return maps, [m.map for m in found]


@cached_plan(maxsize=1024)
def _cached_plan(direction, g_t, g_region, s_t, s_region, maps):
    """Plans depend only on types, regions and the declared maps (all hashable)."""
    return plan_tma(direction, g_t.shape, g_t.elem, g_region, s_t.layout, s_t.shape, s_region,
                    max(s_t.align or 16, 16), maps)


def would_be_tma_load(ctx) -> bool:
    """Whether this copy, given an mbarrier, would be a TMA load: global -> shared on a chip with TMA, and
    the kernel declares a tile.tensor_map of its source under which the load plans."""
    if _direction(ctx) != "load" or not ctx.target.has_tma:
        return False
    g, g_t, g_region, _ = _through_window(ctx.src, ctx.src_t, ctx.src_region)
    maps, _ = _declared_maps(ctx, g)
    if not maps:
        return False
    try:
        _cached_plan("load", g_t, g_region, ctx.dst_t, ctx.dst_region, tuple(maps))
    except Decline:
        return False
    return True


def copy_async_tma(op, ctx):
    direction = _direction(ctx)
    load = direction == "load"
    g, g_t, g_region = (ctx.src, ctx.src_t, ctx.src_region) if load else (ctx.dst, ctx.dst_t, ctx.dst_region)
    s, s_t, s_region = (ctx.dst, ctx.dst_t, ctx.dst_region) if load else (ctx.src, ctx.src_t, ctx.src_region)
    g, g_t, g_region, moved = _through_window(g, g_t, g_region)
    _decline_unproven_start(g_t, moved)
    if not load:
        _refuse_edge_overrun(g_t, moved)
    maps, map_values = _declared_maps(ctx, g)
    plan = _cached_plan(direction, g_t, g_region, s_t, s_region, tuple(maps))
    em = Emitter(ir.InsertionPoint(op), op.location, ctx.cache.setdefault("attrs", {}))
    desc = ctx.values.get(map_values[plan.map_index], em)  # the map parameter's generic address
    smem = em.gep(ctx.values.get(s, em), plan.smem_offset)
    coords = [em.i32(c) for c in plan.coords]
    for dim, offset in moved:  # a window's SSA offsets (coordinates are innermost first)
        coords[len(coords) - 1 - dim] = em.add(coords[len(coords) - 1 - dim], offset)
    segments = [1, 1, len(coords)]
    if load:
        bar = ctx.values.get(ctx.barrier, em)
        if CopyAsyncOp(op.operation).barrier_cta == BarrierCta.PAIR_LEADER:
            bar = _pair_leader_barrier(em, bar)
        attrs = {"mode": nvvm_ir.tma_load_mode(em)}
        extra = []
        if ctx.multicast_mask is None and ctx.cta_group == 1:
            attrs["isCTAOnly"] = ir.BoolAttr.get(True)  # .shared::cta destination
        else:  # .shared::cluster destination: the same offset in each CTA of the mask
            smem = em.create("llvm.addrspacecast", (smem,), (em.ptr(7),)).results[0]
            attrs["isCTAOnly"] = ir.BoolAttr.get(False)
            if ctx.cta_group == 2:
                attrs["group"] = nvvm_ir.cta_group(em, ctx.cta_group)
            if ctx.multicast_mask is not None:
                extra.append(em.const(ctx.multicast_mask, I16()))
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(segments + [1, 0, len(extra), 0, 0])
        nvvm_ir.tma_load(em, smem, desc, coords, bar, extra, attrs)
    elif ctx.reduce != Reduction.NONE:  # cp.reduce.async.bulk.tensor: dst op= the box, in the bulk group
        nvvm_ir.tma_reduce(em, desc, smem, coords, ctx.reduce.value, segments + [0])
        nvvm_ir.cp_async_bulk_commit_group(em)
    else:
        nvvm_ir.tma_store(em, desc, smem, coords, segments + [0, 0])
        nvvm_ir.cp_async_bulk_commit_group(em)
    return plan


def _pair_leader_barrier(em, bar):
    """The even CTA of this CTA's pair's mbarrier at bar's offset: `mapa.shared::cluster` to rank & ~1
    (docs/tma.md §8). The instruction's mbar operand is a 32-bit shared address; PTX reads it in the
    destination's .shared::cluster window, so the mapped address travels as its bits."""
    rank = nvvm_ir.sreg(em, "cluster.ctarank")
    leader = em.and_(rank, em.i32(-2))
    remote = nvvm_ir.mapa(em, bar, leader)
    return em.inttoptr(em.ptrtoint(remote, I32()), 3)


register_dispatch(
    "copy_async", "cuda", variant="tma", priority=20, moves=[(MemScope.GLOBAL, MemScope.SHARED), (MemScope.SHARED, MemScope.GLOBAL)],
    when=[predicate("validate_tma_copy", validate_tma_copy), predicate("exec_scope", exec_scope)],
)(copy_async_tma)
