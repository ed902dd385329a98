"""The fences the PTX memory model requires, added by convert-tile-to-nvvm where a program lacks them.

Which a kernel needs follows from the traits of what it contains, lowered or not: its tile ops (by their
OpSpec traits) and the NVVM ops the copy_async variants emitted before this pass (by _nvvm_traits).

- Trait.TCGEN05 anywhere in the kernel: tcgen05 ops before a thread sync need
  tcgen05.fence::before_thread_sync, those after it tcgen05.fence::after_thread_sync (also after an
  mbarrier wait, for the tcgen05 ops the barrier tracked).
- Trait.READS_SHARED_ASYNC_PROXY anywhere in the kernel: shared memory written through the generic proxy
  (ordinary stores of tile.copy, cp.async completed by tile.async_wait) needs fence.proxy.async before
  an async-proxy read (tcgen05.cp) sees it.

Each is added unless the program has that tile.fence right there.
"""
from __future__ import annotations

from functools import lru_cache

from ..dialect.ir_utils import iter_ops
from ..dialect.ops import Trait, attr_value, spec_of

__all__ = ["KernelFences", "proxy_fence", "tcgen05_fence"]

# NVVM ops that read shared memory through the async proxy (PTX: tcgen05.cp reads its source by descriptor)
_ASYNC_PROXY_SHARED_READERS = frozenset({"nvvm.tcgen05.cp", "nvvm.cp.async.bulk.tensor.global.shared.cta",
                                         # MMAs read A and B by descriptor (docs/gemm.md §1)
                                         "nvvm.tcgen05.mma", "nvvm.tcgen05.mma.block_scale", "nvvm.wgmma.mma_async"})


@lru_cache(maxsize=None)
def _traits(name: str) -> frozenset[Trait]:
    spec = spec_of(name)
    return spec.traits if spec is not None else _nvvm_traits(name)


def _nvvm_traits(name: str) -> frozenset[Trait]:
    traits = set()
    if name.startswith("nvvm.tcgen05."):
        traits.add(Trait.TCGEN05)
    if name in _ASYNC_PROXY_SHARED_READERS:
        traits.add(Trait.READS_SHARED_ASYNC_PROXY)
    return frozenset(traits)


# (NVVM ops are created generically, like the emitter's: the generated builders cost 2-4x)
def proxy_fence(em) -> None:
    """fence.proxy.async.shared::cta"""
    em.create("nvvm.fence.proxy", attrs={"kind": em.attr("#nvvm.proxy_kind<async.shared>"),
                                         "space": em.attr("#nvvm.shared_space<cta>")})


def tcgen05_fence(em, which: str) -> None:
    """tcgen05.fence::before_thread_sync (which = "before") or ::after_thread_sync ("after")"""
    em.create("nvvm.tcgen05.fence", attrs={"kind": em.attr(f"#nvvm.tcgen05_fence<{which}>")})


class KernelFences:
    """The fences one kernel (an llvm.func holding its ops, not yet lowered) needs around its ops."""

    def __init__(self, func):
        self.ops = iter_ops(func)  # every op nested in func, in pre-order
        traits = frozenset().union(*map(_traits, {op.name for op in self.ops}))
        self.tcgen05 = Trait.TCGEN05 in traits
        self.async_proxy_reads = Trait.READS_SHARED_ASYNC_PROXY in traits
        self._neighbours = _neighbours(self.ops)

    def before_thread_sync(self, op, em) -> None:
        if self.tcgen05 and not self._next_to_fence(op, -1, "tcgen05_before_sync"):
            tcgen05_fence(em, "before")

    def after_thread_sync(self, op, em) -> None:
        if self.tcgen05 and not self._next_to_fence(op, +1, "tcgen05_after_sync"):
            tcgen05_fence(em, "after")

    def after_generic_shared_writes(self, op, em) -> None:
        """After op's generic-proxy writes of shared memory, when the kernel has async-proxy readers."""
        if self.async_proxy_reads and not self._next_to_fence(op, +1, "proxy_async"):
            proxy_fence(em)

    def _next_to_fence(self, op, step: int, kind: str) -> bool:
        """Whether the op right before (step -1) or after (+1) `op` in its block is tile.fence {kind}."""
        n = self._neighbours[op][step > 0]
        return n is not None and n.name == "tile.fence" and attr_value(n, "kind") == kind


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
