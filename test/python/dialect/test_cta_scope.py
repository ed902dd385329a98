"""Issue #22 class 2: a scoped op's threads must exist in its kernel's block (warp: 32, warpgroup: 128).
A warpgroup tile.copy in a 32-thread CTA copied a quarter of the tile, a warp copy in 16 threads half,
a warpgroup tile.tmem.load in one warp wrote rows 0-31 only, all silently."""
import os

import pytest

import tile_mlir
from tile_mlir import TileError

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DEMO = open(os.path.join(ROOT, "examples", "demo.mlir")).read()
COPY = '"tile.copy"(%smem, %A) {scope = "cta"}'


def compile_demo(block, copy_scope="cta"):
    text = DEMO.replace("block = array<i32: 128, 1, 1>", f"block = array<i32: {block}, 1, 1>")
    text = text.replace(COPY, COPY.replace('"cta"', f'"{copy_scope}"'))
    return tile_mlir.compile(text, arch="sm_100a", emit=("ptx",))


@pytest.mark.parametrize("block,scope,op,need", [
    (32, "warpgroup", "tile.copy", 128),
    (16, "warp", "tile.copy", 32),
    (32, "cta", "tile.tmem.load", 128),  # the demo's warpgroup tmem.load in one warp
])
def test_scope_wider_than_the_cta_is_a_diagnostic_at_the_op(block, scope, op, need):
    with pytest.raises(TileError, match=rf"'{op}' op scope: scope \w+ spans {need} threads .* block has {block}"):
        compile_demo(block, scope)


def test_scopes_that_fit_still_compile():
    assert compile_demo(128, "warpgroup").ptx
    assert compile_demo(128, "warp").ptx
