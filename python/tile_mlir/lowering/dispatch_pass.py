"""The one lowering driver: tile-lower-copy-async, tile-lower-gemm-async and convert-tile-to-nvvm are each a
rewrite pattern per op named in `OPS`, registered from Python into the bindings' RewritePatternSet and
applied by MLIR's walk driver (walk_and_apply_patterns). The pattern asks the dispatch registry (key `KEY`,
or the op's name for a plain op, which is a dispatch with one variant; target dispatch.TARGET) for a
variant, which emits the instructions before the op; then `lowered` disposes of the op (the rewriter erases
it; convert-tile-to-nvvm defers that to the end of the kernel, as MLIR's conversion driver does, since
later ops still name the buffers it defined). An op no variant
takes stays, with one diagnostic that lists each variant for its memory pair and why it declined (every
variant with the pass option all-variants=1), and the walk goes on, so that every such op is reported;
then the pass fails. With remarks asked for (tile-opt --remarks-filter=dispatch), each lowered op gets a
remark naming its variant and why the ones before it did not apply.

Why the walk driver: it visits each op once, in program order (nested regions included), and never
revisits an op after a failure. Measured with the bundled bindings: four ops, the second raising, were
visited 1, 2, 3, 4 exactly once. The greedy driver revisited an op it failed on whenever an iteration
changed something (one failing op next to a succeeding one was reported twice) and its worklist
reported failures in reverse line order.

An exception escaping a Python pattern callback aborts the process (nanobind's python_error through
C++); so the callback catches every exception into an error at the op and a pattern failure. A
KeyboardInterrupt or SystemExit makes the rest of the walk fail fast and is raised again after it.
"""
from __future__ import annotations

from ..diagnostics import active, error, remark, wants_remarks
from .dispatch import TARGET, DispatchError, Rejection, dispatch
from ..mlir import rewrite
from ..driver.pass_base import TilePass, internal_error
from ..driver.pass_specs import DISPATCH_OPTIONS
from .errors import LoweringError
from .values import BufferValues
from .root_cause import report_later_failures

__all__ = ["DispatchPass", "Driver", "TARGET"]

class DispatchPass(TilePass):
    OPS: tuple[str, ...] = ()
    KEY = ""  # the registry key of OPS' variants; "" for plain ops (each its own name, one variant)
    WHAT = "dispatch"  # in "'<op>' op <WHAT>: ..." of its errors
    REMARKS = True  # remarks name the variant chosen (tile-opt --remarks-filter=dispatch)
    STOP_AFTER_ERROR = False  # True: the first error ends the walk (the ops after it may need what failed)
    OPTIONS = DISPATCH_OPTIONS

    def __init__(self, options: dict[str, str] | None = None, *, compile_options=None):
        super().__init__(options, compile_options=compile_options)
        self.target = self.compile.arch
        self.all_variants = self.compile.all_variants

    def load_variants(self) -> None:
        """Import the variant modules, which register themselves."""
        raise NotImplementedError

    def context(self, op, cache: dict):
        """The variants' view of `op` (it has `.pinned`, the `dispatch` attribute); `cache` lives for one run."""
        raise NotImplementedError

    def moves(self, ctx) -> tuple[str, str] | None:
        """The op's (source, destination) memory, when its variants are registered by pair."""
        return None

    def lowered(self, op, rewriter) -> None:
        """What becomes of `op` once a variant has emitted its instructions: erased."""
        rewriter.erase_op(op)

    def run(self, module_op) -> bool:
        self.load_variants()
        eng = active()
        since = len(eng.diagnostics) if eng is not None else 0
        self.values = BufferValues()  # (buffers are cast to their lowered types: lowering/values.py)
        driver = Driver(self)
        driver.apply(module_op, self.OPS)
        if not driver.ok:  # the root cause may be a later pass's op: root_cause.py
            report_later_failures(self, module_op, since, DispatchPass)
        return driver.ok


class Driver:
    """One walk of a DispatchPass's patterns over an op: the pattern callback and what it found."""

    def __init__(self, owner: DispatchPass, cache: dict | None = None):
        self.owner = owner
        self.cache: dict = {} if cache is None else cache
        self.ok = True
        self.stopped = False
        self.interrupted: BaseException | None = None

    def apply(self, root, names) -> None:
        """Lower the ops named `names` under `root`, in program order; a KeyboardInterrupt (or SystemExit)
        raised in a pattern is raised again once the walk has returned."""
        patterns = rewrite.RewritePatternSet(root.context)
        for name in names:
            patterns.add(name, self.match_and_rewrite)
        rewrite.walk_and_apply_patterns(root, patterns.freeze())
        if self.interrupted is not None:
            raise self.interrupted

    def _fail(self, op, message: str) -> bool:
        self.ok = False
        self.stopped = self.owner.STOP_AFTER_ERROR
        error(op, message)
        return True  # the op stays; the pass fails

    def match_and_rewrite(self, op, rewriter) -> bool:
        """The pattern: False (success) once the op is lowered, True (failure) otherwise."""
        op = op.operation
        if self.interrupted is not None or self.stopped:
            return True
        owner = self.owner
        tried: list[Rejection] = []
        try:
            ctx = owner.context(op, self.cache)
            moves = owner.moves(ctx)
            variant, _ = dispatch(owner.KEY or op.name, TARGET, op, ctx, pinned=ctx.pinned, moves=moves,
                                  tried=tried)
            if owner.REMARKS and wants_remarks("dispatch"):
                remark(op, _chosen(op.name, variant, moves, ctx.pinned, tried))
            owner.lowered(op, rewriter)
        except DispatchError as e:
            return self._fail(op, f"'{op.name}' op {owner.WHAT}: {e.message(owner.all_variants)}")
        except LoweringError as e:
            return self._fail(e.op, f"'{e.op.name}' op lowering: {e}")
        except Exception as e:  # a bug of ours: a diagnostic at the op, never an abort
            return self._fail(op, f"'{op.name}' op {owner.WHAT}: " + internal_error(f"pass '{owner.name}'", e))
        except BaseException as e:  # noqa: BLE001 - raised again once the driver has returned
            self.ok = False
            self.interrupted = e
            return True
        return False


def _chosen(name: str, variant: str, moves, pinned, tried: list[Rejection]) -> str:
    """The remark of a lowered op: its variant and why those tried before it did not apply."""
    why = (f"pinned by dispatch = \"{pinned}\"" if pinned else
           "the first by priority whose checks passed" + (f" for {moves[0]} -> {moves[1]}" if moves else ""))
    before = [r for r in tried if r.kind != "other pair"]
    text = f"'{name}' op dispatch: variant '{variant}' ({why})"
    return text + ("; before it:\n" + "\n".join("  " + r.format() for r in before) if before else "")
