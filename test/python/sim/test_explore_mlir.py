"""Bugs written in tile IR (bench/zoo/tile_ir/): exploration reports them at the tile IR line --
tile-run --explore compiles with line info, and a failing schedule's report names ``file:line:col``:
the faulting op for an error, the op whose store published the differing byte for an output
difference (sim/explore/blame.py) -- and the fixed twins stay clean (docs/emulator.md §15)."""

import os
import re
import sys

import pytest

from tile_mlir.sim import run_ptx

ZOO = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "zoo")
sys.path.insert(0, ZOO)
from zoo_mlir import MLIR_BUGS, source  # noqa: E402


@pytest.mark.parametrize("name,kind,at", [
    ("bar-publish-ir", "output", r"bar_publish\.mlir:19:5 \(PTX line \d+ `st\.global"),
    ("ring-release-ir", "output", r"ring_release\.mlir:32:5 \(PTX line \d+ `st\.global"),
    ("named-barrier-count-ir", "error", r"named_barrier_count\.mlir:12:5: error: .*bar-count"),
])
def test_tile_ir_bug_is_reported_at_its_tile_ir_line(name, kind, at):
    bug = MLIR_BUGS[name]
    kw = dict(**bug.launch(), strict=True, progress=False)
    r = run_ptx(bug.ptx(False), bug.kernel, bug.args(), explore=40, seed=0, **kw)
    assert r.found and r.failure.kind == kind, str(r)
    assert re.search(at, r.failure.report), r.failure.report
    again = run_ptx(bug.ptx(False), bug.kernel, bug.args(), replay=(0, r.failure.schedule.index),
                    **{k: v for k, v in kw.items() if k != "progress"})
    assert again.failure.report == r.failure.report
    fixed = run_ptx(bug.ptx(True), bug.kernel, bug.args(), explore=20, seed=3, **kw)
    assert not fixed.found and fixed.schedules == 20, str(fixed)


def test_output_report_names_both_schedules_values_and_writers():
    bug = MLIR_BUGS["bar-publish-ir"]
    r = run_ptx(bug.ptx(False), bug.kernel, bug.args(), explore=40, seed=1, progress=False,
                **bug.launch())
    rep = r.failure.report
    assert re.search(r"byte 0: 0x00 under this schedule, written last at .*bar_publish", rep)
    assert re.search(r"0xbe under the default schedule, written last at .*bar_publish", rep)


def test_tile_run_prints_the_tile_ir_line_and_the_replay(tmp_path, capsys):
    from tile_mlir.runtime.tile_run import main
    path = tmp_path / "publish.mlir"
    path.write_text(source("bar_publish.mlir", False))
    assert main([str(path), "--explore", "40", "--no-progress"]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert re.search(r"publish\.mlir:19:5 \(PTX line \d+", text), text
    assert "--replay 0:" in text
    path.write_text(source("bar_publish.mlir", True))
    assert main([str(path), "--explore", "20", "--no-progress"]) == 0
