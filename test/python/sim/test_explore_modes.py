"""Schedule exploration's other entry points (docs/emulator.md §15): the systematic mode (DPOR and
sleep sets over synchronisation objects), run_ptx(replay=), jit(...).explore(), tile-run --explore
/ --replay / --systematic, and the bug zoo's entries in real kernels (slow)."""

import os
import sys

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim.explore import replay_run
from tile_mlir.sim.explore.systematic import WILD, independent

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench", "zoo"))
from zoo_kernels import BUGS, args  # noqa: E402


def _kw(bug):
    return dict(**bug.launch(), strict=True, progress=False)


@pytest.mark.parametrize("name", ["missing-arrive", "named-barrier-count", "phase-alias",
                                  "st-async-tx", "clc-response"])
def test_systematic_finds_the_bug_and_replays_its_choices(name):
    bug = BUGS[name]
    r = run_ptx(bug.ptx(False), "k", args(), systematic=200, **_kw(bug))
    assert r.found and r.strategy == "systematic", str(r)
    kw = _kw(bug)
    kw.pop("progress")
    again = replay_run(bug.ptx(False), "k", args(), r.failure.schedule.choices, **kw)
    assert again is not None and again.kind == r.failure.kind
    assert again.report == r.failure.report


def test_systematic_search_orders_plain_shared_accesses():
    """bar-publish's race is between plain accesses (warp 0's st.shared after its bar.arrive, warp
    1's ld.shared after its bar.sync): their shared-memory words are in the footprints, so the
    search tries both orders and finds it; the fixed twin's search completes clean."""
    bug = BUGS["bar-publish"]
    r = run_ptx(bug.ptx(False), "k", args(), systematic=50, **_kw(bug))
    assert r.found and r.failure.kind == "output", str(r)
    fixed = run_ptx(bug.ptx(True), "k", args(), systematic=50, **_kw(bug))
    assert not fixed.found and fixed.exhaustive, str(fixed)


def test_systematic_search_completes_on_a_small_kernel():
    bug = BUGS["named-barrier-count"]
    r = run_ptx(bug.ptx(True), "k", args(), systematic=100, **_kw(bug))
    assert not r.found and r.exhaustive, str(r)
    assert "the search is complete" in str(r)


def test_systematic_bound_is_reported_when_the_search_is_cut():
    bug = BUGS["ring-release"]
    r = run_ptx(bug.ptx(True), "k", args(), systematic=5, **_kw(bug))
    assert not r.found and not r.exhaustive and "stopped at its bound" in str(r)


def test_footprints_commute_only_when_disjoint_and_known():
    a, b = frozenset({("mbarrier", 0, 0)}), frozenset({("mbarrier", 0, 8)})
    assert independent(a, b) and not independent(a, a)
    assert not independent(a, WILD) and independent(frozenset(), b)


def test_replay_through_run_ptx_reproduces_a_pct_failure():
    bug = BUGS["ring-release"]
    r = run_ptx(bug.ptx(False), "k", args(), explore=50, seed=3, **_kw(bug))
    assert r.found
    again = run_ptx(bug.ptx(False), "k", args(), replay=f"3:{r.failure.schedule.index}",
                    **_kw(bug))
    assert again.found and again.strategy == "replay" and again.schedules == 1
    assert again.failure.report == r.failure.report
    with pytest.raises(EmulationError, match="SEED:INDEX"):
        run_ptx(bug.ptx(False), "k", args(), replay="3-1", **_kw(bug))


def test_async_completions_in_flight_under_a_policy_only():
    """st.async and the CLC response land at once by default (the default schedule passes) and
    late under a schedule that delays them (their zoo bugs show)."""
    from tile_mlir.sim.explore import PriorityPolicy, Schedule
    from tile_mlir.sim.explore import driver
    for name in ("st-async-tx", "clc-response"):
        bug = BUGS[name]
        ref = args()
        run_ptx(bug.ptx(False), "k", ref, workers=1, **bug.launch(), strict=True)
        kw = driver._launch_kw(dict(**bug.launch(), strict=True))
        pol = PriorityPolicy(Schedule(0, 0, [4, 3, 2, 1], [], {0: 40, 1: 40}))
        _, a, err, _ = driver._run(bug.ptx(False), "k", args(), kw, pol)
        assert pol.asyncs >= 1
        assert err is not None or a[1].tobytes() != ref[1].tobytes(), name


DEMO = os.path.join(ROOT, "examples", "demo.mlir")


def _demo_args():
    a = (np.arange(512, dtype=np.uint32) * 37 % 251).astype(np.uint8).reshape(32, 16)
    return a, np.zeros((128, 16), np.uint8)


def test_jit_explore_returns_the_exploration_and_keeps_the_buffers():
    import tile_mlir
    k = tile_mlir.jit(DEMO, backend="sim")
    a, out = _demo_args()
    res = k.explore(8, seed=2)(a, out)
    r = res.sim
    assert r.schedules == 8 and not r.found and "8 schedule(s), seed 2" in str(r)
    assert not out.any()  # no schedule's outputs are written back
    assert k.explore(replay=(2, 5))(a, out).sim.schedules == 1
    s = k.explore(systematic=3)(a, out).sim
    assert s.strategy == "systematic" and not s.found
    with pytest.raises(tile_mlir.errors.ArgumentError, match="one of n"):
        k.explore(3, replay=(0, 1))


def test_tile_run_explore_replay_and_systematic(capsys):
    from tile_mlir.runtime.tile_run import main
    assert main([DEMO, "--explore", "6", "--seed", "1", "--no-progress"]) == 0
    assert "6 schedule(s), seed 1" in capsys.readouterr().out
    assert main([DEMO, "--replay", "1:4"]) == 0
    assert "1 schedule(s), seed 1" in capsys.readouterr().out
    assert main([DEMO, "--systematic", "3"]) == 0
    assert "systematic" in capsys.readouterr().out
    assert main([DEMO, "--explore", "3", "--systematic", "3"]) == 1
    assert "give one" in capsys.readouterr().err
    assert main([DEMO, "--explore", "3", "--backend", "gpu"]) == 1
    assert "runs on tile-sim" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("name", ["acc-arrive", "acc-reuse", "staging-bar", "clc-reissue",
                                  "tmem-dealloc"])
def test_zoo_bugs_in_real_kernels(name):
    from zoo_mutants import MUTANTS
    m = MUTANTS[name]
    kw = dict(**m.launch(), strict=m.strict, progress=False)
    if m.default_finds:
        with pytest.raises(EmulationError):
            run_ptx(m.ptx(False), m.kernel, m.args(), workers=1, **{k: v for k, v in kw.items()
                                                                   if k != "progress"})
    else:
        r = run_ptx(m.ptx(False), m.kernel, m.args(), explore=20, seed=0, **kw)
        assert r.found and r.schedules <= 20, str(r)
    r = run_ptx(m.ptx(True), m.kernel, m.args(), explore=3, seed=7, **kw)
    assert not r.found, str(r)


def test_warpgroup_gate_holds_a_wait_until_the_warpgroup_committed():
    """A wgmma is one operation of its warpgroup: a warp at wgmma.wait_group that committed more
    groups than a live warp of its warpgroup waits for it (the false report exploration gave on a
    ping-pong GEMM whose one thread releases the ring stage after its warpgroup's wait)."""
    from types import SimpleNamespace as NS

    from tile_mlir.sim.explore.policy import WarpgroupGate
    from tile_mlir.sim.state import State
    code = [NS(mnemonic="wgmma.commit_group"), NS(mnemonic="wgmma.wait_group"),
            NS(mnemonic="add")]
    cta = NS(warps=[])
    for i in range(8):
        cta.warps.append(NS(idx=i, cta=cta, threads=[NS(state=State.RUN, pc=0)]))
    gate = WarpgroupGate(NS(code=code))
    w0, w3, w4 = cta.warps[0], cta.warps[3], cta.warps[4]
    gate.ran(w0, code[0])
    w0.threads[0].pc = 1
    assert gate.held(w0)  # warps 1-3 have not committed
    for w in cta.warps[1:4]:
        gate.ran(w, code[0])
    assert not gate.held(w0)
    gate.ran(w0, code[0])
    w3.threads[0].state = State.EXITED  # an exited warp holds nothing back
    for w in cta.warps[1:3]:
        gate.ran(w, code[0])
    assert not gate.held(w0)
    w4.threads[0].pc = 1
    assert not gate.held(w4)  # another warpgroup, nothing committed there
    w0.threads[0].pc = 2
    gate.ran(w0, code[0])
    assert not gate.held(w0)  # not at a wait


def test_explore_clusters_runs_the_first_clusters_only():
    bug = BUGS["clc-response"]  # 4 clusters of one CTA: each does its tile, then cancels others
    r = run_ptx(bug.ptx(True), "k", args(), explore=5, seed=0, explore_clusters=1, **_kw(bug))
    assert not r.found and r.schedules == 5
    assert len(r.default.tmem) == 1  # one CTA launched
    with pytest.raises(EmulationError, match="explore_clusters"):
        run_ptx(bug.ptx(True), "k", args(), explore=5, explore_clusters=0, **_kw(bug))


def test_an_executor_runs_the_chunks_and_finds_the_same_first_schedule():
    from concurrent.futures import ThreadPoolExecutor
    bug = BUGS["phase-alias"]
    serial = run_ptx(bug.ptx(False), "k", args(), explore=30, seed=4, **_kw(bug))
    with ThreadPoolExecutor(2) as ex:
        pooled = run_ptx(bug.ptx(False), "k", args(), explore=30, seed=4, executor=ex, **_kw(bug))
    assert serial.found and pooled.found
    assert serial.schedules == pooled.schedules
    assert serial.failure.report == pooled.failure.report


def test_explore_seconds_stops_and_says_how_many_ran():
    bug = BUGS["ring-release"]
    r = run_ptx(bug.ptx(True), "k", args(), explore=100000, seed=0, explore_seconds=0.5,
                **_kw(bug))
    assert not r.found and 0 < r.schedules < 100000
    assert "stopped after 0.5 s" in r.notes


@pytest.mark.slow
@pytest.mark.parametrize("name, n", [("bw_tutorial_fp16_gemm_2", 3),
                                     ("bw_mixed_input_gemm_i8_f16", 2)])
def test_schedules_that_once_gave_false_reports_on_corpus_kernels(name, n):
    """Seed 2000's first schedules, which reported (before tile-sim modelled them) a 2-CTA GEMM's
    leader issuing an MMA into a peer whose collective tcgen05.alloc had not run, and a warpgroup's
    setmaxnreg mismatch -- a finding the kernel has -- at the other warp's line (a new finding by
    the oracle's rule and line)."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
    import corpus
    _, _, r = corpus.run(os.path.join(ROOT, "test", "fixtures", "foreign"), name, explore=n,
                         seed=2000, progress=False, workers=1, explore_clusters=1)
    assert not r.found, str(r)
