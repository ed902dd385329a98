"""Parameter names survive tile-opt's printing (issue 35 item 4): `%A` prints as `%A`, not `%arg0`, so
printed IR still takes `kernel(A=...)` and `tile-run -i A=...`; names come from the source text or the
kernel's arg_names attribute (the builders'), and the printed text parses back to the same names."""
from __future__ import annotations

import io
import pathlib

import numpy as np
import pytest

import tile_mlir
from tile_mlir.opt.command import TileOptMain
from tile_mlir.opt.param_print import with_param_names

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir")) + sorted((ROOT / "examples" / "tutorial").glob("*.mlir"))


def _tile_opt(path, *argv) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert TileOptMain([str(path), *argv], stdout=out, stderr=err).run() == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_printed_examples_keep_their_parameter_names(path, tmp_path):
    from tile_mlir.driver.signature import _text_arg_lists

    source = path.read_text()
    printed = _tile_opt(path)
    assert "%arg0" not in printed
    assert _text_arg_lists(printed) == _text_arg_lists(source)
    again = tmp_path / "again.mlir"
    again.write_text(printed)
    assert _tile_opt(again) == printed


def test_tile_run_and_jit_take_the_names_of_printed_ir(tmp_path, capsys):
    from tile_mlir.runtime import tile_run

    printed = tmp_path / "demo_printed.mlir"
    printed.write_text(_tile_opt(ROOT / "examples" / "demo.mlir", "--tile-verify"))
    a = ((np.arange(512) * 5) % 256).astype(np.uint8).reshape(32, 16)
    np.save(tmp_path / "a.npy", a)
    assert tile_run.main([str(printed), "--backend", "sim", "-i", f"A={tmp_path / 'a.npy'}",
                          "--output-dir", str(tmp_path / "o"), "--print", "none"]) == 0
    assert np.array_equal(np.load(tmp_path / "o" / "out.npy"), np.tile(a, (4, 1)))
    kernel = tile_mlir.jit(str(printed), backend="sim")
    out = np.zeros((128, 16), np.uint8)
    kernel(A=a, out=out)
    assert [p.name for p in kernel.params] == ["A", "out"] and np.array_equal(out, np.tile(a, (4, 1)))


def test_builder_modules_print_their_arg_names():
    from tile_mlir.frontend.context import make_context
    from tile_mlir.mlir import ir
    from tile_mlir.opt.output import asm

    src = (ROOT / "examples" / "demo.mlir").read_text()
    with make_context():
        module = ir.Module.parse(src)
        kernel = module.body.operations[0]
        kernel.attributes["arg_names"] = ir.ArrayAttr.get([ir.StringAttr.get("x"), ir.StringAttr.get("y")])
        args = TileOptMain([])._parser().parse_args(["-"])
        text = asm(module, args)  # no source text: the attribute names them
    assert "^bb0(%x: !global_32x16xui8, %y: !global_128x16xui8):" in text


def test_strings_comments_and_other_kernels_are_left_alone():
    text = ('"tile.kernel"() ({\n^bb0(%arg0: i32, %arg1: i32):\n  "x"(%arg0) {s = "%arg0 %arg1"} : (i32) -> ()\n'
            '  // %arg1 in a comment\n  "tile.return"() : () -> ()\n}) {sym_name = "k"} : () -> ()\n'
            '"tile.kernel"() ({\n^bb0(%arg0: i32):\n  "tile.return"() : () -> ()\n}) {sym_name = "j"} : () -> ()\n')
    out = with_param_names(text, [["n", "m"], None])
    assert out == text.replace("^bb0(%arg0: i32, %arg1", "^bb0(%n: i32, %m").replace('"x"(%arg0)', '"x"(%n)')
    assert with_param_names(text, [["n", "m"]]) == text  # kernel counts differ: unchanged
