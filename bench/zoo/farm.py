"""A campaign of schedule exploration over the foreign corpus on many cores (tile-sim): jobs of
(kernel, seed, schedules) on a process pool, each bounded by one deadline, their results appended
as JSON lines to a log; ``tally`` adds the logs up per kernel and ``plan`` writes the jobs that
bring every kernel to a target, sized by the rates the logs measured.

    PYTHONPATH=python python bench/zoo/farm.py plan  [LOG..] --target 1000 --seconds S --out JOBS
    PYTHONPATH=python python bench/zoo/farm.py run   JOBS (--workers W | --scheduler ADDR)
                                                     --seconds S --log LOG [--job-seconds J]
    (a line of JOBS: NAME SEED N [CAP], CAP a job's own bound in seconds)
    PYTHONPATH=python python bench/zoo/farm.py tally LOG.. [--target 1000]

A job's kernel is a corpus kernel by its name, ``zoo/NAME`` the fixed twin of a bug zoo entry
of zoo_mutants.py (the whole grid, as run.py explores it), or ``ours/NAME`` one of our examples'
launches that ``ours_clean.py --export DIR`` wrote (``--ours DIR``).  A corpus job explores the
first cluster of the kernel's grid (``explore_clusters=1``: clusters never
interleave, so a grid's schedules are its clusters') in lenient mode, as corpus_clean.py does; a
job cut by the deadline counts the schedules it ran (indices 0.. of its seed: ``run_ptx``'s
``explore_seconds``).  Seeds differ between the jobs of a kernel, so their schedules add up; a
seed logged twice counts once (its larger prefix).  A sequence of launches counts the fewest
schedules any of its launches ran.  Nothing here needs the MLIR bindings: the corpus is PTX, so a
machine with numpy runs it (the device tool's hosts: 16 cores and more).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
import corpus  # noqa: E402

FOLDER = os.path.join(ROOT, "test", "fixtures", "foreign")


def _explore(o, name, seed, n, seconds):
    """The ExploreResult(s) of ``n`` schedules of ``seed`` of the job's kernel."""
    kw = dict(explore=n, seed=seed, progress=False, workers=1, explore_seconds=seconds)
    if name.startswith("zoo/"):  # a bug zoo entry's fixed twin, the whole grid (bench/zoo/run.py)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from zoo_mutants import MUTANTS

        from tile_mlir.sim import run_ptx
        bug = MUTANTS[name[4:]]
        return run_ptx(bug.ptx(True), bug.kernel, bug.args(), strict=bug.strict,
                       **bug.launch(), **kw)
    if name.startswith("ours/"):  # one of our examples' launches (ours_clean.py --export)
        import pickle

        from tile_mlir.sim import run_ptx
        with open(os.path.join(o.ours, name[5:] + ".pkl"), "rb") as f:
            ptx, kernel, args, launch = pickle.load(f)
        return run_ptx(ptx, kernel, args, **{**launch, **kw})
    import corpus as corpus_  # (here, not the module's: a dask worker imports it by its path)
    return corpus_.run(o.dir, name, explore_clusters=1, **kw)[2]


def _job(o, name, seed, n, deadline, cap):
    """One job's log entry (run in a worker process); None when the deadline has passed."""
    t = time.time()
    if deadline - t < 5:
        return None
    entry = {"name": name, "seed": seed, "n": n}
    for d in (os.path.join(ROOT, "bench", "foreign"), os.path.join(ROOT, "python")):
        if d not in sys.path:  # (a dask worker started elsewhere)
            sys.path.insert(0, d)
    try:
        r = _explore(o, name, seed, n, min(deadline - t, cap))
    except Exception as e:  # the default schedule fails or the kernel cannot run: say so
        entry["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}" if str(e) else \
            type(e).__name__
    else:
        parts = r if isinstance(r, list) else [r]
        entry["schedules"] = min(p.schedules for p in parts)
        entry["runs"] = sum(p.runs for p in parts)
        entry["counts"] = [p.counts for p in parts]
        bad = [p for p in parts if p.found]
        entry["failure"] = str(bad[0].failure) if bad else None
    entry["seconds"] = round(time.time() - t, 2)
    return entry


def run(o):
    os.environ["TILE_MLIR_SIM_WORKERS"] = "1"  # one process per job: the pool is ours
    jobs = []
    with open(o.jobs) as f:
        for line in f:
            if line.strip():  # NAME SEED N [CAP: the job's own bound, seconds]
                name, seed, n, *cap = line.split()
                jobs.append((name, int(seed), int(n), float(cap[0]) if cap else None))
    deadline = time.time() + o.seconds
    done = 0
    if o.scheduler:  # a dask.distributed cluster's workers (the machines' clocks agree enough)
        from dask.distributed import Client
        client = Client(o.scheduler)
        pool = client.get_executor()
    else:
        pool = ProcessPoolExecutor(o.workers)
    with pool as ex, open(o.log, "a") as log:
        futs = [ex.submit(_job, o, name, seed, n, deadline, cap or o.job_seconds or o.seconds)
                for name, seed, n, cap in jobs]
        for fut in as_completed(futs):
            e = fut.result()
            if e is None:
                continue
            log.write(json.dumps(e) + "\n")
            log.flush()
            done += 1
            print(f"[{done}/{len(jobs)}] {_line(e)}", flush=True)


def _line(e):
    if "error" in e:
        return f"{e['name']} seed {e['seed']}: ERROR {e['error']}"
    what = "clean" if e["failure"] is None else "FAILS " + e["failure"].splitlines()[0]
    return (f"{e['name']} seed {e['seed']}: {e['schedules']} of {e['n']} schedules "
            f"({e['runs']} distinct runs), {e['seconds']} s: {what}")


def load(logs, stale=None):
    """kernel -> {seed: its best entry}; ``stale``: a file of lines ``LOG NAME``, a log (by its
    file name) whose entries of kernel NAME are not counted (run before a change to the model they
    exercise)."""
    skip = set()
    if stale:
        with open(stale) as f:
            skip = {tuple(x.split()[:2]) for x in f if x.strip() and not x.startswith("#")}
    out: dict = {}
    for path in logs:
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                if (os.path.basename(path), e["name"]) in skip:
                    continue
                seeds = out.setdefault(e["name"], {})
                old = seeds.get(e["seed"])
                if old is None or e.get("schedules", -1) > old.get("schedules", -1):
                    seeds[e["seed"]] = e
    return out


def summary(seeds):
    """(schedules, distinct runs, seconds, failures, errors) of a kernel's entries."""
    ok = [e for e in seeds.values() if "error" not in e]
    return (sum(e["schedules"] for e in ok), sum(e["runs"] for e in ok),
            sum(e["seconds"] for e in seeds.values()),
            [f"seed {e['seed']}: {e['failure']}" for e in ok if e["failure"]],
            [e["error"] for e in seeds.values() if "error" in e])


def tally(o):
    data = load(o.logs, o.stale)
    names = corpus.names(o.dir) + sorted(n for n in data if "/" in n)
    at = clean = 0
    print("| kernel | schedules | distinct runs | seeds | core seconds | result |")
    print("|---|---|---|---|---|---|")
    for name in names:
        s, runs, secs, fails, errs = summary(data.get(name, {}))
        at += s >= o.target
        clean += not fails and not errs
        res = "FAILS " + fails[0].splitlines()[0] if fails else (
            "ERROR " + errs[0] if errs else "clean")
        seeds = sorted(data.get(name, {}))
        print(f"| {name} | {s} | {runs} | {_ranges(seeds)} | {secs:.0f} | {res} |")
    print(f"{len(names)} kernels: {at} at {o.target} schedules or more, {clean} with no report")


def _ranges(seeds):
    if not seeds:
        return "-"
    out, a = [], seeds[0]
    for p, q in zip(seeds, seeds[1:] + [None]):
        if q != p + 1:
            out.append(str(a) if a == p else f"{a}..{p}")
            a = q
    return ", ".join(out)


def plan(o):
    """Jobs for every kernel short of --target: its remaining schedules in chunks that its logged
    rate says fit --seconds (one job of all of them where nothing is logged), on seeds after
    every seed it has used (from --first-seed)."""
    data = load(o.logs, o.stale)
    jobs = []
    want = [(n, o.target, 0, o.first_seed) for n in corpus.names(o.dir)]
    for x in o.extra:  # NAME:TARGET:BEFORE:FIRST_SEED
        name, target, before, first = x.split(":")
        want.append((name, int(target), int(before), int(first)))
    for name, target, before, first in want:
        seeds = data.get(name, {})
        s, _, secs, fails, errs = summary(seeds)
        if fails or errs or before + s >= target:
            continue
        left = target - before - s
        nxt = max([first - 1, *seeds]) + 1
        if s:
            per = secs / s  # core seconds per schedule, the default run's share included
            chunk = max(1, int(o.seconds * 0.85 / per))
            k = math.ceil(left / chunk)
            size = math.ceil(left / k)
            jobs += [(per * size, name, nxt + i, min(size, left - i * size)) for i in range(k)]
        else:
            jobs.append((math.inf, name, nxt, left))
    if o.cheapest_first:  # most kernels to the target in a short campaign: whole kernels by cost
        cost: dict = {}
        for j in jobs:
            cost[j[1]] = cost.get(j[1], 0) + j[0]
        jobs.sort(key=lambda j: (cost[j[1]], j[1], j[2]))
    else:
        jobs.sort(key=lambda j: -j[0])  # the longest first (unmeasured ones lead)
    with open(o.out, "w") as f:
        for _, name, seed, n in jobs:
            f.write(f"{name} {seed} {n}\n")
    est = sum(j[0] for j in jobs if j[0] != math.inf)
    print(f"{len(jobs)} jobs ({sum(j[0] == math.inf for j in jobs)} unmeasured), "
          f"{est:.0f} core seconds estimated for the measured ones -> {o.out}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("jobs")
    r.add_argument("--workers", type=int, default=os.cpu_count())
    r.add_argument("--seconds", type=float, required=True)
    r.add_argument("--log", required=True)
    r.add_argument("--scheduler", help="a dask.distributed scheduler's address: run the jobs on "
                   "its workers (each with this repository at the same path) instead of --workers")
    r.add_argument("--job-seconds", type=float, default=None,
                   help="a job's own bound (a first campaign that measures every kernel's rate)")
    t = sub.add_parser("tally")
    t.add_argument("logs", nargs="+")
    t.add_argument("--target", type=int, default=1000)
    p = sub.add_parser("plan")
    p.add_argument("logs", nargs="*")
    p.add_argument("--target", type=int, default=1000)
    p.add_argument("--seconds", type=float, required=True, help="a job's share of the deadline")
    p.add_argument("--first-seed", type=int, default=1000)
    p.add_argument("--extra", nargs="*", default=[],
                   help="NAME:TARGET:BEFORE:FIRST_SEED, a zoo/ or ours/ kernel with BEFORE "
                        "schedules from earlier campaigns (seeds below FIRST_SEED)")
    p.add_argument("--out", required=True)
    p.add_argument("--cheapest-first", action="store_true",
                   help="order the jobs by their kernel's remaining cost, the cheapest first "
                        "(default: the longest job first, to fill a pool's deadline)")
    r.add_argument("--ours", default=os.path.join(ROOT, ".dev-farm", "ours"))
    for q in (r, t, p):
        q.add_argument("--dir", default=FOLDER)
    for q in (t, p):
        q.add_argument("--stale", help="a file of lines LOG NAME: entries not counted")
    o = ap.parse_args()
    {"run": run, "tally": tally, "plan": plan}[o.cmd](o)


if __name__ == "__main__":
    main()
