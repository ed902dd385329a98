"""TMA atoms over tensors with run-time layouts (make_corpus.tma_atoms): the DSL's IR prints such a
layout with ``?`` for each run-time value (``(128,?{div=16},((?,?),?)):(?{div=16},1,...)``), and
its atom's basis names nested modes (``1@0@0@2``: mode 2, its mode 0, that one's mode 0).  The
case states the concrete layout of the tensor it passes (its shape and strides, which the example's
host code computes from the problem size); :func:`resolve` checks it against every static value
and the nesting of the IR's text (a wrong statement stops the generation) and
:func:`map_dims` reads the map's dimensions and strides along the basis."""
from __future__ import annotations

import re


def _tokens(text):
    return re.findall(r"\(|\)|\?(?:\{[^}]*\})?|-?\d+", text)  # ?{div=16}, ?{i64 div=8}


def _parse(tokens, i=0):
    """A nested tuple from tokens at i: (value, next index); '?' stays a string."""
    if tokens[i] == "(":
        out, i = [], i + 1
        while tokens[i] != ")":
            v, i = _parse(tokens, i)
            out.append(v)
        return tuple(out), i + 1
    t = tokens[i]
    return (t if t.startswith("?") else int(t)), i + 1


def parse_layout(text):
    """'(shape):(stride)' -> (shape tree, stride tree), '?' (with its divisibility) for run-time
    values."""
    shape_t, stride_t = text.split("):(", 1)
    shape, _ = _parse(_tokens(shape_t + ")"))
    stride, _ = _parse(_tokens("(" + stride_t))
    return shape, stride


def _match(pattern, value, where):
    if isinstance(pattern, tuple):
        assert isinstance(value, tuple) and len(value) == len(pattern), (where, pattern, value)
        return tuple(_match(p, v, f"{where}.{k}") for k, (p, v) in enumerate(zip(pattern, value)))
    assert isinstance(value, int), (where, pattern, value)
    if isinstance(pattern, int):
        assert pattern == value, f"{where}: the IR has {pattern}, the case states {value}"
    else:
        m = re.search(r"div=(\d+)", pattern)
        assert m is None or value % int(m.group(1)) == 0, (where, pattern, value)
    return value


def resolve(text, concrete):
    """The case's (shape, stride) trees, checked against the IR's layout text."""
    shape, stride = parse_layout(text)
    return _match(shape, concrete[0], "shape"), _match(stride, concrete[1], "stride")


def _at(tree, path):
    for i in path:
        tree = tree[i]
    assert isinstance(tree, int), (tree, path)
    return tree


def map_dims(layout, gbasis):
    """(box, dims, strides in elements) along the basis ``(box...):(1@a@b...)``, innermost first."""
    box_s, basis_s = gbasis.split("):(")
    box = [int(x) for x in re.findall(r"\d+", box_s)]
    paths = [list(map(int, b.split("@")[1:]))[::-1] for b in re.findall(r"1(?:@\d+)+", basis_s)]
    assert len(box) == len(paths), (gbasis, box, paths)
    shape, stride = layout
    return box, [_at(shape, p) for p in paths], [_at(stride, p) for p in paths]
