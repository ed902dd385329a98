"""Pass `tile-lower-gemm-async`: each tile.gemm_async / tile.gemm_async.block_scale, in program order, asks
the dispatch registry for a variant, which emits the instructions before it; the op is then erased. A walk,
as tile-lower-copy-async's (lowering/copy_async/pass_.py says why)."""
from __future__ import annotations

from ...diagnostics import error
from ...dialect.ir_utils import iter_ops
from ...dispatch import DispatchError, dispatch
from ...passes import TilePass, chip_option
from ...target import DEFAULT_ARCH
from . import load_variants
from .context import GemmCtx

__all__ = ["LowerGemmAsyncPass", "TARGET", "GEMM_OPS"]

TARGET = "cuda"
GEMM_OPS = ("tile.gemm_async", "tile.gemm_async.block_scale")


class LowerGemmAsyncPass(TilePass):
    name = "tile-lower-gemm-async"
    description = "Lower tile.gemm_async through the dispatch registry (tcgen05.mma on sm_100a, wgmma on sm_90a)"
    OPTIONS = {"chip": f"target chip the variants must run on, default {DEFAULT_ARCH}"}

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.target = chip_option(self)

    def run(self, module_op) -> bool:
        load_variants()
        ok = True
        cache: dict = {}
        for op in [op for op in iter_ops(module_op) if op.name in GEMM_OPS]:
            try:
                ctx = GemmCtx(op, self.target, cache=cache)
                dispatch("gemm_async", TARGET, op, ctx, pinned=ctx.pinned)
            except DispatchError as e:
                ok = False
                error(op, f"'{op.name}' op dispatch: {e.message()}")
                continue  # the op stays; the pass fails
            op.erase()
        return ok
