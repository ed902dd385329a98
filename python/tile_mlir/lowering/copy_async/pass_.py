"""Pass `tile-lower-copy-async`: a rewrite pattern on tile.copy_async, applied by the greedy driver,
asks the dispatch registry for a variant and lets it emit the instructions."""
from __future__ import annotations

from ...diagnostics import error
from ...dispatch import DispatchError, dispatch
from ...mlir import rewrite
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
        failed: list = []
        cache: dict = {}

        def lower_copy_async(op, rewriter):
            """Match every tile.copy_async; a dispatch failure is reported once and left unmatched."""
            try:
                ctx = CopyAsyncCtx(op, self.target, rewriter, cache=cache)
                dispatch("copy_async", TARGET, op, ctx, pinned=ctx.pinned)
            except DispatchError as e:
                failed.append(op)
                error(op, f"'tile.copy_async' op dispatch: {e.message()}")
                return True  # no match: the op stays, the pass fails below
            except Exception as e:  # noqa: BLE001
                # An exception must not cross the C++ rewrite driver (it would abort the process):
                # report it as an internal error at the op instead.
                failed.append(op)
                notes = "; ".join(getattr(e, "__notes__", []))
                error(op, f"'tile.copy_async' op internal error: {type(e).__name__}: {e}"
                          f"{' (' + notes + ')' if notes else ''}; please report this")
                return True
            rewriter.erase_op(op)
            return False

        patterns = rewrite.RewritePatternSet(module_op.context)
        patterns.add("tile.copy_async", lower_copy_async)
        config = rewrite.GreedyRewriteConfig()
        config.strictness = rewrite.GreedyRewriteStrictness.EXISTING_OPS
        # rewrite only copy_async: no folding, constant CSE or region simplification (the default,
        # AGGRESSIVE, would merge blocks of the user's program). The driver still erases trivially dead
        # ops it visits (unused pure values): MLIR's greedy driver has no switch for that.
        config.enable_folding = False
        config.enable_constant_cse = False
        config.region_simplification_level = rewrite.GreedySimplifyRegionLevel.DISABLED
        rewrite.apply_patterns_and_fold_greedily(module_op, patterns.freeze(), config)
        return not failed
