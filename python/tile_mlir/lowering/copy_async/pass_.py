"""Pass `tile-lower-copy-async`: each tile.copy_async, in program order, asks the dispatch registry for
a variant, which emits the instructions before it; the op is then erased.

A walk, not a rewrite-pattern driver: the greedy driver revisits an op it failed on whenever an
iteration changed something, so one failing copy next to a succeeding one was reported twice, and its
worklist reported several failures in reverse line order. Here each op is visited once, in order.
"""
from __future__ import annotations

from ...diagnostics import error
from ...dialect.ir_utils import iter_ops
from ...dispatch import DispatchError, dispatch
from ...passes import TilePass, chip_option
from ...target import DEFAULT_ARCH
from . import load_variants
from .context import CopyAsyncCtx

__all__ = ["LowerCopyAsyncPass", "TARGET"]

TARGET = "cuda"


class LowerCopyAsyncPass(TilePass):
    name = "tile-lower-copy-async"
    description = "Lower tile.copy_async through the dispatch registry (tcgen05.cp for shared -> tmem)"
    OPTIONS = {"chip": f"target chip the variants must run on, default {DEFAULT_ARCH}"}

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.target = chip_option(self)

    def run(self, module_op) -> bool:
        load_variants()
        ok = True
        cache: dict = {}
        for op in [op for op in iter_ops(module_op) if op.name == "tile.copy_async"]:
            try:
                ctx = CopyAsyncCtx(op, self.target, cache=cache)
                dispatch("copy_async", TARGET, op, ctx, pinned=ctx.pinned)
            except DispatchError as e:
                ok = False
                error(op, f"'tile.copy_async' op dispatch: {e.message()}")
                continue  # the op stays; the pass fails
            op.erase()
        return ok
