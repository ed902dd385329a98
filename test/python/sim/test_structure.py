"""tile-sim's structure (issue #9): no import cycles in the package, the opcodes TABLE names real
handlers, every handler family declares its state under its own name, and the hooks a family
registers come with the instructions that need them."""

import importlib
import pathlib
import pkgutil
import sys

import pytest

import tile_mlir.sim as sim
import tile_mlir.sim.handlers as handlers
from tile_mlir.sim import opcodes, state
from tile_mlir.sim.handlers import cp_async
from tile_mlir.sim.machine import Machine
from tile_mlir.sim.ptx_parser import parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # test/python, for import_graph
from import_graph import first_cycle, imports  # noqa: E402

ROOT = pathlib.Path(sim.__file__).parent
FAMILIES = [importlib.import_module(f"tile_mlir.sim.handlers.{m.name}")
            for m in pkgutil.iter_modules(handlers.__path__)]


def test_no_import_cycles_in_sim():
    sim_graph = {m: deps for m, deps in imports(ROOT.parent).items() if m.startswith("tile_mlir.sim")}
    cycle = first_cycle(sim_graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_state_module_is_at_the_bottom():
    assert imports(ROOT.parent)["tile_mlir.sim.state"] <= {"tile_mlir.sim.errors", "tile_mlir.sim.memory"}
    for m in FAMILIES:  # handlers reach the machine only through the M they are given
        assert "tile_mlir.sim.machine" not in imports(ROOT.parent)[m.__name__], m.__name__


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
        state.Kept("tcgen05_async", "thread", lambda t: None)


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
