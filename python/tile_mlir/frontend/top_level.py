"""A file of several top-level operations wrapped in one `module { ... }`, its alias definitions kept outside.

parse_source wraps such a file as mlir-opt's implicit module does; alias definitions (`!sA =
!tile.buffer<...>`, `#l = ...`) are top-level entities of their own, not operations, and the parser refuses
them inside a region. So the wrapper opens where the first operation begins, after the leading whitespace,
`//` comments and alias definitions, which stay where they are; an alias defined between operations is
blanked where it stands and written again before the wrapper, on the first operation's line. Every line keeps
its number (that line's columns shift). An alias definition starts a line at bracket depth 0 and runs to the
end of a line once its brackets ((), [], {}, <>, with `->` not closing one) and strings are closed.
"""
from __future__ import annotations

import re

__all__ = ["first_operation", "wrap_in_module"]

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
            i = _alias_end(text, _ALIAS.match(text, i).end())[1]
        else:
            return i
    return n


def wrap_in_module(text: str) -> str:
    """`text` with its top-level operations in one builtin.module and its alias definitions before it."""
    i = first_operation(text)
    later = list(_later_aliases(text, i))
    body, moved = text, []
    for a, v, b in reversed(later):
        moved.append(_one_line(text[a:v]))
        body = body[:a] + "".join(c if c == "\n" else " " for c in text[a:b]) + body[b:]
    prefix = " ".join(reversed(moved))
    return body[:i] + prefix + (" " if prefix else "") + "module {" + body[i:] + "\n}"


def _one_line(value: str) -> str:
    """An alias definition on one line: its `//` comments (outside strings) dropped, newlines as spaces."""
    out, i, n = [], 0, len(value)
    while i < n:
        j, kind = _step(value, i)
        if kind == "comment":
            out.append(" ")
            j += value.startswith("\n", j)  # (the comment's newline with it)
        else:
            out.append(" " if kind == "newline" else value[i:j])
        i = j
    return "".join(out)


def _later_aliases(text: str, i: int):
    """(start, end of the value, end of the line) of each alias definition at the top level after offset i."""
    depth, n, line_start = 0, len(text), False
    while i < n:
        if line_start and depth == 0 and not text[i].isspace() and _ALIAS.match(text, i):
            value_end, end = _alias_end(text, _ALIAS.match(text, i).end())
            yield i, value_end, end
            i = end
            continue
        j, kind = _step(text, i)
        depth = _depth(depth, kind)
        if kind == "newline":
            line_start = True
        elif not text[i].isspace():
            line_start = False
        i = j


def _alias_end(text: str, i: int) -> tuple[int, int]:
    """(end of the value, end of its line) of the alias definition whose value starts at i: the value ends at the
    first newline or `//` comment outside brackets and strings."""
    depth, n, value_end = 0, len(text), None
    while i < n:
        j, kind = _step(text, i)
        if kind == "newline" and depth == 0:
            return (i if value_end is None else value_end), j
        if kind == "comment" and depth == 0 and value_end is None:  # (a comment after the value)
            value_end = i
        depth = _depth(depth, kind)
        i = j
    return (n if value_end is None else value_end), n


def _step(text: str, i: int) -> tuple[int, str]:
    """The token at i and the offset after it: a string (to its closing quote), `->`, an opening or closing
    bracket, a `//` comment (up to its newline, not past it), a newline, or another character."""
    c = text[i]
    if c == '"':
        j, n = i + 1, len(text)
        while j < n and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        return min(j + 1, n), "string"
    if text.startswith("->", i):
        return i + 2, "arrow"
    if text.startswith("//", i):
        j = text.find("\n", i)
        return (len(text) if j < 0 else j), "comment"
    return i + 1, "open" if c in _OPEN else "close" if c in _CLOSE else "newline" if c == "\n" else "other"


def _depth(depth: int, kind: str) -> int:
    return depth + 1 if kind == "open" else max(depth - 1, 0) if kind == "close" else depth


def _line_end(text: str, i: int) -> int:
    j = text.find("\n", i)
    return len(text) if j < 0 else j + 1
