"""Lowerings of fences, barriers, mbarriers and the waits of bulk copies and cp.async (NVVM ops built by
lowering/nvvm_ir.py)."""
from __future__ import annotations

from ...dialect.enums import BulkWaitKind, FenceKind, Scope
from ...dialect.ops import (AsyncWaitOp, BarrierOp, BulkWaitOp, FenceOp, MbarrierArriveExpectTxOp, MbarrierArriveOp,
                            MbarrierExpectTxOp, MbarrierInitOp, MbarrierWaitOp, SemaphoreArriveOp)
from .. import nvvm_ir
from ...mlir import ir
from ..fences import proxy_fence, tcgen05_fence
from .registry import lowers

# one emitter per kind: a kind missing here is a KeyError, never a default (the verifier admits FenceKind only)
_FENCES = {
    FenceKind.PROXY_ASYNC: proxy_fence,
    FenceKind.MBARRIER_INIT: nvvm_ir.fence_mbarrier_init,
    FenceKind.TCGEN05_BEFORE_SYNC: lambda em: tcgen05_fence(em, FenceKind.TCGEN05_BEFORE_SYNC),
    FenceKind.TCGEN05_AFTER_SYNC: lambda em: tcgen05_fence(em, FenceKind.TCGEN05_AFTER_SYNC),
}
assert set(_FENCES) == set(FenceKind)


@lowers(FenceOp)
def _fence(k, op, em):
    _FENCES[op.kind](em)


@lowers(BarrierOp)
def _barrier(k, op, em):
    k.fences.before_thread_sync(op, em)
    if op.scope == Scope.CLUSTER:
        nvvm_ir.cluster_arrive_wait(em)
    else:
        nvvm_ir.barrier0(em)
    k.fences.after_thread_sync(op, em)


@lowers(MbarrierInitOp)
def _mbarrier_init(k, op, em):
    nvvm_ir.mbarrier_init(em, k.buffers.get(op.barrier), em.i32(op.count))
    k.fences.after_mbarrier_init(op, em)  # fence.mbarrier_init after the run's last init (docs/fences.md)


@lowers(MbarrierArriveOp)
def _mbarrier_arrive(k, op, em):
    bar = k.buffers.get(op.barrier)
    if op.cta is None:
        nvvm_ir.mbarrier_arrive(em, bar, state=True)
        return
    # a .shared::cluster arrive returns no state (PTX ISA "mbarrier.arrive"): the NVVM op without a result
    nvvm_ir.mbarrier_arrive(em, nvvm_ir.mapa(em, bar, op.cta), state=False)


@lowers(MbarrierWaitOp)
def _mbarrier_wait(k, op, em):
    bar = k.buffers.get(op.barrier)
    phase = op.phase

    def try_wait(e):
        return nvvm_ir.mbarrier_try_wait(e, bar, e.i32(phase))

    em.spin_until(try_wait)
    k.fences.after_thread_sync(op, em)  # consumers of the tcgen05 ops the barrier tracked


def _expect_tx(arrive: bool):
    def lower(k, op, em):
        nvvm_ir.mbarrier_expect_tx(em, k.buffers.get(op.barrier), em.i32(op.bytes), arrive=arrive)
    return lower


lowers(MbarrierArriveExpectTxOp)(_expect_tx(arrive=True))
lowers(MbarrierExpectTxOp)(_expect_tx(arrive=False))


@lowers(BulkWaitOp)
def _bulk_wait(k, op, em):
    nvvm_ir.cp_async_bulk_wait_group(em, op.pending, read=op.kind == BulkWaitKind.READ)


@lowers(AsyncWaitOp)
def _async_wait(k, op, em):
    nvvm_ir.cp_async_wait_group(em, 0)
    k.fences.after_generic_shared_writes(op, em)  # cp.async writes shared memory through the generic proxy


@lowers(SemaphoreArriveOp)
def _semaphore_arrive(k, op, em):
    """Release, meet, one atom.inc by the first of the `count` threads (acquiring after it), then bar.red.or to
    tell every thread whether the round is complete (dialect/ops/sync.py SemaphoreArriveOp)."""
    i1 = ir.IntegerType.get_signless(1)
    ptr = k.buffers.get(op.counter)
    bid, count = em.i32(op.id), em.i32(op.count)
    nvvm_ir.fence_acq_rel_gpu(em)
    k.fences.before_thread_sync(op, em)
    nvvm_ir.named_barrier(em, bid, count, arrive=False)
    first = em.cmp("eq", em.urem(k.tid(em), count), em.i32(0))
    bound = em.sub(op.arrivals, em.i32(1))
    branch = em.create("scf.if", operands=[first], results=[i1], regions=2)
    with em.at(ir.InsertionPoint(branch.regions[0].blocks.append())):
        old = nvvm_ir.atom_inc_global(em, ptr, bound)
        nvvm_ir.fence_acq_rel_gpu(em)
        em.create("scf.yield", operands=[em.cmp("eq", old, bound)])
    with em.at(ir.InsertionPoint(branch.regions[1].blocks.append())):
        em.create("scf.yield", operands=[em.const(0, i1)])
    last = nvvm_ir.barrier_red_or(em, bid, count, branch.results[0])
    k.fences.after_thread_sync(op, em)
    op.last.replace_all_uses_with(last)
