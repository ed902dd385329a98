"""MLIR contexts and source parsing for tile IR."""
from __future__ import annotations

import re
import threading

from ..errors import TileMLIRError
from ..mlir import MLIRError, init_mlir_error, ir, parse_guard
from .text_checks import TextProblem, check_text, decode
from .top_level import wrap_in_module
from ..dialect.ops import nearest_tile_op
from ..diagnostics import Diagnostic
from ..dialect.ir_utils import iter_ops

__all__ = ["make_context", "compile_context", "release_compile_context", "parse_source", "split_input",
           "SourceError", "first_unregistered_op", "unregistered_dialect_error"]

_SINGLE_TOP = re.compile(r"single top-level operation, found: \d+")


# The dialects our lowerings create ops of, loaded up front. The other dialects registered with the
# bindings (the CuTe build registers many) load on demand when the parser meets them or a pass depends
# on them; loading all of them eagerly costs ~3 ms per context, measured, against ~1.3 ms for these.
_DIALECTS = ("builtin", "func", "arith", "scf", "cf", "gpu", "llvm", "nvvm")


def make_context():
    """A context that accepts the unregistered `tile` namespace and has the upstream dialects loaded."""
    try:
        # cutlass._mlir's Context. Not `load_on_create_dialects=_DIALECTS`: that reads ctx.dialects[name],
        # which also imports each dialect's generated Python module (nvvm's and llvm's: ~160 ms of a
        # process's first context, measured), when a verify-only tile-opt run needs none of them. The
        # descriptor loads the dialect into the context alone; the bindings import a dialect's Python
        # module when an op of it is first seen from Python.
        ctx = ir.Context(load_on_create_dialects=[])
        for name in _DIALECTS:
            ctx.get_dialect_descriptor(name)
    except TypeError:  # the upstream package's Context loads every registered dialect itself
        ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    # Single-threaded: every kernel goes to one gpu.module, so the pass manager has nothing to run in
    # parallel, and starting the thread pool's workers for the nested gpu.module pipeline costs ~1 ms
    # per compile (measured).
    ctx.enable_multithreading(False)
    from ..dialect import ops  # noqa: F401  (registers the OpViews)

    return ctx


# compile() of text reuses its thread's context: making one and destroying it costs ~1.2 ms of a ~30 ms
# demo compile (measured). Each compile leaves its uniqued attributes and types in it (names, constants,
# the cubin's #gpu.object: ~11 KB a distinct kernel, measured), dropped with the context: a fresh one
# every _REUSES compiles. One per thread: our contexts run single-threaded.
_REUSES = 64


class _ThreadContext(threading.local):
    context = None
    uses = 0


_thread = _ThreadContext()


def compile_context():
    """This thread's context for compiling text (a make_context() one), replaced every _REUSES calls."""
    t = _thread
    if t.context is None or t.uses >= _REUSES:
        t.context, t.uses = make_context(), 0
    t.uses += 1
    return t.context


def release_compile_context() -> None:
    """Drop this thread's compile context (the next compile makes a fresh one), e.g. before counting the
    live contexts to find a leak."""
    _thread.context, _thread.uses = None, 0


class SourceError(TileMLIRError, MLIRError):
    """Text refused before parsing (not UTF-8, nested too deep), raised as the parser's errors are: an
    MLIRError whose error_diagnostics hold one error at the offending line and column."""

    def __init__(self, message: str, diagnostics: list):
        init_mlir_error(self, message, diagnostics)
        self._tile_message, self._tile_diagnostics = message, diagnostics

    message = property(lambda self: self._tile_message)
    error_diagnostics = property(lambda self: self._tile_diagnostics)

    def __str__(self) -> str:
        return self._tile_message


def parse_source(text: str | bytes, filename: str, context) -> "ir.Operation":
    """Parse `text` (bytes are UTF-8) into a builtin.module, as mlir-opt does: several top-level ops
    are wrapped in one.

    Raises MLIRError with the parser's diagnostics (locations name `filename`); text the parser must
    not see (text_checks: not UTF-8, nested too deep) raises SourceError, an MLIRError, instead.
    """
    if isinstance(text, (bytes, bytearray)):
        text = decode(bytes(text))
    problem = text if isinstance(text, TextProblem) else check_text(text) or parse_guard(text)
    if problem is not None:
        raise _source_error(problem, filename, context)
    with context:
        try:
            op = ir.Operation.parse(text, source_name=filename)
        except MLIRError as e:
            if not any(_SINGLE_TOP.search(d.message) for d in e.error_diagnostics):
                raise
            # Wrapped in a module, the alias definitions outside it, every line keeping its number
            # (top_level.py).
            op = ir.Operation.parse(wrap_in_module(text), source_name=filename)
            return op
        if op.name == "builtin.module":
            return op
        module = ir.Module.create(loc=ir.Location.file(filename, 1, 1))
        module.body.append(op)
        return module.operation


def _source_error(problem, filename: str, context) -> SourceError:
    """A SourceError holding the problem as an MLIR diagnostic (emitted into a handler of our own, so
    the context's other handlers do not see it twice)."""
    infos = []

    def keep(d) -> bool:
        infos.append(ir.DiagnosticInfo(d))
        return True

    with context:
        handler = context.attach_diagnostic_handler(keep)
        try:
            ir.Location.file(filename, problem.line, problem.col).emit_error(problem.message)
        finally:
            handler.detach()
    return SourceError(f"{filename}:{problem.line}:{problem.col}: error: {problem.message}", infos)


def first_unregistered_op(module_op, context):
    """The first op (pre-order) of a dialect the context does not register, or None. Our contexts must
    accept unregistered dialects for the `tile` namespace to parse at all, so this is how the tools and
    compile() refuse the rest, as a registered-only MLIR context would (tile ops are the verifier's)."""

    for op in iter_ops(module_op):
        name = op.name
        if not name.startswith("tile.") and not context.is_registered_operation(name):
            return op
    return None


def unregistered_dialect_error(op):
    """The diagnostic for first_unregistered_op's answer (mlir-opt's, with our flag)."""

    guess = nearest_tile_op(op.name)
    hint = f"did you mean '{guess}'?" if guess else "if this is intended, use --allow-unregistered-dialect (tile-opt)"
    return Diagnostic.at("error", op, f"operation '{op.name}' belongs to an unregistered dialect; {hint}")


def split_input(text: str, marker: str = "// -----") -> list[tuple[int, str]]:
    """Split at lines holding only `marker`; each chunk keeps its original line numbers (padded)."""
    chunks, cur, start = [], [], 0
    for i, line in enumerate(text.split("\n")):
        if line.strip() == marker:
            chunks.append((start, "\n" * start + "\n".join(cur)))
            cur, start = [], i + 1
        else:
            cur.append(line)
    chunks.append((start, "\n" * start + "\n".join(cur)))
    return chunks
