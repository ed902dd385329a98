"""CuTe's (shape):(stride) notation in the layout text (issue 35 item 7): the same coordinate -> offset map
as CuTe's, nested modes split colexicographically, for `python -m tile_mlir.layout show` and every layout
parse; the map is checked against CuTe's definition computed here from the modes."""
from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

from tile_mlir.layout import LayoutError
from tile_mlir.layout.grid import cells
from tile_mlir.layout.text import cute_shape, parse_layout


def _cute_offset(shape, stride, coord) -> int:
    """CuTe: a mode's integer coordinate splits colexicographically over its sub-modes."""
    if isinstance(shape, int):
        return coord * stride
    if isinstance(coord, int):  # an integer coordinate of a nested mode
        out = 0
        for s, d in zip(shape, stride):
            size = _size(s)
            out += _cute_offset(s, d, coord % size)
            coord //= size
        return out
    return sum(_cute_offset(s, d, c) for s, d, c in zip(shape, stride, coord))


def _size(mode) -> int:
    return mode if isinstance(mode, int) else __import__("math").prod(map(_size, mode))


@pytest.mark.parametrize("text,shape,stride", [
    ("(4,8):(8,1)", (4, 8), (8, 1)),
    ("(4,8):(1,4)", (4, 8), (1, 4)),
    ("((2,4),8):((1,8),2)", ((2, 4), 8), ((1, 8), 2)),
    ("(_2,(_4,_2)):(_8,(_1,_4))", (2, (4, 2)), (8, (1, 4))),
    ("((2,2),(2,4)):((1,16),(2,4))", ((2, 2), (2, 4)), ((1, 16), (2, 4))),
])
def test_cute_layouts_map_as_cute_does(text, shape, stride):
    layout = parse_layout(text)
    top = tuple(_size(s) for s in shape)
    assert cute_shape(text) == top
    grid = cells(layout, top)
    for coord in itertools.product(*map(range, top)):
        assert grid[coord] == str(_cute_offset(shape, stride, coord)), (coord, grid[coord])
    assert parse_layout(str(layout)) == layout  # printed in our notation, it parses back


def test_flat_cute_is_the_s_notation_and_swizzle_composes():
    assert parse_layout("(4,8):(8,1)") == parse_layout("S[(4, 8) : (8, 1)]")
    assert parse_layout("8:1") == parse_layout("S[8 : 1]")
    assert parse_layout("Swizzle<128B> o (8,64):(64,1)") == parse_layout("Swizzle<128B> o S[(8, 64) : (64, 1)]")
    assert cute_shape("S[(4, 8) : (8, 1)]") is None


@pytest.mark.parametrize("text,message", [
    ("(4,8):(8,1,2)", "are not congruent"),
    ("((2,4),8):(1,8,2)", "are not congruent"),
    ("(4,8)", "expected ':' after a CuTe shape"),
    ("(4,0):(1,4)", "extents must be positive"),
    ("():()", "expected a mode in the empty CuTe shape"),
])
def test_bad_cute_text_is_one_layout_error(text, message):
    with pytest.raises(LayoutError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_layout(text)


def test_cli_draws_cute_over_its_top_level_shape():
    out = subprocess.run([sys.executable, "-m", "tile_mlir.layout", "show", "((2,4),8):((1,8),2)"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "S[(4, 2, 8) : (8, 1, 2)]  shape (8, 8)"
    assert lines[5].split("|")[1].split() == [str(8 + 2 * j) for j in range(8)]  # row 2: i = (0, 1)
    bad = subprocess.run([sys.executable, "-m", "tile_mlir.layout", "show", "(4,8):(8,1,2)"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "not congruent" in bad.stderr and "Traceback" not in bad.stderr
