"""Pass `tile-lower-copy-async`: each tile.copy_async, in program order, is lowered by the variant the
dispatch registry picks (lowering/dispatch_pass.py says how and why a walk)."""
from __future__ import annotations

from ...dialect.ops import dispatched_ops
from ..dispatch_pass import DispatchPass
from . import load_variants
from .context import CopyAsyncCtx

__all__ = ["LowerCopyAsyncPass"]


class LowerCopyAsyncPass(DispatchPass):
    name = "tile-lower-copy-async"
    # (its description and options: driver/pass_specs.py)
    KEY = "copy_async"
    OPS = dispatched_ops(KEY)  # (the ops whose class says Dispatched(..., "copy_async"))

    def load_variants(self) -> None:
        load_variants()

    def context(self, op, cache: dict) -> CopyAsyncCtx:
        return CopyAsyncCtx(op, self.target, cache=cache, values=self.values)

    def moves(self, ctx: CopyAsyncCtx) -> tuple[str, str]:
        return ctx.src_t.scope, ctx.dst_t.scope
