"""Dispatch made visible (issue 23 items 4 and 5): a compile's warnings reach Python as TileWarning
(a copy_async meant as TMA that took cp.async), and none of our own kernels raises one."""
from __future__ import annotations

import pathlib
import warnings

import pytest

import tile_mlir

ROOT = pathlib.Path(__file__).resolve().parents[3]
REMARKS = ROOT / "test" / "Tools" / "tile-opt" / "dispatch-remarks.mlir"


def test_a_copy_meant_as_tma_warns_through_python():
    text = REMARKS.read_text().split("// -----")[0]
    with pytest.warns(tile_mlir.TileWarning, match=r"x\.mlir:34:5: warning: 'tile\.copy_async' op lowered to "
                                                    r"cp\.async .* it has no mbarrier"):
        tile_mlir.compile(text, "sm_100a", filename="x.mlir", emit=("ptx",))


@pytest.mark.parametrize("path", sorted(str(p.relative_to(ROOT)) for p in
                                        [*ROOT.glob("examples/*.mlir"), *ROOT.glob("examples/tutorial/*.mlir")]))
def test_our_kernels_compile_without_warnings(path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", tile_mlir.TileWarning)
        tile_mlir.compile(ROOT / path, "sm_100a", emit=("ptx",))
