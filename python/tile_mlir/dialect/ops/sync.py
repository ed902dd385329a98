"""Ordering and waiting: fences, barriers, mbarriers, and the waits of bulk copies and cp.async."""
from __future__ import annotations

from ..checks import buffer_type, check_slot
from ..decline import fail
from ..enums import BulkWaitKind, FenceKind, MemScope, Parity, Scope
from ..ir_utils import constant_int
from ..op_def import I64, Attr, BufferOf, Emits, Operand, Result, TileOp, TypeIs, Writes

__all__ = ["FenceOp", "BarrierOp", "NamedBarrierSyncOp", "NamedBarrierArriveOp", "check_named_barrier", "MbarrierArriveExpectTxOp", "MbarrierExpectTxOp", "BulkWaitOp", "AsyncWaitOp",
           "MbarrierInitOp", "MbarrierArriveOp", "MbarrierWaitOp", "SemaphoreArriveOp"]


class FenceOp(TileOp, name="fence"):
    """A memory fence: proxy_async (fence.proxy.async.shared::cta, after generic stores that an async-proxy
    read consumes), tcgen05_before_sync / tcgen05_after_sync, mbarrier_init."""

    kind = Attr(FenceKind, required=True)
    TRAITS = (Emits("nvvm.fence.proxy", "fence.proxy.async"), Emits("nvvm.tcgen05.fence", ("tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync")),
              Emits("nvvm.fence.mbarrier.init", "fence.mbarrier_init"))


class BarrierOp(TileOp, name="barrier"):
    """Thread barrier of the CTA (bar.sync 0) or of the cluster."""

    scope = Attr(Scope, default=Scope.CTA, choices=(Scope.CTA, Scope.CLUSTER))
    TRAITS = (Emits("nvvm.barrier0", "bar.sync"), Emits("nvvm.cluster.arrive", "barrier.cluster.arrive"),
              Emits("nvvm.cluster.wait", "barrier.cluster.wait"))


NAMED_BARRIERS = 16  # per CTA (PTX ISA "bar, barrier": a in [0, 15])


def check_named_barrier(bid: int, count: int | None, threads: int | None = None) -> None:
    """A named barrier: id in [0, 16), count a positive multiple of 32 (whole warps: PTX ISA "bar, barrier")
    and at most the CTA's threads."""
    if not 0 <= bid < NAMED_BARRIERS:
        fail("barrier-id", f"barrier id {bid} is not in [0, {NAMED_BARRIERS}): a CTA has {NAMED_BARRIERS} named "
             "barriers")
    if count is not None and (count <= 0 or count % 32):
        fail("barrier-count", f"thread count {count} is not a positive multiple of 32 (whole warps)")
    if count is not None and threads is not None and count > threads:
        fail("barrier-count", f"thread count {count} is more than the CTA's {threads} threads: the barrier would "
             "never complete")


class _NamedBarrier(TileOp, name=None):
    """(the fields of the named barriers; not an op) barrier id + id_offset (an optional i32 value: one
    barrier per warpgroup, say), count threads (a multiple of 32)."""

    id_offset = Operand(TypeIs("i32"), optional=True)
    id = Attr(I64, required=True)

    def verify(self, kernel) -> None:
        bid = self.id
        offset = constant_int(self.id_offset) if self.id_offset is not None else 0
        if offset is not None:
            bid += offset
        check_named_barrier(bid, self.count, kernel.threads)


class NamedBarrierSyncOp(_NamedBarrier, name="named_barrier.sync"):
    """bar.sync id, count: wait until `count` threads (all the CTA's when absent) have arrived at named
    barrier id (+ id_offset); the ordering between warpgroups of a warp-specialised kernel."""

    count = Attr(I64)
    TRAITS = (Emits("nvvm.barrier", "bar.sync"),)


class NamedBarrierArriveOp(_NamedBarrier, name="named_barrier.arrive"):
    """bar.arrive id, count: arrive at named barrier id (+ id_offset) without waiting (a producer's signal
    to the warps that bar.sync on it)."""

    count = Attr(I64, required=True)
    TRAITS = (Emits("nvvm.barrier.arrive", "bar.arrive"),)


def _barrier_operand(op) -> None:
    check_slot(op.barrier, 64, "operand #0 (barrier)")


class _ExpectTx(TileOp, name=None):
    """(the shared fields of mbarrier.arrive_expect_tx and mbarrier.expect_tx; not an op)"""

    barrier = Operand(BufferOf(MemScope.SHARED))
    bytes = Attr(I64, required=True)

    def verify(self, kernel) -> None:
        _barrier_operand(self)
        n = self.bytes
        if not 0 <= n < (1 << 20):
            fail("mbarrier", f"bytes must be in [0, 2^20 - 1] (the mbarrier tx-count range), got {n}")
        from ..tx_checks import check_expect_tx  # (the TMA loads it pairs with: their boxes' bytes)
        check_expect_tx(self.operation)


class MbarrierArriveExpectTxOp(_ExpectTx, name="mbarrier.arrive_expect_tx"):
    """mbarrier.arrive.expect_tx: raise the barrier's tx-count by `bytes`, then arrive (the producer of TMA
    loads completing on it)."""

    TRAITS = (Emits("nvvm.mbarrier.arrive.expect_tx", "mbarrier.arrive.expect_tx"),)


class MbarrierExpectTxOp(_ExpectTx, name="mbarrier.expect_tx"):
    """mbarrier.expect_tx: raise the barrier's tx-count by `bytes`, without arriving."""

    TRAITS = (Emits("nvvm.mbarrier.expect_tx", "mbarrier.expect_tx"),)


class BulkWaitOp(TileOp, name="bulk_wait"):
    """cp.async.bulk.wait_group{.read} pending: wait until at most `pending` of this thread's bulk groups
    (TMA stores) are pending; kind "read" waits only until their sources were read."""

    pending = Attr(I64, default=0)
    kind = Attr(BulkWaitKind, default=BulkWaitKind.ALL)
    TRAITS = (Emits("nvvm.cp.async.bulk.wait_group", "cp.async.bulk.wait_group"),)

    def verify(self, kernel) -> None:
        n = self.pending
        if not 0 <= n <= 63:
            fail("bulk-wait", f"pending must be in [0, 63], got {n}")


class AsyncWaitOp(TileOp, name="async_wait"):
    """Wait for this thread's cp.async copies (cp.async.wait_all)."""

    TRAITS = (Emits("nvvm.cp.async.wait.group", "cp.async.wait_group"),)


class MbarrierInitOp(TileOp, name="mbarrier.init"):
    """mbarrier.init with the expected arrival count."""

    barrier = Operand(BufferOf(MemScope.SHARED))
    count = Attr(I64, required=True)
    TRAITS = (Emits("nvvm.mbarrier.init", "mbarrier.init"),)

    def verify(self, kernel) -> None:
        _barrier_operand(self)
        count = self.count
        if not 1 <= count < (1 << 20):
            fail("mbarrier", f"count must be in [1, 2^20 - 1], got {count}")


class MbarrierArriveOp(TileOp, name="mbarrier.arrive"):
    """mbarrier.arrive by the executing thread; with `cta`, on the mbarrier at the same offset in CTA `cta` of
    the cluster (mapa, then mbarrier.arrive.shared::cluster, which returns no state): a consumer releasing a
    stage that a peer's multicast load writes (docs/tma.md §9)."""

    barrier = Operand(BufferOf(MemScope.SHARED))
    cta = Operand(TypeIs("i32"), optional=True)
    TRAITS = (Emits("nvvm.mbarrier.arrive", "mbarrier.arrive"), Emits("nvvm.mapa", "mapa"))

    def verify(self, kernel) -> None:
        _barrier_operand(self)
        rank = constant_int(self.cta) if self.cta is not None else None
        if rank is not None and not 0 <= rank < kernel.cluster_size:
            fail("cluster-rank", f"operand #1 (cta) is CTA rank {rank}, beyond the cluster of {kernel.cluster_size}")


class MbarrierWaitOp(TileOp, name="mbarrier.wait"):
    """Spin on mbarrier.try_wait.parity until the phase with parity `phase` completes."""

    barrier = Operand(BufferOf(MemScope.SHARED))
    phase = Attr(Parity, default=Parity.EVEN)
    TRAITS = (Emits("nvvm.mbarrier.try_wait", ("mbarrier.try_wait", "bra", "setp", "selp")),)

    def verify(self, kernel) -> None:
        _barrier_operand(self)


class SemaphoreArriveOp(TileOp, name="semaphore.arrive"):
    """`count` threads (consecutive, the first a multiple of `count`: a warp, a warpgroup, the CTA) arrive
    together at a counting semaphore in global memory, `counter` (one i32, zero before its first round):
    each releases its earlier writes at gpu scope (fence.acq_rel.gpu), they meet at named barrier `id`
    (bar.sync), their first thread increments the counter modulo `arrivals` (atom.global.inc: the
    arrivals-th arrival reads arrivals - 1 and leaves 0 for the next round) and acquires at gpu scope, and
    bar.red.or.pred gives every thread `last`: whether theirs was the round's last arrival, whose threads
    may then read every earlier arrival's released writes (a split tile's fix-up: docs/gemm-library.md §3)."""

    counter = Operand(BufferOf(MemScope.GLOBAL))
    arrivals = Operand(TypeIs("i32"))
    id = Attr(I64, required=True)
    count = Attr(I64, required=True)
    last = Result(TypeIs("i1"))
    TRAITS = (Writes("counter"), Emits("llvm.fence", "fence"), Emits("nvvm.barrier", "bar.sync"),
              Emits("llvm.inline_asm", "bar.red"),
              Emits("llvm.atomicrmw", "atom"))

    def verify(self, kernel) -> None:
        bt = buffer_type(self.counter, "operand #0 (counter)")
        if bt.shape != (1,) or bt.elem != "i32":
            fail("operand-type", f"operand #0 (counter) must be a global 1xi32 buffer, got {bt}")
        check_named_barrier(self.id, self.count, kernel.threads)
