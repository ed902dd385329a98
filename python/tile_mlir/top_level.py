"""Where a source's first top-level operation starts, past comments and alias definitions (pure text).

parse_source wraps a file of several top-level operations in `module { ... }`, as mlir-opt's implicit module
does; alias definitions (`!sA = !tile.buffer<...>`, `#l = ...`) are top-level entities of their own, not
operations, and the parser refuses them inside a region. So the wrapper opens where the first operation
begins: after the leading whitespace, `//` comments and alias definitions. An alias definition runs to the
end of its line once its brackets ((), [], {}, <>, with `->` not closing one) and strings are closed.
"""
from __future__ import annotations

import re

__all__ = ["first_operation"]

_ALIAS = re.compile(r"[!#][A-Za-z_][\w.$-]*[ \t]*=")
_OPEN, _CLOSE = "([{<", ")]}>"


def first_operation(text: str) -> int:
    """The offset of the first top-level operation of `text` (len(text) when there is none)."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            i = _line_end(text, i)
        elif _ALIAS.match(text, i):
            i = _alias_end(text, _ALIAS.match(text, i).end())
        else:
            return i
    return n


def _line_end(text: str, i: int) -> int:
    j = text.find("\n", i)
    return len(text) if j < 0 else j + 1


def _alias_end(text: str, i: int) -> int:
    """The end of the alias definition whose value starts at i: the first newline outside brackets and strings."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "-" and text.startswith("->", i):
            i += 1
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(depth - 1, 0)
        elif c == "\n" and depth == 0:
            return i + 1
        elif text.startswith("//", i):  # (a comment after the value)
            i = _line_end(text, i) - 1
            continue
        i += 1
    return n
