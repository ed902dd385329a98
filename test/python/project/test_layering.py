"""The package's shape (issue #9): no import cycles anywhere in tile_mlir, and the layers import only
downwards — layout/ and dialect/ never import lowering/, runtime/ or sim/; sim/ (an independent oracle)
imports nothing from layout/, dialect/ or lowering/; target.py is pure Python. Issue 30: no hidden cycle
through a package's __init__ either, and every import inside a function says why it is late."""
from __future__ import annotations

import pathlib

import pytest

import tile_mlir
from import_graph import first_cycle, imports, late_imports

ROOT = pathlib.Path(tile_mlir.__file__).parent


def _under(mod: str, area: str) -> bool:
    return mod == f"tile_mlir.{area}" or mod.startswith(f"tile_mlir.{area}.")


def test_graph_sees_the_package():
    assert {"tile_mlir.target", "tile_mlir.dialect.ops", "tile_mlir.lowering.tile_to_nvvm",
            "tile_mlir.runtime.jit", "tile_mlir.sim.state"} <= set(imports(ROOT))


def test_no_import_cycles():
    cycle = first_cycle(imports(ROOT))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_cycles_through_a_package_init():
    """A submodule that imports a name defined in its package's __init__ needs that __init__ to have run
    to that line; if the __init__ imports the submodule, that is a cycle (sim/pool.py once took
    build_machine from sim/__init__, which imports pool)."""
    cycle = first_cycle(imports(ROOT, init_names=True))
    assert cycle is None, "import cycle through a package __init__: " + " -> ".join(cycle)


def test_init_names_count_as_an_edge(tmp_path):
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .a import f\ndef g(): pass\n")
    (pkg / "a.py").write_text("def f():\n    from . import g  # (late)\n")
    assert first_cycle(imports(pkg)) is None
    assert first_cycle(imports(pkg, init_names=True)) == ["p", "p.a", "p"]


def test_late_imports_finds_those_without_a_reason(tmp_path):
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import os\n")
    (pkg / "a.py").write_text("def f():\n    # (late: why)\n    from . import b\n    from p import c\n    import os\n\n"
                              "    from .b import d\n    from p.c import e  # (late: why)\n")
    assert [(line, why) for _, line, why in late_imports(pkg, "p")] == [(3, True), (4, True), (7, False), (8, True)]


def test_late_imports_say_why():
    """An import of tile_mlir inside a function is late only where a start-up needs it (`tile-opt --help`,
    `import tile_mlir.sim`, the runner without MLIR bindings...), and a comment on it says which."""
    bad = [f"{p.relative_to(ROOT.parent)}:{line}" for p, line, why in late_imports(ROOT, "tile_mlir") if not why]
    assert not bad, f"{len(bad)} late imports without a reason: " + ", ".join(bad)


def test_first_cycle_finds_one():
    assert first_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("area, forbidden", [
    ("layout", ("dialect", "lowering", "runtime", "sim", "mlir")),
    ("dialect", ("lowering", "runtime", "sim")),
    ("sim", ("layout", "dialect", "lowering", "runtime", "mlir")),
    ("target", ("mlir", "dialect", "lowering", "runtime", "sim")),
])
def test_layers_import_downwards(area, forbidden):
    bad = sorted(f"{m} -> {n}" for m, deps in imports(ROOT).items() if _under(m, area)
                 for n in deps for f in forbidden if _under(n, f))
    assert not bad, bad
