"""The package's shape (issue #9): no import cycles anywhere in tile_mlir, and the layers import only
downwards — layout/ and dialect/ never import lowering/, runtime/ or sim/; sim/ (an independent oracle)
imports nothing from layout/, dialect/ or lowering/; target.py is pure Python."""
from __future__ import annotations

import pathlib

import pytest

import tile_mlir
from import_graph import first_cycle, imports

ROOT = pathlib.Path(tile_mlir.__file__).parent
GRAPH = imports(ROOT)


def _under(mod: str, area: str) -> bool:
    return mod == f"tile_mlir.{area}" or mod.startswith(f"tile_mlir.{area}.")


def test_graph_sees_the_package():
    assert {"tile_mlir.target", "tile_mlir.dialect.ops", "tile_mlir.lowering.tile_to_nvvm",
            "tile_mlir.runtime.jit", "tile_mlir.sim.state"} <= set(GRAPH)


def test_no_import_cycles():
    cycle = first_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_first_cycle_finds_one():
    assert first_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("area, forbidden", [
    ("layout", ("dialect", "lowering", "runtime", "sim", "mlir")),
    ("dialect", ("lowering", "runtime", "sim")),
    ("sim", ("layout", "dialect", "lowering", "runtime", "mlir")),
    ("target", ("mlir", "dialect", "lowering", "runtime", "sim")),
])
def test_layers_import_downwards(area, forbidden):
    bad = sorted(f"{m} -> {n}" for m, deps in GRAPH.items() if _under(m, area)
                 for n in deps for f in forbidden if _under(n, f))
    assert not bad, bad
