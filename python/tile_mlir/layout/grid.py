"""Print a layout's coordinate -> offset map as a grid, in the manner of CuTe's print_layout.

    >>> print(show(S[(2, 4) : (1, 2)]))        # column-major 2x4
    S[(2, 4) : (1, 2)]  shape (2, 4)
       0 1 2 3
      +--------
    0 | 0 2 4 6
    1 | 1 3 5 7

Rows are the leading dims of ``shape`` (default: the shard extents), row-major, labelled by their
coordinate; columns the last dim. A cell is the offset on axis m, or, for a layout on other axes
(tensor memory, threads), the offsets on each axis the layout names, comma-separated in the order the
header lists them; replicas are joined by ``|``. A swizzled
layout (``Swizzle<...> o ...``) shows element offsets after the swizzle, for ``elem_bits``-bit
elements. Command line: ``python -m tile_mlir.layout show "S[(4,8):(8,1)]" [--shape 2x16] [--bits 16]``.
"""
from __future__ import annotations

import argparse
import itertools
import math
import sys

from .args import LayoutTypeError, int_tuple
from .axis import LayoutError, m
from .swizzle import ComposedLayout
from .text import cute_shape, parse_layout
from .tile_layout import TileLayout

__all__ = ["show", "cells", "main", "MAX_CELLS"]

#: the most cells show() builds (a 256 x 256 grid): a grid is read by a person, and a layout's shard
#: may have 2^32 coordinates; --shape or a slice shows part of a larger layout
MAX_CELLS = 1 << 16
#: the element widths show() takes for a swizzled layout (sub-byte to 64-bit and vectors of them)
_BITS = range(1, 1025)
#: the most dims a grid's shape may have (the row labels hold one coordinate per leading dim)
_MAX_RANK = 32


def cells(layout, shape=None, elem_bits: int = 8) -> dict[tuple[int, ...], str]:
    """{coordinate: the text of its offsets} over every coordinate of ``shape``."""
    if not isinstance(layout, (TileLayout, ComposedLayout)):
        raise LayoutTypeError(f"show() takes a TileLayout or a swizzled layout (parse_layout gives one), "
                              f"got {type(layout).__name__}")
    inner = layout.inner if isinstance(layout, ComposedLayout) else layout
    shape = (tuple(it.extent for it in inner.shard) or (1,)) if shape is None else \
        int_tuple(shape, "show(layout, shape): shape")
    if any(d < 1 for d in shape) or len(shape) > _MAX_RANK:
        raise LayoutError(f"shape {shape if len(shape) <= 8 else shape[:8] + ('...',)}: dims must be "
                          f"positive, at most {_MAX_RANK} of them")
    if math.prod(shape) > MAX_CELLS:
        raise LayoutError(f"shape {shape} has {math.prod(shape)} cells, more than the {MAX_CELLS} a grid "
                          f"shows; slice the layout (layout.slice) or show a smaller one")
    if isinstance(layout, ComposedLayout) and elem_bits not in _BITS:
        raise LayoutError(f"elem_bits must be 1 .. {_BITS[-1]}, got {elem_bits}")
    if math.prod(shape) != layout.shard_extent():
        raise LayoutError(f"shape {shape} has {math.prod(shape)} elements, {layout} has "
                          f"{layout.shard_extent()}")
    out = {}
    for coord in itertools.product(*map(range, shape)):
        if isinstance(layout, ComposedLayout):
            if elem_bits < 1:
                raise LayoutError(f"elem_bits must be positive, got {elem_bits}")
            text = "|".join(str(b // elem_bits) for b in layout.apply_bits(coord, shape, elem_bits))
        else:
            axes = _axes(layout)
            text = "|".join(",".join(str(d.get(a, 0)) for a in axes) for d in layout.apply(coord, shape))
        out[coord] = text
    return out


def _axes(layout) -> tuple:
    """The axes a cell lists, in order (m alone for a plain memory layout)."""
    inner = layout.inner if isinstance(layout, ComposedLayout) else layout
    return tuple(sorted(inner.axes(), key=lambda a: a.sort_key)) or (m,)


def show(layout, shape=None, elem_bits: int = 8) -> str:
    """The grid of ``layout``'s offsets over ``shape`` (see the module docstring)."""
    table = cells(layout, shape, elem_bits)
    shape = next(reversed(table.keys())) if table else ()
    shape = tuple(c + 1 for c in shape)
    cols = shape[-1]
    lead = shape[:-1]
    width = max(len(t) for t in [*table.values(), str(cols - 1)])
    labels = {r: ",".join(map(str, r)) for r in itertools.product(*map(range, lead))} or {(): ""}
    lw = max(len(v) for v in labels.values())
    head = f"{layout}  shape {shape}"
    if isinstance(layout, ComposedLayout):
        head += f"  ({elem_bits}-bit elements)"
    elif _axes(layout) != (m,):
        head += "  cells: " + ",".join(a.name for a in _axes(layout)) + \
            ("  (replicas split by |)" if layout.replica else "")
    lines = [head, " " * (lw + 2) + " ".join(f"{c:>{width}}" for c in range(cols)),
             " " * (lw + 1) + "+" + "-" * ((width + 1) * cols)]
    for r, label in labels.items():
        lines.append(f"{label:>{lw}} | " + " ".join(f"{table[r + (c,)]:>{width}}" for c in range(cols)))
    return "\n".join(lines)


def _shape_arg(text: str) -> tuple[int, ...]:
    dims = [v.strip() for v in text.replace(",", "x").split("x")]
    if not dims or not all(v.isdigit() and len(v) <= 9 and int(v) >= 1 for v in dims):
        raise argparse.ArgumentTypeError(f"--shape takes dims such as 4x8 (each at least 1), got {text[:40]!r}")
    return tuple(int(v) for v in dims)


def _bits_arg(text: str) -> int:
    v = text.strip()
    if not (v.isdigit() and len(v) <= 4 and int(v) in _BITS):
        raise argparse.ArgumentTypeError(f"--bits takes an element width of 1 .. {_BITS[-1]} bits, got {text[:40]!r}")
    return int(v)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 1, as tile-run does
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(1)


def main(argv=None, prog: str = "tile-layout") -> int:
    from ..tools.cli import guarded  # (a closed pipe, Ctrl-C: no traceback)

    return guarded(prog, _main, argv, prog)


def _main(argv, prog: str) -> int:
    p = _Parser(prog=prog, description="Print a layout's coordinate -> offset map as a grid.")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("show", help="the grid of a layout's offsets")
    s.add_argument("layout", help='a layout in the buffer types\' notation, e.g. "S[(4, 8) : (8, 1)]", '
                   'or in CuTe\'s (shape):(stride), e.g. "((2,4),8):((1,8),2)"')
    s.add_argument("--shape", type=_shape_arg, help="the buffer shape, e.g. 4x8 (default: the shard's)")
    s.add_argument("--bits", type=_bits_arg, default=8, help="element bits, for swizzled layouts (default 8)")
    ns = p.parse_args(argv)
    try:
        layout = parse_layout(ns.layout)
        shape = ns.shape or cute_shape(ns.layout)  # CuTe's top-level modes are the dims drawn
        print(show(layout, shape, ns.bits))
    except (LayoutError, RecursionError) as e:  # (a layout nested past Python's depth: one line too)
        print(f"{prog}: error: {str(e)[:500] or type(e).__name__}", file=sys.stderr)
        return 1
    return 0
