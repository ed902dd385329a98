"""Lowerings of fences, barriers, mbarriers and the waits of bulk copies and cp.async.
(NVVM ops are created generically, like the emitter's: the generated builders cost 2-4x.)"""
from __future__ import annotations

from ...dialect.enums import BulkWaitKind, FenceKind, Scope
from ...dialect.ops import (AsyncWaitOp, BarrierOp, BulkWaitOp, FenceOp, MbarrierArriveExpectTxOp, MbarrierArriveOp,
                            MbarrierExpectTxOp, MbarrierInitOp, MbarrierWaitOp)
from ...mlir import ir, operand_segments
from ..emitter import I1, I32, I64
from ..fences import proxy_fence, tcgen05_fence
from .registry import lowers

# one emitter per kind: a kind missing here is a KeyError, never a default (the verifier admits FenceKind only)
_FENCES = {
    FenceKind.PROXY_ASYNC: proxy_fence,
    FenceKind.MBARRIER_INIT: lambda em: em.create("nvvm.fence.mbarrier.init"),
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
        em.create("nvvm.cluster.arrive", attrs={"aligned": ir.UnitAttr.get()})
        em.create("nvvm.cluster.wait", attrs={"aligned": ir.UnitAttr.get()})
    else:
        em.create("nvvm.barrier0")
    k.fences.after_thread_sync(op, em)


@lowers(MbarrierInitOp)
def _mbarrier_init(k, op, em):
    em.create("nvvm.mbarrier.init", operands=[k.buffers.get(op.barrier), em.i32(op.count)],
              attrs=operand_segments("nvvm.mbarrier.init", [1, 1, 0]))


@lowers(MbarrierArriveOp)
def _mbarrier_arrive(k, op, em):
    bar = k.buffers.get(op.barrier)
    if op.cta is None:
        em.create("nvvm.mbarrier.arrive", operands=[bar], results=[I64()],
                  attrs=operand_segments("nvvm.mbarrier.arrive", [1, 0, 0]))
        return
    # a .shared::cluster arrive returns no state (PTX ISA "mbarrier.arrive"): the NVVM op without a result
    remote = em.result("nvvm.mapa", em.ptr(7), (bar, op.cta))
    em.create("nvvm.mbarrier.arrive", operands=[remote], attrs=operand_segments("nvvm.mbarrier.arrive", [1, 0, 0]))


@lowers(MbarrierWaitOp)
def _mbarrier_wait(k, op, em):
    bar = k.buffers.get(op.barrier)
    phase = op.phase

    def try_wait(e):
        return e.create("nvvm.mbarrier.try_wait", operands=[bar, e.i32(phase)], results=[I1()],
                        attrs=operand_segments("nvvm.mbarrier.try_wait", [1, 1, 0])).results[0]

    em.spin_until(try_wait)
    k.fences.after_thread_sync(op, em)  # consumers of the tcgen05 ops the barrier tracked


def _expect_tx(name: str):
    def lower(k, op, em):
        em.create(name, operands=[k.buffers.get(op.barrier), em.i32(op.bytes)],
                  attrs=operand_segments(name, [1, 1, 0, 0]))
    return lower


lowers(MbarrierArriveExpectTxOp)(_expect_tx("nvvm.mbarrier.arrive.expect_tx"))
lowers(MbarrierExpectTxOp)(_expect_tx("nvvm.mbarrier.expect_tx"))


@lowers(BulkWaitOp)
def _bulk_wait(k, op, em):
    attrs = {"group": ir.IntegerAttr.get(I32(), op.pending)}
    if op.kind == BulkWaitKind.READ:
        attrs["read"] = ir.UnitAttr.get()
    em.create("nvvm.cp.async.bulk.wait_group", attrs=attrs)


@lowers(AsyncWaitOp)
def _async_wait(k, op, em):
    em.create("nvvm.cp.async.wait.group", attrs={"n": ir.IntegerAttr.get(I32(), 0)})
    k.fences.after_generic_shared_writes(op, em)  # cp.async writes shared memory through the generic proxy
