"""The fences the PTX memory model requires, added by convert-tile-to-nvvm where a program lacks them.

Which a kernel needs follows from the traits of what it contains, lowered or not: its tile ops (their
classes' traits) and the NVVM ops the dispatch variants emitted before this pass (the traits of the Emits
records of the op classes that emit them: _NVVM_TRAITS).

- Trait.TCGEN05 anywhere in the kernel: tcgen05 ops before a thread sync need
  tcgen05.fence::before_thread_sync, those after it tcgen05.fence::after_thread_sync (also after an
  mbarrier wait, for the tcgen05 ops the barrier tracked).
- Trait.READS_SHARED_ASYNC_PROXY anywhere in the kernel: shared memory written through the generic proxy
  (ordinary stores of tile.copy, cp.async completed by tile.async_wait) needs fence.proxy.async before
  an async-proxy read (tcgen05.cp) sees it.
- Every kernel: an mbarrier's initialisation must be made visible (to the async proxy that completes TMA
  transactions on it and to the cluster's other CTAs) before it is used: fence.mbarrier_init.release.cluster
  after the last tile.mbarrier.init of a run (the inits one after another in a block; arith ops between
  them do not end a run), as CUTLASS's fence_barrier_init follows its barrier inits.

Each is added unless the program has that tile.fence right there.
"""
from __future__ import annotations

from functools import lru_cache

from ..dialect.enums import FenceKind
from ..dialect.ir_utils import iter_ops
from ..dialect.ops import OP_CLASSES, FenceOp, MbarrierInitOp, Trait, spec_of
from . import nvvm_ir

__all__ = ["KernelFences", "proxy_fence", "tcgen05_fence"]

_NVVM_TRAITS: dict[str, frozenset[Trait]] = {}
for _cls in OP_CLASSES:
    for _e in _cls.SPEC.emits:
        if _e.nvvm is not None:
            _NVVM_TRAITS[_e.nvvm] = _NVVM_TRAITS.get(_e.nvvm, frozenset()) | _e.traits


@lru_cache(maxsize=None)
def _traits(name: str) -> frozenset[Trait]:
    spec = spec_of(name)
    return spec.traits if spec is not None else _NVVM_TRAITS.get(name, frozenset())


def proxy_fence(em) -> None:
    """fence.proxy.async.shared::cta"""
    nvvm_ir.fence_proxy_async_shared(em)


def tcgen05_fence(em, kind: FenceKind) -> None:
    """tcgen05.fence::before_thread_sync (TCGEN05_BEFORE_SYNC) or ::after_thread_sync (TCGEN05_AFTER_SYNC)"""
    nvvm_ir.tcgen05_fence(em, kind)


class KernelFences:
    """The fences one kernel (an llvm.func holding its ops, not yet lowered) needs around its ops."""

    def __init__(self, func):
        self.ops = iter_ops(func)  # every op nested in func, in pre-order
        traits = frozenset().union(*map(_traits, {op.name for op in self.ops}))
        self.tcgen05 = Trait.TCGEN05 in traits
        self.async_proxy_reads = Trait.READS_SHARED_ASYNC_PROXY in traits
        self._neighbours = _neighbours(self.ops)
        self._following = _following(self.ops)

    def before_thread_sync(self, op, em) -> None:
        if self.tcgen05 and not self._next_to_fence(op, -1, FenceKind.TCGEN05_BEFORE_SYNC):
            tcgen05_fence(em, FenceKind.TCGEN05_BEFORE_SYNC)

    def after_thread_sync(self, op, em) -> None:
        if self.tcgen05 and not self._next_to_fence(op, +1, FenceKind.TCGEN05_AFTER_SYNC):
            tcgen05_fence(em, FenceKind.TCGEN05_AFTER_SYNC)

    def after_generic_shared_writes(self, op, em) -> None:
        """After op's generic-proxy writes of shared memory, when the kernel has async-proxy readers."""
        if self.async_proxy_reads and not self._next_to_fence(op, +1, FenceKind.PROXY_ASYNC):
            proxy_fence(em)

    def after_mbarrier_init(self, op, em) -> None:
        """After the last tile.mbarrier.init of a run, unless the program's next tile op is that fence."""
        n = self._neighbours[op.operation][1]
        while n is not None and n.name.startswith("arith."):  # (constants, index math: no barrier use)
            n = self._following.get(n)
        if n is None or n.name not in (MbarrierInitOp.OPERATION_NAME, FenceOp.OPERATION_NAME) or (
                n.name == FenceOp.OPERATION_NAME and FenceOp(n).kind != FenceKind.MBARRIER_INIT):
            nvvm_ir.fence_mbarrier_init(em)

    def _next_to_fence(self, op, step: int, kind: FenceKind) -> bool:
        """Whether the op right before (step -1) or after (+1) `op` in its block is tile.fence {kind}."""
        n = self._neighbours[op.operation][step > 0]
        return n is not None and n.name == FenceOp.OPERATION_NAME and FenceOp(n).kind == kind


def _following(ops: list) -> dict:
    """{op: the op after it in its block, or None} for every op (pre-order lists each block's ops in order)."""
    last: dict = {}  # block -> its op seen last
    following: dict = {}
    for op in ops:
        prev = last.get(op.block)
        if prev is not None:
            following[prev] = op
        following.setdefault(op, None)
        last[op.block] = op
    return following


def _neighbours(ops: list) -> dict:
    """{tile op: (op before it, op after it) in its block} for ops in pre-order.

    The neighbours stay those of the program while it is lowered, since each lowering inserts only
    before the op it lowers (and erasing waits until the end)."""
    blocks: dict = {}  # block -> its ops in order (a pre-order walk lists each block's ops in order)
    for op in ops:
        blocks.setdefault(op.block, []).append(op)
    neighbours: dict = {}
    for block_ops in blocks.values():
        for i, op in enumerate(block_ops):
            if op.name.startswith("tile."):
                neighbours[op] = (block_ops[i - 1] if i else None,
                                  block_ops[i + 1] if i + 1 < len(block_ops) else None)
    return neighbours
