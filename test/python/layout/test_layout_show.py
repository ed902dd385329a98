"""Layouts for a new user (issue 23 item 8): a wrong arity or type says what was expected, and
show() / `python -m tile_mlir.layout show` print the coordinate -> offset map as a grid."""
from __future__ import annotations

import doctest
import subprocess
import sys

import pytest

import tile_mlir.layout.grid as show_mod
from tile_mlir.layout import (LayoutError, LayoutTypeError, S, SwizzleMode, kmajor_layout, parse_layout,
                              show)

L = S[(4, 8) : (8, 1)]


@pytest.mark.parametrize("call, message", [
    (lambda: L.apply(5, 3), r"shape must be a tuple of ints, got 3; a coordinate of several dims is one "
                            r"tuple: apply\(\(5, 3\)\)"),
    (lambda: L.apply((1, 2), 8), r"shape must be a tuple of ints, got 8 \(int\) \(one dim: \(8,\)\)"),
    (lambda: L.apply("ab"), r"coord \(a flat index or one int per dim\) must be a tuple of ints, got 'ab'"),
    (lambda: L.apply((1.5, 2)), r"got \(1.5, 2\): 1.5 is a float"),
    (lambda: L.apply(None), r"got None \(NoneType\)"),
    (lambda: L.group(32), r"group\(shape\): shape must be a tuple of ints, got 32"),
    (lambda: L.permute(1), r"permute\(perm\): perm must be a tuple of ints"),
    (lambda: L.slice((4, 8), (0, 2)), r"region must be one \(begin, end\) pair per dim, got \(0, 2\); "
                                      r"for one dim: \(\(0, 2\),\)"),
    (lambda: L.slice((4, 8), [(0, 2, 1), (0, 4)]), r"each region entry is \(begin, end\)"),
    (lambda: kmajor_layout(64, 16, SwizzleMode.parse("128B")), r"kmajor_layout\(shape, ...\): shape"),
    (lambda: parse_layout("Swizzle<128B> o S[(8, 64) : (64, 1)]").apply(3, 5), r"apply\(\(3, 5\)\)"),
])
def test_wrong_arity_or_type_is_explained(call, message):
    with pytest.raises(LayoutTypeError, match=message) as info:
        call()
    assert isinstance(info.value, LayoutError) and isinstance(info.value, TypeError)


def test_right_calls_still_work():
    assert L.apply(5) == L.apply((0, 5)) == [{L.shard[0].axis: 5}]
    assert L.apply([1, 2], (4, 8))[0] == L.apply(10)[0]
    assert L.apply(5, (32,)) == L.apply(5)
    assert str(L.slice((4, 8), [(0, 2), (0, 4)])) == "S[(2, 4) : (8, 1)]"
    with pytest.raises(LayoutError, match=r"region has 1 dims, shape has 2"):
        L.slice((4, 8), [(0, 2)])
    with pytest.raises(LayoutError, match=r"coordinate \(1, 2, 3\) has 3 dims"):
        L.apply((1, 2, 3))


def test_show_row_major_grid():
    assert show(L) == "\n".join([
        "S[(4, 8) : (8, 1)]  shape (4, 8)",
        "    0  1  2  3  4  5  6  7",
        "  +------------------------",
        "0 |  0  1  2  3  4  5  6  7",
        "1 |  8  9 10 11 12 13 14 15",
        "2 | 16 17 18 19 20 21 22 23",
        "3 | 24 25 26 27 28 29 30 31"])


def test_show_other_shape_and_every_cell_is_apply():
    lay = S[(4, 8) : (1, 4)]
    cells = show_mod.cells(lay, (2, 16))
    for (r, c), text in cells.items():
        assert int(text) == lay.apply((r, c), (2, 16))[0].get(lay.shard[0].axis, 0)
    assert show(lay, (2, 16)).splitlines()[3] == "0 |  0  4  8 12 16 20 24 28  1  5  9 13 17 21 25 29"


def test_show_tensor_memory_layout_with_replicas():
    text = show(parse_layout("S[(4, 4) : (1@TLane, 1@TCol)] + R[2 : 32@TLane]"))
    lines = text.splitlines()
    assert lines[0].endswith("cells: TLane,TCol  (replicas split by |)")
    assert lines[3] == "0 | 0,0|32,0 0,1|32,1 0,2|32,2 0,3|32,3"
    assert lines[6] == "3 | 3,0|35,0 3,1|35,1 3,2|35,2 3,3|35,3"


def test_show_swizzled_layout_in_elements():
    lay = parse_layout("Swizzle<128B> o S[(8, 64) : (64, 1)]")
    cells = show_mod.cells(lay, None, 16)
    # 128B swizzle: row 1's 16-byte chunks are XOR 1 (8 bf16 elements swap halves)
    assert [cells[(1, c)] for c in (0, 8)] == ["72", "64"]
    assert "(16-bit elements)" in show(lay, elem_bits=16).splitlines()[0]


def test_show_refuses_bad_input():
    with pytest.raises(LayoutError, match=r"shape \(3, 3\) has 9 elements"):
        show(L, (3, 3))
    with pytest.raises(LayoutTypeError, match=r"show\(\) takes a TileLayout"):
        show("S[(4, 8) : (8, 1)]")


def test_docstring_example():
    assert doctest.testmod(show_mod, extraglobs={"S": S}).failed == 0


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "tile_mlir.layout", *args], capture_output=True,
                          text=True, timeout=60)


def test_cli_show():
    out = _cli("show", "S[(4,8):(8,1)]", "--shape", "2x16")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "S[(4, 8) : (8, 1)]  shape (2, 16)"
    assert out.stdout.splitlines()[4].startswith("1 | 16 17")


@pytest.mark.parametrize("args, message", [
    (("show", "S[(4,8):(8)]"), "S[...] has 2 extents but 1 strides at column 9"),
    (("show", "S[(4,8):(8,1)]", "--shape", "3x3"), "shape (3, 3) has 9 elements"),
    (("show", "S[(4,8):(8,1)]", "--shape", "ax3"), "--shape takes dims such as 4x8"),
])
def test_cli_errors_are_one_line(args, message):
    out = _cli(*args)
    assert out.returncode == 1 and message in out.stderr and "Traceback" not in out.stderr
