"""The pass shape that tile-lower-copy-async and tile-lower-gemm-async share: a rewrite pattern per op
named in `OPS`, registered from Python into the bindings' RewritePatternSet and applied by MLIR's walk
driver (walk_and_apply_patterns). The pattern asks the dispatch registry (key `KEY`, target "cuda") for
a variant, which emits the instructions before the op; the rewriter then erases the op. An op no variant
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
from ..dispatch import DispatchError, Rejection, dispatch
from ..mlir import rewrite
from ..pass_base import Option, TilePass, chip_option, internal_error
from ..target import DEFAULT_ARCH, parse_arch

__all__ = ["DispatchPass", "TARGET"]

TARGET = "cuda"  # the registry's target key of every variant (dispatch.register_dispatch)


def _boolean(text: str) -> bool:
    value = {"true": True, "1": True, "false": False, "0": False}.get(text.strip().lower())
    if value is None:
        raise ValueError(f"expected true or false, got '{text}'")
    return value


class DispatchPass(TilePass):
    OPS: tuple[str, ...] = ()
    KEY = ""
    OPTIONS = {"chip": Option(f"target chip the variants must run on, default {DEFAULT_ARCH}", parse_arch,
                              DEFAULT_ARCH),
               "all-variants": Option("list every variant in a dispatch failure, not only those for the op's "
                                      "memory pair (true/false, default false)", _boolean, "false")}

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.target = chip_option(self)
        self.all_variants = self.values["all-variants"]

    def load_variants(self) -> None:
        """Import the variant modules, which register themselves."""
        raise NotImplementedError

    def context(self, op, cache: dict):
        """The variants' view of `op` (it has `.pinned`, the `dispatch` attribute); `cache` lives for one run."""
        raise NotImplementedError

    def moves(self, ctx) -> tuple[str, str] | None:
        """The op's (source, destination) memory, when its variants are registered by pair."""
        return None

    def run(self, module_op) -> bool:
        self.load_variants()
        eng = active()
        since = len(eng.diagnostics) if eng is not None else 0
        run = _Run(self)
        patterns = rewrite.RewritePatternSet(module_op.context)
        for name in self.OPS:
            patterns.add(name, run.match_and_rewrite)
        rewrite.walk_and_apply_patterns(module_op, patterns.freeze())
        if run.interrupted is not None:
            raise run.interrupted
        if not run.ok:  # the root cause may be a later pass's op: root_cause.py
            from .root_cause import report_later_failures
            report_later_failures(self, module_op, since, DispatchPass)
        return run.ok


class _Run:
    """One run of a DispatchPass: the pattern callback and what it found."""

    def __init__(self, owner: DispatchPass):
        self.owner = owner
        self.cache: dict = {}
        self.ok = True
        self.interrupted: BaseException | None = None

    def match_and_rewrite(self, op, rewriter) -> bool:
        """The pattern: False (success) once the op is lowered and erased, True (failure) otherwise."""
        op = op.operation
        if self.interrupted is not None:
            return True
        tried: list[Rejection] = []
        try:
            ctx = self.owner.context(op, self.cache)
            moves = self.owner.moves(ctx)
            variant, _ = dispatch(self.owner.KEY, TARGET, op, ctx, pinned=ctx.pinned, moves=moves, tried=tried)
        except DispatchError as e:
            self.ok = False
            error(op, f"'{op.name}' op dispatch: {e.message(self.owner.all_variants)}")
            return True  # the op stays; the pass fails
        except Exception as e:  # a bug of ours: a diagnostic at the op, never an abort
            self.ok = False
            error(op, f"'{op.name}' op dispatch: " + internal_error(f"pass '{self.owner.name}'", e))
            return True
        except BaseException as e:  # noqa: BLE001 - raised again once the driver has returned
            self.ok = False
            self.interrupted = e
            return True
        if wants_remarks("dispatch"):
            remark(op, _chosen(op.name, variant, moves, ctx.pinned, tried))
        rewriter.erase_op(op)
        return False


def _chosen(name: str, variant: str, moves, pinned, tried: list[Rejection]) -> str:
    """The remark of a lowered op: its variant and why those tried before it did not apply."""
    why = (f"pinned by dispatch = \"{pinned}\"" if pinned else
           "the first by priority whose checks passed" + (f" for {moves[0]} -> {moves[1]}" if moves else ""))
    before = [r for r in tried if r.kind != "other pair"]
    text = f"'{name}' op dispatch: variant '{variant}' ({why})"
    return text + ("; before it:\n" + "\n".join("  " + r.format() for r in before) if before else "")
