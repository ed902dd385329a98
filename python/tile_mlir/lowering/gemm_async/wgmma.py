"""gemm_async variant `wgmma` (sm_90a): `wgmma.mma_async.sync.aligned.m64nNkK.<d>.<a>.<b>`, issued by the
warpgroup, as one wgmma group:

    wgmma.fence.sync.aligned;                 (orders earlier accesses of the accumulator registers)
    wgmma.mma_async ...  x K-steps            (A and B by sm_90 descriptors, D in registers)
    wgmma.commit_group.sync.aligned;

Async contract: the accumulator may be read only after a `tile.gemm_wait` (wgmma.wait_group N) that
covers this group; `pending = 1` keeps one group in flight while the next stage is loaded.

The plan is wgmma_plan.plan_wgmma. The accumulator is a register tile, the per-thread array of 32-bit
words that convert-tile-to-nvvm makes of it (docs/registers.md): its N/2 words are read into the
instruction's struct and written back after it, all at static indices, so LLVM keeps them in registers.
The first K-step's scale-d is the op's `accumulate`; later K-steps accumulate. A constant `accumulate` gives
NVVM's op with scaleD one or zero. A computed one goes to the instruction as the predicate operand the PTX ISA
makes scale-d (only imm-scale-a/b and imm-trans-a/b are immediates), in the same inline assembly NVVM's own
lowering prints but with the predicate set from a register: NVVM's attribute would need a branch between two
instructions, and ptxas serialises every wgmma of a kernel where one sits in a branch whose other side leaves
the accumulator registers to a path it deems divergent (C7520, measured on the persistent GEMM's TMA-store
epilogue; docs/gemm-walkthrough.md §10).
"""
from __future__ import annotations

from ...dialect.enums import MemScope
from ...dialect.decline import cached_plan
from ..dispatch import predicate, register_dispatch
from ...mlir import ir, llvm
from .. import nvvm_ir
from ..emitter import I32
from ..smem_desc import encode_wgmma_desc
from .operand_ir import DescSteps, desc_base, emitter_at
from .wgmma_plan import plan_wgmma

__all__ = ["validate_wgmma", "gemm_wgmma"]


def validate_wgmma(op, ctx):
    if not ctx.target.has_wgmma:
        return False, f"wgmma needs sm_90a, not {ctx.target.arch}"
    if ctx.d_t.scope != MemScope.REG:
        return False, f"requires the accumulator in registers, got a {ctx.d_t.scope} buffer"
    if ctx.block_scaled:
        return False, "wgmma has no block scaling"
    if ctx.kind is not None:
        return False, f"kind = \"{ctx.kind}\" names a tcgen05 kind; wgmma takes its types from the buffers"
    return True, ""


_cached_plan = cached_plan(maxsize=1024)(plan_wgmma)


def _constant_bool(v):
    """The value of an i1 arith.constant, or None when `v` is computed."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    return bool(ir.IntegerAttr(owner.attributes["value"]).value)


def gemm_wgmma(op, ctx):
    plan = _cached_plan(ctx.d_op, ctx.a_op, ctx.b_op)
    em = emitter_at(ctx, op)
    descs = [DescSteps(em, desc_base(ctx, v, encode_wgmma_desc(0, p.lbo_bytes, p.sbo_bytes, p.swizzle)))
             for v, p in ((ctx.a, plan.a), (ctx.b, plan.b))]
    elem = ir.F32Type.get() if plan.type_d == "f32" else I32()
    struct = llvm.StructType.get_literal([elem] * len(plan.words))
    words = ctx.values.get(ctx.d, em)
    nvvm_ir.wgmma_fence(em)
    acc = em.result("llvm.mlir.undef", struct)
    for i, w in enumerate(plan.words):
        x = em.load(I32(), em.gep(words, 4 * w), align=4)
        if plan.type_d == "f32":
            x = em.result("llvm.bitcast", elem, (x,))
        acc = em.result("llvm.insertvalue", struct, (acc, x), {"position": ir.DenseI64ArrayAttr.get([i])})
    attrs = {
        "shape": nvvm_ir.wgmma_shape(em, plan.n, plan.k_step),
        "typeA": nvvm_ir.wgmma_type(em, plan.type_a), "typeB": nvvm_ir.wgmma_type(em, plan.type_b),
        "typeD": nvvm_ir.wgmma_type(em, plan.type_d),
        "scaleA": nvvm_ir.wgmma_scale_in(em, "one"), "scaleB": nvvm_ir.wgmma_scale_in(em, "one"),
        "layoutA": nvvm_ir.mma_layout(em, "row" if plan.a.major == "K" else "col"),
        "layoutB": nvvm_ir.mma_layout(em, "col" if plan.b.major == "K" else "row"),
    }

    for s in range(plan.steps):
        a_desc, b_desc = descs[0].at(plan.a.starts[s]), descs[1].at(plan.b.starts[s])
        known = True if s else _constant_bool(ctx.accumulate)
        if known is not None:
            acc = nvvm_ir.wgmma_mma_async(em, struct, (acc, a_desc, b_desc),
                                          {**attrs, "scaleD": nvvm_ir.wgmma_scale_out(em, "one" if known else "zero"),
                                           "tile.mma": ir.StringAttr.get(_describe(plan, s))})
        else:
            acc = _mma_scale_d(em, plan, struct, elem, acc, a_desc, b_desc, ctx.accumulate)
    nvvm_ir.wgmma_commit_group(em)
    for i, w in enumerate(plan.words):
        x = em.result("llvm.extractvalue", elem, (acc,), {"position": ir.DenseI64ArrayAttr.get([i])})
        if plan.type_d == "f32":
            x = em.result("llvm.bitcast", I32(), (x,))
        em.store(x, em.gep(words, 4 * w), align=4)
    return plan


def _mma_scale_d(em, plan, struct, elem, acc, a_desc, b_desc, accumulate):
    """One wgmma.mma_async whose scale-d predicate is `accumulate` (i1), as llvm.inline_asm."""
    n = len(plan.words)
    d = ", ".join(f"${i}" for i in range(n))
    # the operands after scale-d (PTX ISA, wgmma.mma_async syntax): imm-scale-a, imm-scale-b for floating-point
    # types, then imm-trans-a, imm-trans-b for f16 and bf16 only; none for the integer types
    imms = [] if plan.type_d == "s32" else [1, 1]
    if plan.type_a in ("f16", "bf16"):
        imms += [int(plan.a.major != "K"), int(plan.b.major != "K")]
    asm = (f"{{\n.reg .pred p;\nsetp.ne.b32 p, ${2 * n + 2}, 0;\n"
           f"wgmma.mma_async.sync.aligned.m64n{plan.n}k{plan.k_step}.{plan.type_d}.{plan.type_a}.{plan.type_b} "
           f"{{{d}}}, ${2 * n}, ${2 * n + 1}, {', '.join(['p'] + [str(v) for v in imms])};\n}}\n")
    reg = "f" if plan.type_d == "f32" else "r"
    constraints = ",".join([f"={reg}"] * n + [str(i) for i in range(n)] + ["l", "l", "r"])
    words = [em.result("llvm.extractvalue", elem, (acc,), {"position": ir.DenseI64ArrayAttr.get([i])})
             for i in range(n)]
    return em.result("llvm.inline_asm", struct, (*words, a_desc, b_desc, em.zext(accumulate, I32())), {
        "asm_string": ir.StringAttr.get(asm), "constraints": ir.StringAttr.get(constraints),
        "has_side_effects": ir.UnitAttr.get(),
        "tile.mma": ir.StringAttr.get(_describe(plan, 0) + " scale-d=accumulate")})


def _describe(plan, s: int) -> str:
    """The `tile.mma` attribute of K-step s: its descriptors' fields."""
    return f"step={s} a=({plan.a.describe(s)}) b=({plan.b.describe(s)})"


register_dispatch(
    "gemm_async", "cuda", variant="wgmma", priority=10,
    when=[predicate("validate_wgmma", validate_wgmma)],
)(gemm_wgmma)
