"""One hierarchy (issue 23 item 3): a kernel that fails on tile-sim, run through jit() or tile-run,
raises SimRunError, a TileRuntimeError (so a TileMLIRError) carrying tile-sim's EmulationError, its
findings and the PTX line; tile_mlir.sim itself keeps raising its own EmulationError."""
from __future__ import annotations

import numpy as np
import pytest

import tile_mlir
from tile_mlir.runtime import SimRunError, TileRuntimeError
from tile_mlir.runtime import tile_run
from tile_mlir.sim import EmulationError

# thread 0 initialises a barrier that nobody arrives on; everyone waits on it
HANG = """
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 32xi32>):
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %is0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %is0 {
    "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  }
  "tile.barrier"() : () -> ()
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "hang", block = array<i32: 32, 1, 1>} : () -> ()
"""


def test_deadlock_through_jit_is_a_tile_runtime_error():
    kernel = tile_mlir.jit(HANG, backend="sim")
    with pytest.raises(tile_mlir.TileMLIRError) as info:
        kernel(np.zeros(32, np.int32))
    err = info.value
    assert isinstance(err, SimRunError) and isinstance(err, TileRuntimeError)
    assert isinstance(err, RuntimeError)
    assert isinstance(err.error, EmulationError) and err.__cause__ is err.error
    assert "deadlock" in str(err) and "mbarrier.try_wait" in str(err)
    # no one PTX line; the deadlock names the first blocked wait's tile IR position (line info is on for sim)
    assert err.kernel == "hang" and err.ptx_line is None and err.location == err.source == "<tile>:13:3"
    assert err.findings == ()
    assert tile_mlir.SimRunError is SimRunError


def test_tile_run_reports_it_as_an_error(tmp_path, capsys):
    path = tmp_path / "hang.mlir"
    path.write_text(HANG)
    assert tile_run.main([str(path), "--backend", "sim", "--print", "none"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:13:3: error: deadlock") and "tile-run: error:" not in err, err
    assert "Traceback" not in err


class _Found:
    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def test_located_error_names_the_ptx_line_findings_and_the_run_hint():
    """An error tied to one instruction names its line of artifact.ptx; the emulator's hint for its
    own API (run_ptx's strict=False) is reworded for a kernel run through the runtime."""
    from tile_mlir.sim.errors import located

    ptx = ".version 8.7\n.target sm_100a\n  st.shared.b32 [%r1], %r2;\n"
    e = located("store races with the tcgen05.cp reading it [pass strict=False to downgrade to a "
                "warning]", line=3, text="st.shared.b32 [%r1], %r2;")
    e.findings = [_Found("race at shared 0x40")]  # what tile-sim reports besides (when it does)
    err = SimRunError(e, kernel="k", ptx=ptx)
    assert err.ptx_line == 3 and err.instruction == "st.shared.b32 [%r1], %r2;"
    assert err.location == "k: PTX line 3"
    assert [repr(f) for f in err.findings] == ["race at shared 0x40"]
    assert str(err).startswith("line 3: `st.shared.b32 [%r1], %r2;`: store races")
    assert "pass strict=False" not in str(err) and "jit(..., strict=False)" in str(err)


def test_the_emulator_alone_raises_its_own_error_inside_the_tree():
    """run_ptx on its own raises tile-sim's EmulationError (not the runtime's SimRunError), which is a
    TileMLIRError like every error of the package (errors.py)."""
    from tile_mlir.sim import run_ptx
    with pytest.raises(EmulationError) as info:
        run_ptx("not ptx at all", None, [])
    assert isinstance(info.value, tile_mlir.TileMLIRError)
    assert not isinstance(info.value, tile_mlir.SimRunError)


def test_source_location_from_the_ptx_line_information():
    """With line information in the PTX (`.file` / `.loc`), the error names the tile IR position of the
    failing instruction; a `.loc` of another function does not count."""
    from tile_mlir.sim.errors import located

    ptx = "\n".join(['.file 1 "kernel.mlir"', ".visible .entry a()", "{", ".loc 1 7 3", "  ret;", "}",
                     ".visible .entry k()", "{", ".loc 1 12 5", "  st.shared.b32 [%r1], %r2;",
                     "  bar.sync 0;", "}", ".visible .entry n()", "{", "  ret;", "}"])
    err = SimRunError(located("race", line=11, text="bar.sync 0;"), kernel="k", ptx=ptx)
    assert err.source == "kernel.mlir:12:5" and err.location == "kernel.mlir:12:5"
    err = SimRunError(located("race", line=15, text="ret;"), kernel="n", ptx=ptx)
    assert err.source is None and err.location == "n: PTX line 15"
