"""tile-sim's structure (issue #9): no import cycles in the package, the opcodes TABLE names real
handlers, every handler family declares its state under its own name, and the hooks a family
registers come with the instructions that need them."""

import ast
import importlib
import pathlib
import pkgutil

import pytest

import tile_mlir.sim as sim
import tile_mlir.sim.handlers as handlers
from tile_mlir.sim import opcodes, state
from tile_mlir.sim.handlers import cp_async
from tile_mlir.sim.machine import Machine
from tile_mlir.sim.ptx_parser import parse

ROOT = pathlib.Path(sim.__file__).parent
FAMILIES = [importlib.import_module(f"tile_mlir.sim.handlers.{m.name}")
            for m in pkgutil.iter_modules(handlers.__path__)]


def _module(path):
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return "tile_mlir." + ".".join(parts)


def _imports(path, mods):
    """Modules of the sim package that `path` imports, anywhere in the file (a late import inside a
    function is still a dependency)."""
    mod = _module(path)
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                     for a in node.names]
        else:
            continue
        for n in names:
            while n and n not in mods:
                n = n.rpartition(".")[0]
            if n and n != mod and not mod.startswith(n + "."):  # not its own package's __init__
                out.add(n)
    return out


def test_no_import_cycles_in_sim():
    files = {_module(p): p for p in ROOT.rglob("*.py")}
    graph = {m: _imports(p, files) for m, p in files.items()}
    done, path = set(), []

    def visit(m):
        if m in path:
            cycle = path[path.index(m):] + [m]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if m in done:
            return
        path.append(m)
        for n in sorted(graph[m]):
            visit(n)
        path.pop()
        done.add(m)

    for m in sorted(graph):
        visit(m)


def test_state_module_is_at_the_bottom():
    files = {_module(p): p for p in ROOT.rglob("*.py")}
    assert _imports(files["tile_mlir.sim.state"], files) <= {"tile_mlir.sim.errors",
                                                             "tile_mlir.sim.memory"}
    for m in FAMILIES:  # handlers reach the machine only through the M they are given
        assert "tile_mlir.sim.machine" not in _imports(pathlib.Path(m.__file__), files), m.__name__


@pytest.mark.parametrize("mnemonic", sorted(opcodes.TABLE))
def test_table_row_names_a_handler(mnemonic):
    op = opcodes.TABLE[mnemonic]
    mod = op.decode.__module__
    assert mod.startswith("tile_mlir.sim.handlers."), f"{mnemonic}: {op.decode} is not a handler"
    assert getattr(importlib.import_module(mod), op.decode.__name__) is op.decode
    assert op.decode.__name__.startswith("decode_")
    assert op.scope in ("thread", "warp", "cta", "cluster")
    assert opcodes.lookup(mnemonic.split(".")) == (mnemonic, op)


def test_families_declare_their_state_under_their_own_name():
    declared = []
    for m in FAMILIES:
        family = m.__name__.rpartition(".")[2]
        for k in vars(m).values():
            if isinstance(k, state.Kept):
                assert k.name == f"{family}/{k.scope}", f"{m.__name__} declares {k.name}"
                assert k.scope in state.SCOPES
                declared.append(k)
    names = [k.name for k in declared]
    assert len(names) == len(set(names)), names
    assert sorted(names) == sorted(state.KEPT)
    with pytest.raises(ValueError, match="declared twice"):
        state.Kept("tcgen05", "thread", lambda t: None)


def _machine(body, regs=""):
    ptx = (".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n"
           ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n" + regs +
           ".shared .align 16 .b8 buf[256];\n" + body + "ret;\n}\n")
    mod = parse(ptx)
    return Machine(mod, mod.entry("k"), grid=(1, 1, 1), block=(32, 1, 1), cluster=(1, 1, 1),
                   dynamic_smem=0, strict=True, trace=False, max_steps=10**6)


def test_hooks_come_with_the_instructions_that_need_them():
    plain = _machine("st.shared.u32 [buf], 1;\nld.shared.u32 %r1, [buf];\n")
    assert plain.hooks.shared_load == plain.hooks.shared_store == []
    assert plain.hooks.thread_exit == plain.hooks.cta_done == []

    cpa = _machine("mov.u64 %rd1, 0;\ncp.async.ca.shared.global [buf], [%rd1], 4;\n"
                   "cp.async.ca.shared.global [buf+4], [%rd1], 4;\ncp.async.wait_all;\n")
    assert cpa.hooks.shared_load == [cp_async.check_load]  # once, for two instructions
    assert cpa.hooks.shared_store == [cp_async.check_store]
    assert cpa.hooks.thread_exit == [cp_async.check_exit]
