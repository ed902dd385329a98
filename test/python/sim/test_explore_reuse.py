"""A launch's Machine reused across schedules (sim/explore/reuse.py) runs each schedule as a fresh
build does: the same verdict and report, the same output bytes, findings and step counts,
schedule for schedule, for bugs and fixed twins (docs/emulator.md §15)."""

import os
import sys

import numpy as np
import pytest

from tile_mlir.sim import run_ptx
from tile_mlir.sim.explore import driver
from tile_mlir.sim.explore import policy as _policy

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "zoo"))
from zoo_kernels import BUGS  # noqa: E402


def _runs(bug, fixed, n, box):
    """The default run, the probe and n schedules, all on ``box``'s machine when given."""
    ptx, given = bug.ptx(fixed), bug.args()
    kw, ref, res0 = driver.reference(ptx, "k", given, dict(**bug.launch(), strict=True), box)
    counts = driver.probe(ptx, "k", given, kw, box)
    out = [([x.tobytes() for x in ref["outputs"]], ref["findings"], res0.steps, counts)]
    for i in range(n):
        s = _policy.draw(5, i, depth=driver.DEPTH, **counts)
        pol = _policy.PriorityPolicy(s)
        res, a, err, m = driver._run(ptx, "k", given, kw, pol, box)
        v = driver._verdict(ref, res, a, err, m, pol, None)
        seen = None if res is None else (res.steps, [str(f) for f in res.findings],
                                         [x.tobytes() for x in res.shared], res.warnings)
        out.append((v, [x.tobytes() for x in a if isinstance(x, np.ndarray)], seen,
                    pol.asyncs, m.syncs))
    return out


@pytest.mark.parametrize("name", ["ring-release", "missing-arrive", "peer-release",
                                  "clc-response", "st-async-tx", "phase-alias",
                                  "named-barrier-count", "expect-tx-box", "cluster-init",
                                  "bar-publish"])
@pytest.mark.parametrize("fixed", [False, True])
def test_reused_machine_runs_each_schedule_as_a_fresh_one(name, fixed):
    bug = BUGS[name]
    if bug.default_finds and not fixed:
        pytest.skip("the default schedule reports it: nothing to explore")
    box: list = []
    fresh, reused = _runs(bug, fixed, 12, None), _runs(bug, fixed, 12, box)
    assert box and box[0].reusable
    for i, (f, r) in enumerate(zip(fresh, reused)):
        assert f == r, f"schedule {i}: {f[0]} != {r[0]}"
    if not fixed:
        assert any(r[0] for r in reused[1:])  # some schedule of the bug fails, reused as fresh


def test_a_failing_run_leaves_nothing_for_the_next():
    """A schedule that deadlocks (state left mid-run) is followed by a clean one: the machine
    reset gives the clean one the bytes and counts of a fresh build."""
    bug = BUGS["missing-arrive"]
    ptx = bug.ptx(False)
    kw, ref, _ = driver.reference(ptx, "k", bug.args(), dict(**bug.launch(), strict=True))
    counts = driver.probe(ptx, "k", bug.args(), kw)
    box: list = []
    kinds, given = [], bug.args()
    for i in range(40):
        s = _policy.draw(0, i, depth=driver.DEPTH, **counts)
        pol = _policy.PriorityPolicy(s)
        res, a, err, m = driver._run(ptx, "k", given, kw, pol, box)
        v = driver._verdict(ref, res, a, err, m, pol, None)
        kinds.append(v[0] if v else None)
        if v is None:
            assert [x.tobytes() for x in a] == [x.tobytes() for x in ref["outputs"]]
    assert "deadlock" in kinds and None in kinds[kinds.index("deadlock"):]


def test_a_schedule_drawn_again_runs_once():
    """named-barrier-count's fixed twin has 3 warps and 3 synchronisation operations: 3! priority
    orders times 3 pairs of change points, so 200 draws repeat schedules; each distinct one runs
    once, and the result counts every schedule drawn and the runs made."""
    bug = BUGS["named-barrier-count"]
    r = run_ptx(bug.ptx(True), "k", bug.args(), explore=200, seed=0, progress=False, workers=1,
                **bug.launch())
    assert not r.found and r.schedules == 200
    keys = {_policy.draw(0, i, depth=driver.DEPTH, **r.counts).key() for i in range(200)}
    assert r.runs == len(keys) <= 18
    assert f"200 schedule(s) ({r.runs} distinct runs)" in str(r)
    bad = run_ptx(bug.ptx(False), "k", bug.args(), explore=200, seed=0, progress=False,
                  workers=1, **bug.launch())
    assert bad.found and bad.runs <= bad.schedules  # the first failing index, as before
    assert bad.schedules == 3
