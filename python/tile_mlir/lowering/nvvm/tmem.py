"""Lowerings of tensor-memory allocation, tcgen05.commit, tile.tmem.load and wgmma.wait_group."""
from __future__ import annotations

from ...dialect.enums import Scope
from ...dialect.ops import CommitOp, GemmWaitOp, TmemAllocOp, TmemDeallocOp, TmemLoadOp, TmemRelinquishOp
from ...mlir import ir
from .. import nvvm_ir
from ..copy_async.tcgen05_ldst_plan import instruction_registers
from ..emitter import I32, int_type
from .registry import lowers


@lowers(TmemAllocOp)
def _tmem_alloc(k, op, em):
    nvvm_ir.tcgen05_alloc(em, k.buffers.get(op.slot), em.i32(op.num_cols), op.cta_group)


@lowers(TmemDeallocOp)
def _tmem_dealloc(k, op, em):
    addr = em.load(I32(), k.buffers.get(op.slot), align=4)
    nvvm_ir.tcgen05_dealloc(em, em.inttoptr(addr, 6), em.i32(op.num_cols), op.cta_group)


@lowers(TmemRelinquishOp)
def _tmem_relinquish(k, op, em):
    nvvm_ir.tcgen05_relinquish_alloc_permit(em, op.cta_group)


@lowers(CommitOp)
def _commit(k, op, em):
    bar = k.buffers.get(op.barrier)
    mask = op.multicast_mask
    operands = (bar,) if mask is None else (bar, em.const(mask, int_type(16)))
    nvvm_ir.tcgen05_commit(em, operands, op.cta_group)


@lowers(GemmWaitOp)
def _gemm_wait(k, op, em):
    """wgmma.wait_group.sync.aligned N: the gemm_async groups (lowering/gemm_async/wgmma.py) but N are done."""
    nvvm_ir.wgmma_wait_group(em, op.pending)


@lowers(TmemLoadOp)
def _tmem_load(k, op, em):
    """Each warp reads its lane quarter (tcgen05.ld.32x32b, at most 128 columns per instruction, fewer in
    a large CTA: instruction_registers), waits (tcgen05.wait::ld), and stores its lane's row."""
    dst = k.buffers.get(op.dst)
    base = k.buffers.get(op.src)
    n = op.num_cols
    tid = k.tid(em)
    warp_in_group = em.and_(em.shr(tid, em.i32(5)), em.i32(3))
    lane = em.and_(tid, em.i32(31))
    # absolute lane field (32 * warp quarter), as CUTLASS passes it; columns are added, never OR-ed
    quarter = em.add(base, em.shl(warp_in_group, em.i32(21)))
    row = lane if op.scope == Scope.WARP else em.add(em.shl(warp_in_group, em.i32(5)), lane)
    row_ptr = em.gep(dst, em.mul(row, em.i32(n * 4)))
    chunk = min(n, instruction_registers(k.block[0] * k.block[1] * k.block[2]))
    vt = ir.VectorType.get([chunk], I32())
    shape = nvvm_ir.tcgen05_ldst_shape(em, "32x32b")
    regs = []
    col_offset = op.col_offset
    for c0 in range(0, n, chunk):
        taddr = em.add(quarter, em.i32(col_offset + c0))
        regs.append(nvvm_ir.tcgen05_ld(em, [em.inttoptr(taddr, 6)], vt, {"shape": shape}))
    nvvm_ir.tcgen05_wait(em, "load")
    # global buffers are whole allocations (16-byte aligned, checked by the runtime): rows of n
    # columns start on min(16, 4n)-byte boundaries, which lets NVPTX use vector stores
    align = min(16, 4 * n)
    for i, v in enumerate(regs):
        em.store(v, em.gep(row_ptr, i * chunk * 4), align=align)
