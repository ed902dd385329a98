"""Issue #22: parameter names come from the kernel's own argument list as the source text writes it
(or an explicit `arg_names` attribute), never from locations: crafted block-argument locs swapped the
names, and a keyword call then bound the caller's input as the output."""
import os

import tile_mlir
from tile_mlir.driver.signature import _text_arg_lists

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DEMO = open(os.path.join(ROOT, "examples", "demo.mlir")).read()
HEADER = "^bb0(%A: !gA, %out: !gOut):"
# line 19 of demo.mlir becomes two lines (19 and 20), each argument's loc pointing at the other's %name
CRAFTED = ('^bb0(%A: !gA loc("in.mlir":20:1),\n'
           '%out: !gOut loc("in.mlir":19:6)):')


def test_crafted_locations_do_not_swap_the_names():
    assert HEADER in DEMO
    text = DEMO.replace(HEADER, CRAFTED)
    art = tile_mlir.compile(text, arch="sm_100a", filename="in.mlir")
    assert [p.name for p in art.params] == ["A", "out"]
    assert art.meta["outputs"] == ["out"] or tuple(art.meta["outputs"]) == ("out",)


def test_names_are_read_from_each_kernels_argument_list():
    text = ('// "tile.kernel"() ({^bb0(%zz: i32):\n' + DEMO + "\n"
            '"tile.kernel"() ({\n  "tile.return"() : () -> ()\n}) {sym_name = "e", block = array<i32: 32, 1, 1>} : () -> ()\n'
            '"tile.kernel"() ({\n^bb0(%n: i32 loc("x":1:1), %m: !tile.buffer<global, 4xi32>):\n'
            '  "tile.return"() : () -> ()\n}) {sym_name = "f", block = array<i32: 32, 1, 1>} : () -> ()\n')
    assert _text_arg_lists(text) == [["A", "out"], [], ["n", "m"]]


def test_without_text_the_names_are_positional():
    assert _text_arg_lists("") == []
