"""copy_async variant `global->shared`: `cp.async.{ca,cg}.shared.global` (LDGSTS, sm_80 and later).

Every thread of the op's scope (thread / warp / warpgroup / cta) issues a share of the 4, 8 or 16-byte
copies, then `cp.async.commit_group`. Async contract: the copies complete at the thread's
`tile.async_wait` (cp.async.wait_group 0); the program then synchronises the scope (tile.barrier) before
other threads read the shared tile. Hopper runs this variant, so it is the one the H200 executes.

  A. src is global and dst shared, same element width, whole bytes, sm_80 or later;
  B. slice both layouts to their regions; the access width is the widest of 16/8/4 bytes that whole
     contiguous runs allow on both sides (cp.async moves 4, 8 or 16 bytes: narrower runs decline);
  C. emit the strided loop of cp.async (.cg for 16 bytes: bypass L1; .ca otherwise) and one
     commit_group.

A copy that would have been a TMA load had it an mbarrier (the kernel declares a tensor map of its
source: tma.would_be_tma_load) gets a warning: a forgotten barrier otherwise shows only as the program's
mbarrier wait never completing. `dispatch = "global->shared"` says cp.async is meant, and silences it.
"""
from __future__ import annotations

from ...dialect.enums import MemScope
from ...diagnostics import warning
from ...dialect.decline import Decline
from ..dispatch import predicate, register_dispatch
from ...mlir import ir, nvvm
from ..copy_loop import access_limit, emit_copy_loop, linear_tid, scope_rank, sliced_layouts
from .. import nvvm_ir
from ..emitter import Emitter
from .kernel_info import kernel_block
from .tma import would_be_tma_load
from ..address import vector_bytes

__all__ = ["validate_global_shared_copy", "any_scope", "copy_async_cp_async"]


def validate_global_shared_copy(op, ctx):
    if ctx.src_t.scope != MemScope.GLOBAL or ctx.dst_t.scope != MemScope.SHARED:
        return False, f"requires a global source and a shared destination, got {ctx.src_t.scope} -> {ctx.dst_t.scope}"
    if ctx.src_t.elem_bits % 8:
        return False, f"cp.async moves whole bytes; {ctx.src_t.elem} elements are {ctx.src_t.elem_bits} bits"
    if ctx.barrier is not None:
        return False, "cp.async completes at tile.async_wait, not on the mbarrier operand (a TMA load's)"
    if not ctx.target.has_cp_async:
        return False, f"cp.async needs sm_80 or later, not {ctx.target.arch}"
    return True, ""


def any_scope(op, ctx):
    return True, ""  # each thread of the scope takes a share, whatever the scope


def _cp_async(em, dst, src, width):
    kind = nvvm.LoadCacheModifierKind.CG if width == 16 else nvvm.LoadCacheModifierKind.CA
    nvvm.CpAsyncOp(dst, src, width, kind, loc=em.loc, ip=em.ip)


def copy_async_cp_async(op, ctx):
    dst_l, src_l, bits, numel = sliced_layouts(op)
    em = Emitter(ir.InsertionPoint(op), op.location)

    limit = access_limit(op)
    width = vector_bytes((dst_l, src_l), bits, limit)
    if width < 4:
        raise Decline("width", f"contiguous runs and the pointers' known alignment ({limit} bytes) allow "
                      f"{width}-byte accesses; cp.async moves 4, 8 or 16 bytes")
    block = kernel_block(op)
    dst = ctx.values.get(ctx.dst, em)
    src = ctx.values.get(ctx.src, em)
    rank, n = scope_rank(em, ctx.scope, linear_tid(em, block), block)
    emit_copy_loop(em, (dst, src), (dst_l, src_l), bits, numel, rank, n, move=_cp_async, max_width=limit)
    nvvm_ir.cp_async_commit_group(em)
    if ctx.pinned is None and would_be_tma_load(ctx):
        warning(op, "'tile.copy_async' op lowered to cp.async (variant 'global->shared'), which completes at "
                    "tile.async_wait: it has no mbarrier, yet the kernel declares a tile.tensor_map of its "
                    "source; a TMA load completes on an mbarrier given as operand #2 (pin "
                    "dispatch = \"global->shared\" if cp.async is meant)")
    return width


register_dispatch(
    "copy_async", "cuda", variant="global->shared", priority=5, moves=[(MemScope.GLOBAL, MemScope.SHARED)],
    when=[predicate("validate_global_shared_copy", validate_global_shared_copy), predicate("exec_scope", any_scope)],
)(copy_async_cp_async)
