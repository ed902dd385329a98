"""copy_async variant `shared->global`: ld.shared + st.global by every thread of the scope.

The stores are ordinary (generic proxy) stores, so the copy is complete when the op is: no commit or
wait is needed, and a later kernel or a barrier'd reader sees the data. (A TMA bulk store would be the
asynchronous form; this variant is the portable one, and the one Hopper runs in our H200 check.)
"""
from __future__ import annotations

from ...dialect.enums import MemScope, Reduction
from ..dispatch import predicate, register_dispatch
from ...mlir import ir
from ..copy_loop import access_limit, emit_copy_loop, linear_tid, scope_rank, sliced_layouts
from ..emitter import Emitter
from .kernel_info import kernel_block

__all__ = ["validate_shared_global_copy", "copy_async_st_global"]


def validate_shared_global_copy(op, ctx):
    if ctx.src_t.scope != MemScope.SHARED or ctx.dst_t.scope != MemScope.GLOBAL:
        return False, f"requires a shared source and a global destination, got {ctx.src_t.scope} -> {ctx.dst_t.scope}"
    if ctx.src_t.elem_bits % 8:
        return False, f"moves whole bytes; {ctx.src_t.elem} elements are {ctx.src_t.elem_bits} bits"
    if ctx.reduce != Reduction.NONE:
        return False, f"stores; reduce = \"{ctx.reduce}\" is TMA's (cp.reduce.async.bulk.tensor)"
    return True, ""


def copy_async_st_global(op, ctx):
    dst_l, src_l, bits, numel = sliced_layouts(op)
    em = Emitter(ir.InsertionPoint(op), op.location)
    block = kernel_block(op)
    dst = ctx.values.get(ctx.dst, em)
    src = ctx.values.get(ctx.src, em)
    rank, n = scope_rank(em, ctx.scope, linear_tid(em, block), block)
    return emit_copy_loop(em, (dst, src), (dst_l, src_l), bits, numel, rank, n, max_width=access_limit(op))


register_dispatch(
    "copy_async", "cuda", variant="shared->global", priority=5, moves=[(MemScope.SHARED, MemScope.GLOBAL)],
    when=[predicate("validate_shared_global_copy", validate_shared_global_copy)],
)(copy_async_st_global)
