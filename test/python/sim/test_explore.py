"""Schedule exploration (sim/explore/): the bug zoo's kernels pass under the default schedule and
fail under an explored one, replayably; their fixed twins stay clean; reports and minimisation
(a fast subset of bench/zoo/run.py; docs/emulator.md, schedule exploration)."""

import os
import sys

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim.explore import PriorityPolicy, Schedule, draw, replay
from tile_mlir.sim.explore import driver

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "zoo"))
from zoo_kernels import BUGS, args  # noqa: E402

EXPLORED = [n for n, b in BUGS.items() if not b.default_finds]


def _kw(bug, strict=True):
    return dict(**bug.launch(), strict=strict, progress=False)


@pytest.mark.parametrize("name", EXPLORED)
def test_zoo_bug_passes_by_default_and_is_found_and_replayed(name, assemble):
    bug = BUGS[name]
    assemble(bug.ptx(False))
    assemble(bug.ptx(True))
    good, bad = args(), args()
    run_ptx(bug.ptx(True), "k", good, workers=1, **_kw(bug))
    run_ptx(bug.ptx(False), "k", bad, workers=1, **_kw(bug))
    assert all(x.tobytes() == y.tobytes() for x, y in zip(good, bad))  # the default passes
    given = args()
    r = run_ptx(bug.ptx(False), "k", given, explore=50, seed=0, **_kw(bug))
    assert r.found and r.schedules <= 50, str(r)
    assert all(x.tobytes() == y.tobytes() for x, y in zip(given, args()))  # arrays untouched
    kw = _kw(bug)
    kw.pop("progress")
    again = replay(bug.ptx(False), "k", args(), seed=0, index=r.failure.schedule.index, **kw)
    assert again is not None and again.kind == r.failure.kind
    assert again.report == r.failure.report
    assert r.minimised is not None and r.minimised.kind == r.failure.kind


@pytest.mark.parametrize("name", list(BUGS))
def test_zoo_fixed_twin_is_clean(name):
    bug = BUGS[name]
    r = run_ptx(bug.ptx(True), "k", args(), explore=12, seed=7, **_kw(bug))
    assert not r.found, str(r)
    assert r.schedules == 12


DEFAULT_FINDS = {"expect-tx-box": r"races with the cp.async.bulk",
                 "store-fence": r"no fence.proxy.async between them"}


@pytest.mark.parametrize("name", [n for n, b in BUGS.items() if b.default_finds])
def test_bugs_the_default_schedule_already_reports(name, assemble):
    bug = BUGS[name]
    assemble(bug.ptx(False))
    with pytest.raises(EmulationError, match=DEFAULT_FINDS[name]):
        run_ptx(bug.ptx(False), "k", args(), workers=1, **_kw(bug))


def test_async_completions_are_counted_and_delivered_late():
    bug = BUGS["expect-tx-box"]
    ptx = bug.ptx(True)
    kw = driver._launch_kw(dict(block=(bug.block, 1, 1), strict=True))
    ref = args()
    run_ptx(ptx, "k", ref, workers=1, block=(bug.block, 1, 1), strict=True)
    for delays in ({0: 9}, {1: 9}, {0: 3, 1: 1}):
        pol = PriorityPolicy(Schedule(0, 0, [3, 4], [], delays))
        res, a, err, m = driver._run(ptx, "k", args(), kw, pol)
        assert err is None and pol.asyncs == 2
        assert a[1].tobytes() == ref[1].tobytes()
    # the unfixed kernel with its second box late: the phase completes on the first box; with
    # the producer first the consumer reads the second box's bytes while they are in flight ...
    pol = PriorityPolicy(Schedule(0, 0, [4, 3], [], {1: 9}))
    _, a, err, _ = driver._run(bug.ptx(False), "k", args(), kw, pol)
    assert err is not None and "whose bytes have not landed yet" in str(err)
    # ... with the consumer first, before the second copy is even issued: other output bytes
    pol = PriorityPolicy(Schedule(0, 0, [3, 4], [], {1: 9}))
    _, a, err, _ = driver._run(bug.ptx(False), "k", args(), kw, pol)
    assert err is None and a[1].tobytes() != ref[1].tobytes()


def test_named_barrier_deadlock_report_lists_waiters_counts_and_uses():
    bug = BUGS["named-barrier-count"]
    r = run_ptx(bug.ptx(False), "k", args(), explore=50, seed=1, **_kw(bug, strict=False))
    assert r.found and r.failure.kind == "deadlock", str(r)
    rep = r.failure.report
    assert "blocked in bar.sync" in rep and "waits on named barrier 1:" in rep
    assert "threads arrived" in rep
    assert "(count 64)" in rep and "(count 32)" in rep  # the id used with two counts


def test_mbarrier_deadlock_report_names_phase_counts_and_releasers():
    bug = BUGS["missing-arrive"]
    r = run_ptx(bug.ptx(False), "k", args(), explore=50, seed=1, **_kw(bug))
    assert r.found and r.failure.kind == "deadlock", str(r)
    rep = r.failure.report
    assert "waits on the mbarrier at shared 0x" in rep
    assert "arrivals" in rep and "transaction bytes outstanding" in rep
    assert "could release it: CTA 0 warp" in rep


def test_schedules_replay_from_seed_and_index():
    a = draw(3, 17, warps=4, syncs=40, asyncs=6, depth=3)
    b = draw(3, 17, warps=4, syncs=40, asyncs=6, depth=3)
    c = draw(3, 18, warps=4, syncs=40, asyncs=6, depth=3)
    assert a == b and a != c
    assert sorted(a.prio) == [3, 4, 5, 6] and len(a.changes) == 2
    assert all(1 <= x <= 40 for x in a.changes)


def test_minimisation_drops_change_points_that_do_not_matter():
    bug = BUGS["named-barrier-count"]
    r = run_ptx(bug.ptx(False), "k", args(), explore=50, seed=0, **_kw(bug))
    assert r.found and r.minimised.schedule.changes == []  # the priorities alone order it


def test_explore_count_is_checked():
    bug = BUGS["ring-release"]
    with pytest.raises(EmulationError, match="positive number of schedules"):
        run_ptx(bug.ptx(True), "k", args(), explore=0, **_kw(bug))


def test_default_schedule_unchanged_without_policy():
    bug = BUGS["ring-release"]
    a, b = args(), args()
    r1 = run_ptx(bug.ptx(True), "k", a, workers=1, block=(64, 1, 1), strict=True)
    r2 = run_ptx(bug.ptx(True), "k", b, workers=1, block=(64, 1, 1), strict=True)
    assert r1.steps == r2.steps and np.array_equal(a[1], b[1])
    assert list(a[1][32:64]) == [3 + 13 + 23 + 33 + 43 + 53] * 32


def test_pool_finds_the_same_first_schedule():
    bug = BUGS["missing-arrive"]
    kw = dict(block=(bug.block, 1, 1), strict=True)
    serial = driver.explore_launch(bug.ptx(False), "k", args(), n=20, seed=2, minimise=False,
                                   progress=False, **kw)
    pooled = driver.explore_launch(bug.ptx(False), "k", args(), n=20, seed=2, minimise=False,
                                   progress=False, workers=2, **kw)
    assert serial.found and pooled.found
    assert serial.schedules == pooled.schedules
    assert serial.failure.report == pooled.failure.report
