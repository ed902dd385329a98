"""Type aliases in printed tile IR: each `!tile.buffer<...>` type used more than once is named once at
the top of the module (`!shared_32x16xui8 = !tile.buffer<shared, 32x16xui8, ...>`) and written by its
alias everywhere else, as mlir-opt does for the aliases a dialect registers.

The Python bindings cannot register an alias hook for a Python-defined type, so this is a transform of
the printed text: it reads exactly what MLIR printed, replaces nothing inside string literals (a buffer
type inside an attribute string stays as it is), and parsing its output gives back the same module
(test/python/tools/test_alias_print.py parses it). tile-opt applies it unless --no-type-aliases.
"""
from __future__ import annotations

import re
from collections import Counter

__all__ = ["with_type_aliases", "buffer_types"]

_PREFIX = "!tile.buffer<"
_EXISTING_ALIAS = re.compile(r"^!([A-Za-z_][\w$.]*)\s*=", re.M)


def _string_end(text: str, i: int) -> int:
    """The index after the string literal that starts at text[i] == '"'."""
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == '"':
            return j + 1
        j += 1
    return len(text)


def _type_end(text: str, i: int) -> int | None:
    """The index after the `!tile.buffer<...>` starting at i (brackets balanced outside its strings),
    or None when it does not close."""
    depth, j = 0, i + len(_PREFIX) - 1
    while j < len(text):
        c = text[j]
        if c == '"':
            j = _string_end(text, j)
            continue
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return j + 1
        elif c == "\n":
            return None
        j += 1
    return None


def buffer_types(text: str) -> list[tuple[int, int]]:
    """(start, end) of every `!tile.buffer<...>` outside string literals, in order."""
    spans, i = [], 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
        elif c == "/" and text.startswith("//", i):  # a comment runs to the end of its line
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
        elif c == "!" and text.startswith(_PREFIX, i):
            end = _type_end(text, i)
            if end is None:
                i += 1
                continue
            spans.append((i, end))
            i = end
        else:
            i += 1
    return spans


def _base_name(type_text: str) -> str:
    """`!tile.buffer<shared, 32x16xui8, ...>` -> `shared_32x16xui8`; a runtime extent `?` reads `d`
    (`global_dxdxbf16`)."""
    parts = type_text[len(_PREFIX):-1].split(",")
    name = "_".join(p.strip() for p in parts[:2]).replace("?", "d")
    name = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return name if re.match(r"[A-Za-z_]", name) else "buf_" + name


def with_type_aliases(text: str, min_uses: int = 2) -> str:
    """``text`` (a printed module) with every buffer type used at least ``min_uses`` times aliased."""
    spans = buffer_types(text)
    uses = Counter(text[s:e] for s, e in spans)
    hoisted = [t for t in dict.fromkeys(text[s:e] for s, e in spans) if uses[t] >= min_uses]
    if not hoisted:
        return text
    taken = set(_EXISTING_ALIAS.findall(text))
    names: dict[str, str] = {}
    for t in hoisted:  # in order of first use; a second layout of the same shape gets _1, _2, ...
        base = _base_name(t)
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        taken.add(name)
        names[t] = name
    out, last = [], 0
    for s, e in spans:
        t = text[s:e]
        if t in names:
            out += [text[last:s], "!" + names[t]]
            last = e
    out.append(text[last:])
    header = "".join(f"!{n} = {t}\n" for t, n in names.items())
    return header + "".join(out)
