"""copy_async variants `tmem->reg` (`tcgen05.ld`) and `reg->tmem` (`tcgen05.st`), issued by whole warps.

copy_async, not copy: both instructions complete asynchronously (PTX ISA "tcgen05.wait"). A use of a
loaded register is ordered by its dependency, but an ld's reads and an st's writes of tensor memory are
ordered against later tcgen05 operations and other threads only by `tcgen05.wait::ld` / `wait::st`
(docs/tcgen05.md §11). This variant places the wait itself, once, before the first later op of the
block that needs it (WAIT_ANCHORS, docs/registers.md §5), so several loads share one wait.

The plan (all layout analysis and validation, steps A-F) is tcgen05_ldst_plan.plan_tcgen05_ldst; here:
  - predicates `validate_tmem_reg_copy` and `exec_scope` decide whether a variant applies;
  - G. each warp adds its lane quarter, 32 (warp % 4), to the lane field of the tmem buffer's address
    (the absolute lane, as CUTLASS passes it; docs/emulator.md A13), plus each instruction's lane
    offset and column (add, never OR);
  - H. register i of an instruction is word regs[i] of the register tile (an i32 alloca that
    convert-tile-to-nvvm makes, which LLVM promotes to registers: every index is static);
  - I. warps that hold none of the tile skip the instructions (a warp-uniform branch), so a CTA larger
    than the tile's warps neither reads nor writes tensor memory for it.
"""
from __future__ import annotations

import math

from ...dialect.decline import cached_plan
from ...dialect.enums import MemScope, Scope
from ...dialect.ir_utils import iter_ops
from ...dialect.ops import CopyAsyncOp
from ...dialect.ops.tmem import has_tmem_address
from ...dialect.types import BufferType
from ..dispatch import predicate, register_dispatch
from ...mlir import ir
from .. import nvvm_ir
from ..copy_loop import linear_tid
from ..emitter import I32, Emitter
from .kernel_info import kernel_block
from .tcgen05_ldst_plan import instruction_registers, plan_tcgen05_ldst

__all__ = ["validate_tmem_reg_copy", "exec_scope", "copy_async_tmem_reg", "WAIT_ANCHORS"]

# Ops before which a pending ld / st must have completed, besides users of the register tile: thread
# syncs (another thread may read what an st wrote, or overwrite what an ld reads), tensor-memory writers
# and frees, and the end of the kernel.
_SYNCS = ("tile.barrier", "tile.named_barrier.sync", "tile.named_barrier.arrive", "tile.mbarrier.arrive",
          "tile.mbarrier.wait")
WAIT_ANCHORS = {
    "ld": _SYNCS + ("tile.commit", "tile.tmem.dealloc", "tile.return"),
    "st": _SYNCS + ("tile.commit", "tile.tmem.dealloc", "tile.tmem.load", "tile.return"),
}


def _direction(ctx) -> str | None:
    scopes = (ctx.src_t.scope, ctx.dst_t.scope)
    return {(MemScope.TMEM, MemScope.REG): "ld", (MemScope.REG, MemScope.TMEM): "st"}.get(scopes)


def validate_tmem_reg_copy(op, ctx, want: str):
    if _direction(ctx) != want:
        need = "tmem -> reg" if want == "ld" else "reg -> tmem"
        return False, f"requires {need}, got {ctx.src_t.scope} -> {ctx.dst_t.scope}"
    tmem = ctx.src if want == "ld" else ctx.dst
    if not has_tmem_address(tmem):
        return False, ("requires the tmem buffer's address (a tile.tmem.buffer over a tile.tmem.alloc slot, or a "
                       "tile.ring.stage of them)")
    if not ctx.target.has_tcgen05:
        return False, f"tcgen05.{want} needs an sm_100a-family target, not {ctx.target.arch}"
    return True, ""


def exec_scope(op, ctx):
    if ctx.scope not in (Scope.WARP, Scope.WARPGROUP):
        return False, (f"tcgen05.ld/st are issued by whole warps (scope = \"warp\" or \"warpgroup\"), got "
                       f"scope = \"{ctx.scope}\"")
    return True, ""


@cached_plan(maxsize=4096)
def _cached_plan(tmem_t, tmem_region, reg_t, reg_region, scope, max_registers):
    return plan_tcgen05_ldst(tmem_t.layout, tmem_t.shape, tmem_region, reg_t.layout, reg_t.shape, reg_region,
                             reg_t.elem_bits, scope, max_registers)


def _plan(op, ctx, direction):
    if direction == "ld":
        key = (ctx.src_t, ctx.src_region, ctx.dst_t, ctx.dst_region, ctx.scope)
    else:
        key = (ctx.dst_t, ctx.dst_region, ctx.src_t, ctx.src_region, ctx.scope)
    return _cached_plan(*key, instruction_registers(math.prod(kernel_block(op))))


def _after(ctx, value, key):
    """The lowered value of `value` (a tile buffer), emitted once right after the op defining it."""
    lowered = ctx.cache.get((key, value))
    if lowered is None:
        owner = value.owner
        em = Emitter(ir.InsertionPoint.after(owner), owner.location, ctx.cache.setdefault("attrs", {}))
        lowered = ctx.cache[(key, value)] = ctx.values.get(value, em)
    return lowered


def _wait_anchor(op, direction: str, reg, tmem):
    """The first later op of op's block that must see the ld/st complete, itself or an op in its regions:
    a WAIT_ANCHORS op, a user of the register tile, or a user of the tmem buffer (an MMA or cp writing
    what an ld read, a reader of what an st wrote) other than a further ld of it; else the block's
    terminator. None when a wait of the same kind placed by an earlier ld/st comes first: it covers this
    one too (a wait waits for all of the thread's earlier lds, or sts)."""
    anchors = WAIT_ANCHORS[direction]
    later = [o.operation for o in op.operation.block.operations]
    later = later[later.index(op.operation) + 1:]
    for cur in later:
        if cur.name == "nvvm.tcgen05.wait" and str(cur.attributes["kind"]).endswith(f"<{_WAIT_KIND[direction]}>"):
            return None
        for o in [cur] + iter_ops(cur):
            operands = list(o.operands)
            if o.name in anchors or reg in operands:
                return cur
            if tmem in operands and not (direction == "ld" and _is_tmem_to_reg_load(o, tmem)):
                return cur
    return later[-1]


def _is_tmem_to_reg_load(o, tmem) -> bool:
    """Whether op `o` is a further tile.copy_async from `tmem` to registers (a later ld needs no wait)."""
    if o.name != CopyAsyncOp.OPERATION_NAME:
        return False
    copy = CopyAsyncOp(o)
    return copy.src == tmem and BufferType.of(copy.dst.type).scope == MemScope.REG


_WAIT_KIND = {"ld": "load", "st": "store"}


def _place_wait(ctx, op, direction, reg, tmem):
    anchor = _wait_anchor(op, direction, reg, tmem)
    if anchor is None:
        return
    em = Emitter(ir.InsertionPoint(anchor), op.location, ctx.cache.setdefault("attrs", {}))
    nvvm_ir.tcgen05_wait(em, _WAIT_KIND[direction])


def copy_async_tmem_reg(op, ctx, direction: str):
    plan = _plan(op, ctx, direction)
    tmem, reg = (ctx.src, ctx.dst) if direction == "ld" else (ctx.dst, ctx.src)
    taddr = _after(ctx, tmem, "tmem_address")
    regs = _after(ctx, reg, "reg_pointer")
    em = Emitter(ir.InsertionPoint(op), op.location, ctx.cache.setdefault("attrs", {}))
    block = kernel_block(op)
    warp = em.shr(linear_tid(em, block), em.i32(5))
    if block[0] * block[1] * block[2] > 32 * len(plan.warps) or plan.warps[0] != 0:
        # I: only the tile's warps issue (warp - first < count, unsigned)
        inside = em.cmp("ult", em.sub(warp, em.i32(plan.warps[0])), em.i32(len(plan.warps)))
        with em.if_(inside):
            _emit(em, plan, direction, taddr, regs, warp)
    else:
        _emit(em, plan, direction, taddr, regs, warp)
    _place_wait(ctx, op, direction, reg, tmem)
    return plan


def _emit(em, plan, direction, taddr, regs, warp):
    # G: the absolute lane field, 32 * (warp % 4), in bits 16..31 of the address
    quarter = em.add(taddr, em.shl(em.and_(warp, em.i32(3)), em.i32(21)))
    shape = nvvm_ir.tcgen05_ldst_shape(em, plan.shape)
    for ins in plan.instrs:
        field = (ins.lane_offset << 16) + ins.col
        tptr = em.inttoptr(em.add(quarter, em.i32(field)) if field else quarter, 6)
        attrs = {"shape": shape}
        # one register is an i32, more a vector (the NVVM ops take no vector<1xi32>)
        vt = ir.VectorType.get([len(ins.regs)], I32()) if len(ins.regs) > 1 else I32()
        imm = [em.i64(ins.imm)] if plan.shape == "16x32bx2" else []
        if direction == "ld":
            if plan.pack:
                attrs["pack"] = ir.UnitAttr.get()
            v = nvvm_ir.tcgen05_ld(em, [tptr] + imm, vt, attrs)
            for i, word in enumerate(ins.regs):  # H
                x = v if vt == I32() else em.result("llvm.extractelement", I32(), (v, em.i32(i)))
                em.store(x, em.gep(regs, 4 * word), align=4)
        else:
            words = [em.load(I32(), em.gep(regs, 4 * word), align=4) for word in ins.regs]  # H
            v = words[0] if vt == I32() else em.result("llvm.mlir.poison", vt)
            for i, x in enumerate(words if vt != I32() else ()):
                v = em.result("llvm.insertelement", vt, (v, x, em.i32(i)))
            if plan.pack:
                attrs["unpack"] = ir.UnitAttr.get()
            nvvm_ir.tcgen05_st(em, [tptr, v] + imm, attrs)


register_dispatch(
    "copy_async", "cuda", variant="tmem->reg", priority=10, moves=[(MemScope.TMEM, MemScope.REG)],
    when=[predicate("validate_tmem_reg_copy", lambda op, ctx: validate_tmem_reg_copy(op, ctx, "ld")),
          predicate("exec_scope", exec_scope)],
)(lambda op, ctx: copy_async_tmem_reg(op, ctx, "ld"))

register_dispatch(
    "copy_async", "cuda", variant="reg->tmem", priority=10, moves=[(MemScope.REG, MemScope.TMEM)],
    when=[predicate("validate_tmem_reg_copy", lambda op, ctx: validate_tmem_reg_copy(op, ctx, "st")),
          predicate("exec_scope", exec_scope)],
)(lambda op, ctx: copy_async_tmem_reg(op, ctx, "st"))
