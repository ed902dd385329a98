"""Parameter names in printed tile IR: a tile.kernel's entry-block arguments are printed as the program
names them (`^bb0(%A: ..., %out: ...)`), not as MLIR's `%arg0, %arg1`, so IR printed by tile-opt still
calls as `kernel(A=...)` and runs as `tile-run -i A=...` (the runner reads the names from the text:
signature.param_names).

MLIR's printer names block arguments `%argN` unless the op implements OpAsmOpInterface, which a
Python-defined op cannot; as alias_print.py does for types, this is a transform of the printed text. The
names are the kernel's `arg_names` attribute, else the `%name`s of the source text the module was parsed
from (signature.param_names: identifiers only, no repeats). Each kernel's region is renamed on its own,
outside string literals and comments, and only when no other value of the region already prints as one
of the new names (`%c0` of an arith.constant would shadow a parameter named `c0`): then that kernel keeps
`%argN`. Parsing the output gives back the same module with the same parameter names
(test/python/tools/test_param_print.py).
"""
from __future__ import annotations

import re

from ..driver.signature import _text_arg_lists, param_names

__all__ = ["with_param_names", "kernel_param_names"]

_KERNEL = re.compile(r'"tile\.kernel"\s*\(\s*\)\s*\(\s*\{')
_VALUE = re.compile(r"%([\w$.-]+)")
_SKIP = re.compile(r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*')  # string literals, comments


def kernel_param_names(module, source_text: str = "") -> list[list[str] | None]:
    """For each top-level tile.kernel of ``module``, in order: its parameter names, or None where they
    are only MLIR's arg<i> (no `arg_names` attribute, no names in the source text)."""
    body = module.operation.regions[0].blocks[0].operations if hasattr(module, "operation") else []
    kernels = [op.operation for op in body if op.operation.name == "tile.kernel"]
    listed = _text_arg_lists(source_text)
    out = []
    for k, op in enumerate(kernels):
        count = len(op.regions[0].blocks[0].arguments)
        names = param_names(op, count, listed[k] if len(listed) == len(kernels) else None)
        out.append(None if names == [f"arg{i}" for i in range(count)] else names)
    return out


def _blank(text: str) -> str:
    """``text`` with string literals (but the op name "tile.kernel") and comments blanked, same length:
    a `%x` or brace in them is no value or region."""
    return _SKIP.sub(lambda m: m.group() if m.group() == '"tile.kernel"' else " " * len(m.group()), text)


def _region_end(blank: str, start: int) -> int:
    """The index after the `}` closing the `{` at ``start``."""
    depth = 0
    for i in range(start, len(blank)):
        c = blank[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(blank)


def with_param_names(text: str, names: list[list[str] | None]) -> str:
    """``text`` (a printed module) with each tile.kernel's printed entry-block arguments renamed to
    ``names`` (kernel_param_names, in the same order); unchanged where the kernel counts differ."""
    blank = _blank(text)
    spans = [(m.end() - 1, _region_end(blank, m.end() - 1)) for m in _KERNEL.finditer(blank)]
    printed = _text_arg_lists(text)
    if not any(names) or len(spans) != len(names) or len(printed) != len(names):
        return text
    out, last = [], 0
    for (start, end), new, old in zip(spans, names, printed):
        if not new or len(new) != len(old):
            continue
        mapping = {o: n for o, n in zip(old, new) if o != n}
        region = blank[start:end]
        others = {m.group(1) for m in _VALUE.finditer(region)} - set(old)
        if not mapping or others & set(new):
            continue  # nothing to do, or a name another value of the region prints as
        for m in _VALUE.finditer(region):
            if m.group(1) in mapping:
                s = start + m.start(1)
                out += [text[last:s], mapping[m.group(1)]]
                last = start + m.end(1)
    out.append(text[last:])
    return "".join(out)
