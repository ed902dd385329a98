"""Pass `tile-lower-gemm-async`: each tile.gemm_async / tile.gemm_async.block_scale, in program order, is
lowered by the variant the dispatch registry picks (lowering/dispatch_pass.py says how and why a walk)."""
from __future__ import annotations

from ...dialect.ops import dispatched_ops
from ..dispatch_pass import DispatchPass
from . import load_variants
from .context import GemmCtx

__all__ = ["LowerGemmAsyncPass", "GEMM_OPS"]

GEMM_OPS = dispatched_ops("gemm_async")  # tile.gemm_async, tile.gemm_async.block_scale


class LowerGemmAsyncPass(DispatchPass):
    name = "tile-lower-gemm-async"
    # (its description and options: driver/pass_specs.py)
    OPS = GEMM_OPS
    KEY = "gemm_async"

    def load_variants(self) -> None:
        load_variants()

    def context(self, op, cache: dict) -> GemmCtx:
        return GemmCtx(op, self.target, cache=cache, values=self.values)
