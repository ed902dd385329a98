"""Issue 36 classes 9-11: bounds on what the layout viewer builds from its input, and no traceback of an
exception that is not ours from any command line (the layout viewer's options, TILE_MLIR_BINDINGS naming
no provider, output into a closed pipe, the GEMM examples' out-of-range options)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tile_mlir.layout import grid, parse_layout

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIG = "9" * 5000


def run(args, env=None, stdout=subprocess.PIPE, timeout=120):
    full = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "python"), os.path.join(ROOT, "examples")]),
            **(env or {})}
    return subprocess.run([sys.executable, *args], stdout=stdout, stderr=subprocess.PIPE, text=True, env=full,
                          timeout=timeout, cwd=ROOT)


def one_line_error(r, *needles):
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    last = r.stderr.strip().splitlines()[-1]
    assert all(n in last for n in needles), last


# -- class 9: the viewer's grid is bounded --------------------------------------------------------------------
@pytest.mark.parametrize("layout, shape", [("S[(65536, 65536) : (1, 65536)]", None),
                                            ("S[(2, 4) : (1, 2)]", (1,) * 40 + (8,)),
                                            ("S[(1024, 1024) : (1024, 1)]", (1 << 20,))])
def test_show_refuses_grids_past_its_bound(layout, shape):
    with pytest.raises(grid.LayoutError, match=r"cells, more than the 65536|at most 32 of them"):
        grid.show(parse_layout(layout), shape)


def test_show_still_draws_the_largest_grid():
    assert grid.show(parse_layout("S[(256, 256) : (256, 1)]")).count("\n") == 258


# -- class 10: the viewer's options --------------------------------------------------------------------------
@pytest.mark.parametrize("args, needle", [
    (["show", "S[(2,4):(1,2)]", "--shape", ""], "--shape takes dims such as 4x8"),
    (["show", "S[(2,4):(1,2)]", "--shape=-2x-4"], "--shape takes dims such as 4x8"),
    (["show", "S[(2,4):(1,2)]", "--shape", BIG], "--shape takes dims such as 4x8"),
    (["show", f"S[({BIG},4):(1,2)]"], "integer of 5000 digits in shape"),
    (["show", f"S[(2,4):(1,{BIG})]"], "integer of 5000 digits in strides"),
    (["show", "S[(2,4):(1,2)]", "--bits", BIG], "--bits takes an element width"),
    (["show", "S[(65536,65536):(1,65536)]"], "more than the 65536 a grid shows"),
])
def test_layout_viewer_options_are_one_line_errors(args, needle):
    one_line_error(run(["-m", "tile_mlir.layout", *args], timeout=30), needle)


# -- class 10: tile-opt and the other tools ------------------------------------------------------------------
@pytest.mark.parametrize("value", ["bogus", "cutlas"])
def test_an_unknown_bindings_provider_is_one_line(value):
    one_line_error(run(["-m", "tile_mlir.tools.tile_opt", "--version"], env={"TILE_MLIR_BINDINGS": value}),
                   "tile-opt: error: cannot load the MLIR bindings", repr(value))


@pytest.mark.parametrize("tool", [["-m", "tile_mlir.tools.tile_opt", "--help"],
                                  ["-m", "tile_mlir.tools.tile_opt", "--list-passes"],
                                  ["-m", "tile_mlir.layout", "show", "S[(256,256):(1,256)]"],
                                  ["-m", "tile_mlir.tools.tile_run", "--help"]])
def test_output_into_a_closed_pipe_is_no_traceback(tool):
    r, w = os.pipe()
    os.close(r)
    try:
        p = run(tool, stdout=w)
    finally:
        os.close(w)
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr[-2000:]


# -- class 11: the GEMM examples' options ----------------------------------------------------------------------
@pytest.mark.parametrize("example, args, needle", [
    ("gemm_persistent.py", ["--group-m", "70000", "--ptx"], "--group-m: expected an integer in 1 .. 65536"),
    ("gemm_persistent_blackwell.py", ["-M", "100000000000", "--ptx"], "-M: expected an integer in 1 .. 4294967296"),
    # (each example once in make test: a second option of the same example in the slow tier)
    pytest.param("gemm_blockscaled.py", ["-N", BIG[:30]], "-N: expected an integer", marks=pytest.mark.slow),
    pytest.param("gemm_persistent.py", ["--stages", "99"], "--stages: expected an integer in 0 .. 64",
                 marks=pytest.mark.slow),
    ("gemm_dense_blackwell.py", ["-M", "3000000000", "--run", "sim"], "sizes from 1 to 2147483647"),
    # in range for argparse, but a grid past CUDA's limits: the kernel's diagnostic, as one usage error
    ("gemm_blockscaled.py", ["-M", "10000000", "--ptx"], "launch-shape"),
])
def test_gemm_examples_out_of_range_options_are_usage_errors(example, args, needle):
    r = run([os.path.join("examples", example), *args], timeout=300)
    assert r.returncode in (1, 2) and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert needle in r.stderr
