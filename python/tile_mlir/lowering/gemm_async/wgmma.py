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

A register tile as A (the RS form, wgmma_a_regs): each K-step passes the thread's four words of A that the
plan names, in the same inline assembly (NVVM's op takes A only as a descriptor); PTX's RS syntax has no
imm-trans-a. The fence before the K-steps also orders the program's writes of those registers (PTX ISA:
wgmma.fence before a wgmma.mma_async whose registers were written).
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
    sides = ((ctx.b, plan.b),) if plan.a is None else ((ctx.a, plan.a), (ctx.b, plan.b))
    descs = [DescSteps(em, desc_base(ctx, v, encode_wgmma_desc(0, p.lbo_bytes, p.sbo_bytes, p.swizzle)))
             for v, p in sides]
    elem = ir.F32Type.get() if plan.type_d == "f32" else I32()
    struct = llvm.StructType.get_literal([elem] * len(plan.words))
    words = ctx.values.get(ctx.d, em)
    a_regs = ctx.values.get(ctx.a, em) if plan.a is None else None
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
        "layoutA": nvvm_ir.mma_layout(em, "row" if plan.a is None or plan.a.major == "K" else "col"),
        "layoutB": nvvm_ir.mma_layout(em, "col" if plan.b.major == "K" else "row"),
    }

    for s in range(plan.steps):
        b_desc = descs[-1].at(plan.b.starts[s])
        known = True if s else _constant_bool(ctx.accumulate)
        if a_regs is not None:
            a_words = [em.load(I32(), em.gep(a_regs, 4 * w), align=4) for w in plan.a_words[s]]
            scale_d = ctx.accumulate if known is None else em.i32(int(known))
            acc = _mma_asm(em, plan, s, struct, elem, acc, a_words, b_desc, scale_d)
        elif known is not None:
            a_desc = descs[0].at(plan.a.starts[s])
            acc = nvvm_ir.wgmma_mma_async(em, struct, (acc, a_desc, b_desc),
                                          {**attrs, "scaleD": nvvm_ir.wgmma_scale_out(em, "one" if known else "zero"),
                                           "tile.mma": ir.StringAttr.get(_describe(plan, s))})
        else:
            acc = _mma_asm(em, plan, s, struct, elem, acc, [descs[0].at(plan.a.starts[s])], b_desc, ctx.accumulate)
    nvvm_ir.wgmma_commit_group(em)
    for i, w in enumerate(plan.words):
        x = em.result("llvm.extractvalue", elem, (acc,), {"position": ir.DenseI64ArrayAttr.get([i])})
        if plan.type_d == "f32":
            x = em.result("llvm.bitcast", I32(), (x,))
        em.store(x, em.gep(words, 4 * w), align=4)
    return plan


def _mma_asm(em, plan, s, struct, elem, acc, a, b_desc, scale_d):
    """One wgmma.mma_async as llvm.inline_asm: `a` is [the A descriptor] (i64) or A's four registers (i32,
    the RS form); `scale_d` an i1 (computed accumulate) or i32 value, set into the scale-d predicate."""
    n = len(plan.words)
    d = ", ".join(f"${i}" for i in range(n))
    regs = plan.a is None
    a_text = "{" + ", ".join(f"${2 * n + i}" for i in range(4)) + "}" if regs else f"${2 * n}"
    nb, np_ = 2 * n + len(a), 2 * n + len(a) + 1  # operand numbers of b-desc and of the scale-d value
    # the operands after scale-d (PTX ISA, wgmma.mma_async syntax): imm-scale-a, imm-scale-b for floating-point
    # types, then imm-trans-a (not in the RS form), imm-trans-b for f16 and bf16 only; none for the integers
    imms = [] if plan.type_d == "s32" else [1, 1]
    if plan.type_a in ("f16", "bf16"):
        imms += ([] if regs else [int(plan.a.major != "K")]) + [int(plan.b.major != "K")]
    asm = (f"{{\n.reg .pred p;\nsetp.ne.b32 p, ${np_}, 0;\n"
           f"wgmma.mma_async.sync.aligned.m64n{plan.n}k{plan.k_step}.{plan.type_d}.{plan.type_a}.{plan.type_b} "
           f"{{{d}}}, {a_text}, ${nb}, {', '.join(['p'] + [str(v) for v in imms])};\n}}\n")
    reg = "f" if plan.type_d == "f32" else "r"
    constraints = ",".join([f"={reg}"] * n + [str(i) for i in range(n)] + ["r"] * 4 * regs + ["l"] * (not regs)
                           + ["l", "r"])
    words = [em.result("llvm.extractvalue", elem, (acc,), {"position": ir.DenseI64ArrayAttr.get([i])})
             for i in range(n)]
    computed = ir.IntegerType(scale_d.type).width == 1
    flag = em.zext(scale_d, I32()) if computed else scale_d
    return em.result("llvm.inline_asm", struct, (*words, *a, b_desc, flag), {
        "asm_string": ir.StringAttr.get(asm), "constraints": ir.StringAttr.get(constraints),
        "has_side_effects": ir.UnitAttr.get(),
        "tile.mma": ir.StringAttr.get(_describe(plan, s) + (" scale-d=accumulate" if computed else ""))})


def _describe(plan, s: int) -> str:
    """The `tile.mma` attribute of K-step s: its descriptors' fields."""
    a = f"regs words={list(plan.a_words[s])}" if plan.a is None else plan.a.describe(s)
    return f"step={s} a=({a}) b=({plan.b.describe(s)})"


register_dispatch(
    "gemm_async", "cuda", variant="wgmma", priority=10,
    when=[predicate("validate_wgmma", validate_wgmma)],
)(gemm_wgmma)
