"""MLIR contexts and source parsing for tile IR."""
from __future__ import annotations

import re

from .mlir import MLIRError, ir

__all__ = ["make_context", "parse_source", "split_input"]

_SINGLE_TOP = re.compile(r"single top-level operation, found: \d+")


# The dialects our lowerings create ops of, loaded up front. The other dialects registered with the
# bindings (the CuTe build registers many) load on demand when the parser meets them or a pass depends
# on them; loading all of them eagerly costs ~3 ms per context, measured, against ~1.3 ms for these.
_DIALECTS = ("builtin", "func", "arith", "scf", "cf", "gpu", "llvm", "nvvm")


def make_context():
    """A context that accepts the unregistered `tile` namespace and has the upstream dialects loaded."""
    try:
        ctx = ir.Context(load_on_create_dialects=list(_DIALECTS))  # cutlass._mlir's Context
    except TypeError:  # the upstream package's Context loads every registered dialect itself
        ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    # Single-threaded: every kernel goes to one gpu.module, so the pass manager has nothing to run in
    # parallel, and starting the thread pool's workers for the nested gpu.module pipeline costs ~1 ms
    # per compile (measured).
    ctx.enable_multithreading(False)
    from .dialect import ops  # noqa: F401  (registers the OpViews)

    return ctx


def parse_source(text: str, filename: str, context) -> "ir.Operation":
    """Parse `text` into a builtin.module, as mlir-opt does: several top-level ops are wrapped in one.

    Raises MLIRError with the parser's diagnostics (locations name `filename`).
    """
    with context:
        try:
            op = ir.Operation.parse(text, source_name=filename)
        except MLIRError as e:
            if not any(_SINGLE_TOP.search(d.message) for d in e.error_diagnostics):
                raise
            # Wrap on line 1 so that every later line keeps its number (line 1 shifts by 8 columns).
            op = ir.Operation.parse("module {" + text + "\n}", source_name=filename)
            return op
        if op.name == "builtin.module":
            return op
        module = ir.Module.create(loc=ir.Location.file(filename, 1, 1))
        module.body.append(op)
        return module.operation


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
