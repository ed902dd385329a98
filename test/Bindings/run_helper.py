"""Shared by the test/Bindings lit tests: `run(f)` prints TEST: name, runs f, and checks no MLIR context
outlives it (as upstream's binding tests do), but for the one compile() keeps for reuse, released first."""
import gc
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "python"))


def run(f):
    print("\nTEST:", f.__name__)
    f()
    from tile_mlir.frontend.context import release_compile_context
    from tile_mlir.mlir import ir

    release_compile_context()
    gc.collect()
    assert ir.Context._get_live_count() == 0, f"{ir.Context._get_live_count()} live contexts after {f.__name__}"
    return f
