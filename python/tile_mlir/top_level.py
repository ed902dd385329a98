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
        c = value[i]
        if c == '"':
            j = i + 1
            while j < n and value[j] != '"':
                j += 2 if value[j] == "\\" else 1
            out.append(value[i:j + 1])
            i = j + 1
        elif value.startswith("//", i):
            i = _line_end(value, i)
            out.append(" ")
        else:
            out.append(" " if c == "\n" else c)
            i += 1
    return "".join(out)


def _later_aliases(text: str, i: int):
    """(start, end of the value, end of the line) of each alias definition at the top level after offset i."""
    depth, n, line_start = 0, len(text), False
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and depth == 0 and not c.isspace() and _ALIAS.match(text, i):
            value_end, end = _alias_end(text, _ALIAS.match(text, i).end())
            yield i, value_end, end
            i = end
            line_start = True
            continue
        if not c.isspace():
            line_start = False
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
        elif text.startswith("//", i):
            i = _line_end(text, i)
            line_start = True
            continue
        i += 1


def _line_end(text: str, i: int) -> int:
    j = text.find("\n", i)
    return len(text) if j < 0 else j + 1


def _alias_end(text: str, i: int) -> tuple[int, int]:
    """(end of the value, end of its line) of the alias definition whose value starts at i: the value ends at the
    first newline or `//` comment outside brackets and strings."""
    depth, n, value_end = 0, len(text), None
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
            return (i if value_end is None else value_end), i + 1
        elif text.startswith("//", i):  # (a comment after the value, or inside a multi-line one)
            if depth == 0 and value_end is None:
                value_end = i
            i = _line_end(text, i) - 1
            continue
        i += 1
    return (n if value_end is None else value_end), n
