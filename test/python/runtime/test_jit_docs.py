"""What a new user reads (issue 23): help(tile_mlir.jit) carries the runtime.jit module's rules (the
function's name shadows the module's), and LaunchResult.outputs vs artifact.outputs say what they hold."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

import tile_mlir
import tile_mlir.runtime

DEMO = "examples/demo.mlir"


def test_help_of_jit_has_the_module_docstring():
    doc = tile_mlir.runtime.jit.__doc__
    assert tile_mlir.jit is tile_mlir.runtime.jit
    assert doc.startswith("A callable kernel (:class:`JitKernel`)")
    for words in ("Module tile_mlir.runtime.jit:", "Device faults", "Caching", "numpy arrays: copied"):
        assert words in doc
    assert "help(tile_mlir.jit)" in tile_mlir.runtime.JitKernel.__doc__


def test_docstrings_stripped_do_not_break_the_import():
    out = subprocess.run([sys.executable, "-OO", "-c", "from tile_mlir.runtime import jit; print(jit.__doc__)"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "None", out.stderr


def test_launch_result_outputs_hold_the_written_buffers_buffers_every_one():
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[3]
    kernel = tile_mlir.jit(str(root / DEMO), backend="sim")
    a, out = np.arange(512, dtype=np.uint8).reshape(32, 16), np.zeros((128, 16), np.uint8)
    result = kernel(a, out)
    assert list(result.outputs) == ["out"] and result.outputs["out"] is out
    assert list(result.buffers) == ["A", "out"] and result["A"] is a and result["out"] is out
    assert kernel.artifact.outputs == ("out",)
    assert "the ones\n    the kernel only reads" in type(result).__doc__ and "out" in repr(result) and "'A'" not in repr(result)
