"""The pass shape that tile-lower-copy-async and tile-lower-gemm-async share: each op named in `OPS`, in
program order, asks the dispatch registry (key `KEY`, target "cuda") for a variant, which emits the
instructions before it; the op is then erased. An op no variant takes stays, with one diagnostic that lists
each variant and why it declined, and the pass fails.

A walk, not a rewrite-pattern driver: the greedy driver revisits an op it failed on whenever an iteration
changed something, so one failing op next to a succeeding one was reported twice, and its worklist reported
several failures in reverse line order. Here each op is visited once, in order.
"""
from __future__ import annotations

from ..diagnostics import error
from ..dialect.ir_utils import iter_ops
from ..dispatch import DispatchError, dispatch
from ..passes import TilePass, chip_option
from ..target import DEFAULT_ARCH

__all__ = ["DispatchPass", "TARGET"]

TARGET = "cuda"  # the registry's target key of every variant (dispatch.register_dispatch)


class DispatchPass(TilePass):
    OPS: tuple[str, ...] = ()
    KEY = ""
    OPTIONS = {"chip": f"target chip the variants must run on, default {DEFAULT_ARCH}"}

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.target = chip_option(self)

    def load_variants(self) -> None:
        """Import the variant modules, which register themselves."""
        raise NotImplementedError

    def context(self, op, cache: dict):
        """The variants' view of `op` (it has `.pinned`, the `dispatch` attribute); `cache` lives for one run."""
        raise NotImplementedError

    def run(self, module_op) -> bool:
        self.load_variants()
        ok = True
        cache: dict = {}
        for op in [op for op in iter_ops(module_op) if op.name in self.OPS]:
            try:
                ctx = self.context(op, cache)
                dispatch(self.KEY, TARGET, op, ctx, pinned=ctx.pinned)
            except DispatchError as e:
                ok = False
                error(op, f"'{op.name}' op dispatch: {e.message()}")
                continue  # the op stays; the pass fails
            op.erase()
        return ok
