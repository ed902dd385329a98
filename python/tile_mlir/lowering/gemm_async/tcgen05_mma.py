"""gemm_async variant `tcgen05_mma` (sm_100a): `tcgen05.mma.cta_group::N.kind::K` and, with scale factors,
`tcgen05.mma.cta_group::N.kind::K.block_scale.block{16,32}`, issued by one thread.

Async contract: this variant emits the MMAs only. The program commits them to an mbarrier (tile.commit =
tcgen05.commit) and waits on it before reading D (tcgen05.ld) or reusing A/B's shared memory.

The plan (validation, instruction and matrix descriptors, D / A / scale-factor placement) is
tcgen05_mma_plan.plan_tcgen05_mma; here, per K-step s:
  - A / B: the buffer's descriptor (built once per buffer, operand_ir) advanced by the step's start;
    A in tensor memory (.ts): its address plus the step's column;
  - the step's instruction descriptor (an i32 constant), enable-input-d = the op's `accumulate` for
    step 0 and true after it (the K-steps of one op accumulate);
  - block scaling: the scale-factor buffers' addresses plus the step's columns.
"""
from __future__ import annotations

from ...dialect.decline import cached_plan
from ...dialect.enums import MemScope, Scope
from ..dispatch import predicate, register_dispatch
from ...mlir import ir, mma_kind_attr
from .. import nvvm_ir
from ..emitter import I1
from ..smem_desc import encode_smem_desc
from .operand_ir import DescSteps, desc_base, emitter_at, signed, tmem_address
from .tcgen05_mma_plan import plan_tcgen05_mma

__all__ = ["validate_tcgen05_mma", "gemm_tcgen05_mma"]


def validate_tcgen05_mma(op, ctx):
    if not ctx.target.has_tcgen05:
        return False, f"tcgen05.mma needs an sm_100a-family target, not {ctx.target.arch}"
    if ctx.d_t.scope != MemScope.TMEM:
        return False, f"requires the accumulator in tensor memory, got a {ctx.d_t.scope} buffer"
    if ctx.scope != Scope.THREAD:
        return False, f"tcgen05.mma is issued by one thread (scope = \"thread\"), got scope = \"{ctx.scope}\""
    return True, ""


_cached_plan = cached_plan(maxsize=1024)(plan_tcgen05_mma)


def gemm_tcgen05_mma(op, ctx):
    plan = _cached_plan(ctx.d_op, ctx.a_op, ctx.b_op, ctx.cta_group, ctx.kind, ctx.sfa_op, ctx.sfb_op,
                        ctx.scale_vec)
    em = emitter_at(ctx, op)
    d_addr = tmem_address(ctx, ctx.d)
    d_ptr = em.inttoptr(d_addr if plan.d_offset == 0 else em.add(d_addr, em.i32(plan.d_offset)), 6)
    b = plan.b_smem
    b_desc = DescSteps(em, desc_base(ctx, ctx.b, encode_smem_desc(0, b.lbo_bytes, b.sbo_bytes, b.swizzle)))
    if plan.a_smem is not None:
        a = plan.a_smem
        a_desc = DescSteps(em, desc_base(ctx, ctx.a, encode_smem_desc(0, a.lbo_bytes, a.sbo_bytes, a.swizzle)))
    else:
        a_addr = tmem_address(ctx, ctx.a)
    attrs = {"kind": mma_kind_attr(plan.kind, bool(plan.block_scale)),
             "ctaGroup": nvvm_ir.cta_group(em, ctx.cta_group)}
    if plan.block_scale:
        attrs["blockScale"] = nvvm_ir.tcgen05_mma_block_scale(em, plan.block_scale)
        sfa_addr, sfb_addr = tmem_address(ctx, ctx.sfa), tmem_address(ctx, ctx.sfb)
    else:
        attrs["operandSegmentSizes"] = em.attr("array<i32: 1, 1, 1, 1, 1, 0, 0>")
    true = None
    for s in range(plan.steps):
        if plan.a_smem is not None:
            a_val = a_desc.at(plan.a_smem.starts[s])
        else:
            col = plan.a_tmem_cols[s]
            a_val = em.inttoptr(a_addr if col == 0 else em.add(a_addr, em.i32(col)), 6)
        b_val = b_desc.at(b.starts[s])
        if s == 0:
            enable = ctx.accumulate
        else:
            true = true or em.const(1, I1())
            enable = true
        operands = [d_ptr, a_val, b_val, em.i32(signed(plan.idescs[s], 32)), enable]
        if plan.block_scale:
            operands += [em.inttoptr(_plus(em, addr, cols[s]), 6)
                         for addr, cols in ((sfa_addr, plan.sfa_cols), (sfb_addr, plan.sfb_cols))]
        nvvm_ir.tcgen05_mma(em, operands, {**attrs, "tile.mma": ir.StringAttr.get(_describe(plan, s))},
                            block_scale=bool(plan.block_scale))
    return plan


def _describe(plan, s: int) -> str:
    a = plan.a_smem.describe(s) if plan.a_smem is not None else f"tmem col={plan.a_tmem_cols[s]}"
    text = f"step={s} idesc={plan.idescs[s]:#010x} a=({a}) b=({plan.b_smem.describe(s)})"
    if plan.block_scale:
        text += f" sfa_col={plan.sfa_cols[s]} sfb_col={plan.sfb_cols[s]}"
    return text


def _plus(em, addr, cols: int):
    return addr if cols == 0 else em.add(addr, em.i32(cols))


register_dispatch(
    "gemm_async", "cuda", variant="tcgen05_mma", priority=10,
    when=[predicate("validate_tcgen05_mma", validate_tcgen05_mma)],
)(gemm_tcgen05_mma)
