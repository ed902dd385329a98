"""Run one launch under many schedules, find the first that fails, minimise it, replay it.

A schedule fails when its run raises (deadlock, race, budget), reports a finding the default
schedule did not, leaves an output array different from the default schedule's (a kernel free of
races computes the same bytes under every schedule), or fails the caller's ``check``.
"""

from __future__ import annotations

import copy
import re
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .. import findings
from ..build import build_machine
from ..errors import EmulationError
from ..result import SimResult
from . import policy as _policy
from .blame import output_report
from .report import deadlock
from .reuse import Launch
from ..progress import enabled
from .. import launch, pure_memo
from .. import pool as _sim_pool
from ..pool import _pool

DEPTH = 3  # PCT depth: d - 1 = 2 change points


@dataclass
class Failure:
    schedule: _policy.Schedule
    kind: str  # "deadlock", "error", "finding", "output", "check"
    report: str

    def __str__(self):
        return f"{self.kind}: {self.report}\n{self.schedule.describe()}"


@dataclass
class ExploreResult:
    schedules: int  # schedules run (the failing one included)
    seed: int
    depth: int
    counts: dict  # warps, syncs, asyncs of the launch (what schedules are drawn over)
    failure: Failure | None = None
    minimised: Failure | None = None
    default: object = None  # the default schedule's SimResult
    notes: list = field(default_factory=list)
    strategy: str = "pct"  # "pct" (sampled), "systematic" (systematic.py) or "replay"
    runs: int | None = None  # pct: the runs made (a schedule drawn again is run once)
    exhaustive: bool = False  # systematic: the search ended before its bound

    @property
    def found(self) -> bool:
        return self.failure is not None

    @property
    def bound(self) -> str:
        """PCT's guarantee for one schedule of this launch (Burckhardt et al. 2010)."""
        if self.strategy == "systematic":
            return ("every order of the synchronisation operations up to commuting ones was run"
                    if self.exhaustive else "a bounded part of the orders was run")
        n, k, d = self.counts["warps"], max(self.counts["syncs"], 1), self.depth
        return f"each schedule finds a bug of depth <= {d} with probability >= 1/(n k^(d-1)) = " \
               f"1/({n}*{k}^{d - 1})"

    def __str__(self):
        if self.strategy == "systematic":
            head = (f"tile-sim explore (systematic): {self.schedules} schedule(s), "
                    f"{self.counts['warps']} warps; {'; '.join(self.notes)}")
        else:
            again = (f" ({self.runs} distinct runs)" if self.runs is not None and
                     self.runs < self.schedules else "")
            head = (f"tile-sim explore: {self.schedules} schedule(s){again}, seed {self.seed}, depth "
                    f"{self.depth}, {self.counts['warps']} warps, {self.counts['syncs']} "
                    f"synchronisation operations, {self.counts['asyncs']} async completions")
        head += f"; {self.bound}"
        if self.failure is None:
            return head + ": no failure"
        s = f"{head}: schedule {self.failure.schedule.index} fails\n{self.failure}"
        if self.minimised is not None:
            s += f"\nminimised: {self.minimised.schedule.describe()}"
        return s


def _outputs(args):
    return [a.copy() for a in args if isinstance(a, np.ndarray)]


def _run(ptx, kernel, args, launch_kw, pol, box=None, known=None):
    """(SimResult or None, copied args, EmulationError or None, machine).  ``box``: a one-item
    list holding the launch's reusable Machine (reuse.py), made on first use; None builds anew.
    ``known``: the default schedule's (rule, line) findings, which a verdict ignores."""
    memo: dict = {}
    a = copy.deepcopy(args, memo)  # one deepcopy keeps a tensor map sharing its pointer's array
    kw = dict(launch_kw)
    clusters = kw.pop("clusters")
    if box is None:
        m = build_machine(ptx, kernel, a, **kw)
    else:
        if not box:
            box.append(Launch(ptx, kernel, args, kw))
        m = box[0].machine(args, a, memo)
    m.policy = pol
    m.known_findings = known
    try:
        m.run(clusters=clusters)
    except EmulationError as e:
        return None, a, e, m
    m.copy_back()
    ran = sorted(m.kept)  # (the CTAs of the clusters run)
    res = SimResult(tmem=[m.kept[i][0] for i in ran], steps=m.steps,
                    warnings=list(m.warnings), shared=[m.kept[i][1] for i in ran],
                    findings=findings.collected(m, ptx), schedule="explore")
    return res, a, None, m


def _verdict(ref, res, a, err, m, pol, check):
    """(kind, report) of a failing run, else None."""
    if err is not None:
        msg = str(err)
        if "deadlock" in msg and pol is not None and pol.cl is not None:
            return "deadlock", deadlock(m, pol.cl, pol.arrivers)
        return "error", msg
    new = [f for f in res.findings if (f.rule, f.line) not in ref["findings"]]
    if new:
        return "finding", "\n".join(str(f) for f in new)
    for i, (x, y) in enumerate(zip(_outputs(a), ref["outputs"])):
        if x.tobytes() != y.tobytes():
            bad = np.flatnonzero(x.reshape(-1).view(np.uint8) != y.reshape(-1).view(np.uint8))
            return "output", (f"output array {i} differs from the default schedule's in "
                              f"{bad.size} byte(s), first at byte {int(bad[0])} (a race: some "
                              f"ordering the kernel relies on is not established)")
    if check is not None:
        why = check(a)
        if why is not True and why is not None:
            return "check", str(why) if why else "check(args) returned false"
    return None


def explore_launch(ptx, kernel, args, *, n: int, seed: int = 0, depth: int = DEPTH,
                   check=None, minimise: bool = True, progress: bool | None = None,
                   workers: int | None = None, executor=None, seconds: float | None = None,
                   **launch_kw) -> ExploreResult:
    """Run the launch under the default schedule, then under ``n`` schedules drawn from
    ``seed`` (schedule ``i`` is :func:`~.policy.draw` ``(seed, i, ...)``); return the first failure,
    minimised.  ``workers`` > 1: chunks of schedules run on tile-sim's process pool (sim/pool.py)
    or ``executor`` (a dask client's executor); None: the pool of every core when the schedules
    would take a second or more (estimated from the default schedule's run), else this process;
    the first failure in index order still the one reported (not with a ``check``, which need not
    pickle).  ``seconds``: stop drawing schedules once that much time has passed (the result's
    ``schedules`` counts those run).  ``launch_kw``: run_ptx's grid, block, cluster, ... ."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise EmulationError(f"explore={n!r} must be a positive number of schedules")
    with pure_memo.active():  # the MMAs' arithmetic, looked up across the runs (pure_memo.py)
        return _explore(ptx, kernel, args, n, seed, depth, check, minimise, progress, workers,
                        executor, seconds, launch_kw)


def _explore(ptx, kernel, args, n, seed, depth, check, minimise, progress, workers, executor,
             seconds, launch_kw):
    box: list = []  # one machine for the default run, the probe and a serial chunk (reuse.py)
    kw, ref, ref_res = reference(ptx, kernel, args, launch_kw, box)
    counts = probe(ptx, kernel, args, kw, box)
    out = ExploreResult(0, seed, depth, counts, default=ref_res)
    deadline = time.time() + seconds if seconds else None
    if workers is None and executor is None and check is None:
        workers = _auto_workers(ref["seconds"], n)
    task = (ptx, kernel, args, kw, seed, depth, counts, ref, check, deadline)
    idx = _policy.distinct(seed, n, depth=depth, **counts)  # a schedule drawn again runs once
    bar = _bar(n, progress)
    try:
        if executor is not None or (workers is not None and workers > 1 and check is None):
            first, ran, stop = _parallel(task, idx, workers or 2, bar, n, executor)
        else:
            first, ran, stop = _chunk(task + (idx, bar), box)
    finally:
        if bar is not None:
            bar.close()
    out.runs = ran
    if first is None:  # every schedule below ``stop`` ran or repeats one that ran
        out.schedules = n if stop is None else stop
        if stop is not None:
            out.notes.append(f"stopped after {seconds:g} s")
        return out
    s = _policy.draw(seed, first, depth=depth, **counts)
    v = _located(ptx, kernel, args, kw, s, _try(ptx, kernel, args, kw, s, ref, check))
    out.schedules = first + 1
    out.failure = Failure(s, *v)
    if minimise:
        out.minimised = minimise_failure(ptx, kernel, args, kw, out.failure, ref, check)
    return out


def reference(ptx, kernel, args, launch_kw, box=None):
    """(launch keywords, what a schedule is compared with, the default schedule's SimResult)."""
    kw = _launch_kw(launch_kw)
    t = time.perf_counter()
    ref_res, a, err, _ = _run(ptx, kernel, args, kw, None, box)
    if err is not None:
        raise err  # the default schedule fails: nothing to explore
    ref = {"findings": frozenset((f.rule, f.line) for f in ref_res.findings),
           "outputs": _outputs(a),
           "seconds": time.perf_counter() - t}
    return kw, ref, ref_res


def replay_launch(ptx, kernel, args, which, *, check=None, progress=None, depth: int = DEPTH,
                  **launch_kw) -> ExploreResult:
    """run_ptx(replay=(seed, index) or "SEED:INDEX"): that one schedule, as an ExploreResult."""
    seed, index = parse_replay(which)
    kw, ref, ref_res = reference(ptx, kernel, args, launch_kw)
    counts = probe(ptx, kernel, args, kw)
    s = _policy.draw(seed, index, depth=depth, **counts)
    out = ExploreResult(1, seed, depth, counts, default=ref_res, strategy="replay")
    v = _located(ptx, kernel, args, kw, s, _try(ptx, kernel, args, kw, s, ref, check))
    if v is not None:
        out.failure = Failure(s, *v)
    return out


def parse_replay(which) -> tuple[int, int]:
    if isinstance(which, str):
        parts = which.split(":")
        if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
            return int(parts[0]), int(parts[1])
    elif isinstance(which, (tuple, list)) and len(which) == 2 and \
            all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in which):
        return which[0], which[1]
    raise EmulationError(f"replay={which!r}: give (seed, index) or 'SEED:INDEX', two integers >= 0")


def _chunk(task, box=None):
    """(the first failing schedule of the indices given or None, the runs made, the index of the
    first one not run when the time limit cut them, else None)."""
    with pure_memo.active():  # (a pool worker's chunk: its own table)
        return _chunk_run(task, box)


def _chunk_run(task, box):
    ptx, kernel, args, kw, seed, depth, counts, ref, check, deadline, indices, bar = task
    box = [] if box is None else box  # the launch's machine, built once for the chunk (reuse.py)
    k = 0
    for i in indices:
        if deadline is not None and time.time() > deadline:
            return None, k, i
        s = _policy.draw(seed, i, depth=depth, **counts)
        v = _try(ptx, kernel, args, kw, s, ref, check, box)
        k += 1
        if bar is not None:
            bar.update(i + 1 - bar.n)  # the schedules drawn up to this one: run or repeated
        if v is not None:
            return i, k, None
    return None, k, None


def _auto_workers(seconds, n):
    """workers=None: the pool's default (every core) when the schedules, estimated from the
    default schedule's run, would take long enough to gain from it (as run_ptx decides for a
    launch's clusters, sim/pool.py); else this process."""
    w = _sim_pool.default_workers(None)
    return w if w > 1 and _sim_pool.goes_to_pool(seconds, n, False) else 1


def _parallel(task, idx, workers, bar, n, executor=None):
    """Chunks of schedules on tile-sim's process pool, or on ``executor`` (any
    concurrent.futures.Executor: a dask.distributed client's ``get_executor()``), 2 per worker in
    flight, drawn as they go: as _chunk's, over the chunks in index order."""
    size = max(1, min(64, n // (4 * workers)))
    ex = executor if executor is not None else _pool(workers)
    pending: deque = deque()
    ran = 0
    try:
        while True:
            while len(pending) < 2 * workers:
                p = [i for _, i in zip(range(size), idx)]  # (the next `size` indices)
                if not p:
                    break
                pending.append((ex.submit(_chunk, task + (p, None)), p))
            if not pending:
                return None, ran, None
            f, p = pending.popleft()
            first, k, stop = f.result()  # in index order: the lowest chunk's failure wins
            ran += k
            if bar is not None and k:
                bar.update(p[k - 1] + 1 - bar.n)
            if first is not None or stop is not None:  # a failure, or the time limit's cut
                return first, ran, stop
    finally:
        for f, _ in pending:
            f.cancel()


_OUTPUT = re.compile(r"^output array (\d+) differs .* first at byte (\d+)")


def _located(ptx, kernel, args, kw, s, v):
    """An output verdict with the lines that wrote its first differing byte (blame.py)."""
    m = _OUTPUT.match(v[1]) if v is not None and v[0] == "output" else None
    if m is None:
        return v
    pol = _policy.PriorityPolicy(s)
    return v[0], v[1] + output_report(ptx, kernel, args, kw, pol, int(m[1]), int(m[2]))


def _try(ptx, kernel, args, kw, s, ref, check, box=None):
    pol = _policy.PriorityPolicy(s)
    res, a, err, m = _run(ptx, kernel, args, kw, pol, box, ref["findings"])
    return _verdict(ref, res, a, err, m, pol, check)


def probe(ptx, kernel, args, kw, box=None) -> dict:
    """What schedules are drawn over: warps of a cluster, synchronisation operations and async
    completions of the launch, counted under the schedule of identity priorities."""
    pol = _policy.PriorityPolicy(_policy.Schedule(0, -1, [], [], {}))
    _, _, _, m = _run(ptx, kernel, args, kw, pol, box)
    return {"warps": max(pol.max_warps, 1), "syncs": m.syncs, "asyncs": pol.asyncs}


def replay(ptx, kernel, args, *, seed: int, index: int, depth: int = DEPTH, check=None,
           **launch_kw):
    """Run schedule ``index`` of ``seed`` again: (Failure or None)."""
    kw, ref, _ = reference(ptx, kernel, args, launch_kw)
    s = _policy.draw(seed, index, depth=depth, **probe(ptx, kernel, args, kw))
    v = _located(ptx, kernel, args, kw, s, _try(ptx, kernel, args, kw, s, ref, check))
    return None if v is None else Failure(s, *v)


def minimise_failure(ptx, kernel, args, kw, failure, ref, check, budget: int = 64) -> Failure:
    """Drop each change point, then each delay, that the failure does not need (greedy, at most
    ``budget`` runs); the failure kept is the last one still failing."""
    best = failure
    tries = 0
    box: list = []
    for what in ("changes", "delays"):
        keys = list(getattr(best.schedule, what))
        for k in keys:
            if tries >= budget:
                return best
            s = copy.deepcopy(best.schedule)
            if what == "changes":
                s.changes = [c for c in s.changes if c != k]
            else:
                s.delays.pop(k, None)
            tries += 1
            v = _try(ptx, kernel, args, kw, s, ref, check, box)
            if v is not None and v[0] == failure.kind:
                best = Failure(s, *v)
    return best


def _launch_kw(kw):
    out = dict(grid=(1, 1, 1), block=(128, 1, 1), cluster=None, dynamic_smem=0, trace=False,
               max_steps=None, max_seconds=None, strict=None, device=None, clusters=None)
    for k, v in kw.items():
        if k not in out:
            raise EmulationError(f"explore: unknown launch argument {k!r}")
        out[k] = v
    out["grid"], out["block"] = launch.dim3(out["grid"], "grid"), launch.dim3(out["block"], "block")
    if out["clusters"] is not None:  # the first K clusters of the grid (explore_clusters=K)
        k = out["clusters"]
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise EmulationError(f"explore_clusters={k!r} must be a positive number of clusters")
        out["clusters"] = range(k)
    return out


def _bar(n, progress):
    if not enabled(progress):
        return None
    from tqdm import tqdm
    return tqdm(total=n, unit="schedule", desc="tile-sim explore", leave=False)
