"""Explore every kernel of the bug zoo -- the small kernels of zoo_kernels.py and the bugs injected
into real kernels by zoo_mutants.py -- and print its table: what the default schedule does, the
schedules exploration needed to find the bug under each of 5 seeds, and the schedules over which
the fixed twin stayed clean (tile-sim; docs/emulator.md §15).

    PYTHONPATH=python python bench/zoo/run.py [--find N] [--clean M] [--seeds S] [--only NAME..]
                                              [--workers W]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from zoo_kernels import BUGS  # noqa: E402
from zoo_mlir import MLIR_BUGS  # noqa: E402
from zoo_mutants import MUTANTS  # noqa: E402

from tile_mlir.sim import EmulationError, run_ptx  # noqa: E402

ZOO = {**BUGS, **MLIR_BUGS, **MUTANTS}


def default_outcome(bug) -> str:
    kw = dict(strict=bug.strict, workers=1, **bug.launch())
    fixed = bug.args()
    run_ptx(bug.ptx(True), bug.kernel, fixed, **kw)
    a = bug.args()
    try:
        run_ptx(bug.ptx(False), bug.kernel, a, **kw)
    except EmulationError as e:  # what it says, after the instruction and the thread
        msg = str(e).split("\n")[0]
        m = re.search(r"lane \d+\): (.*)", msg)
        return "reported: " + (m.group(1) if m else msg)[:90]
    same = all(x.tobytes() == y.tobytes() for x, y in zip(a, fixed) if hasattr(x, "tobytes"))
    return "passes" if same else "wrong output"


def fixed_clean(bug, kw, o):
    """(what the fixed twin did, schedules/s): chunks of up to --clean-chunk schedules of seeds
    --clean-seed (100), 101, ... until --clean schedules ran or --clean-seconds passed (the count
    reached is the one reported, with the distinct runs it took when schedules were drawn again;
    a later campaign continues with the next seed, its schedules distinct from these)."""
    first = o.clean_seed
    t0, ran, runs, seed = time.perf_counter(), 0, 0, first
    while ran < o.clean:
        n = min(o.clean_chunk, o.clean - ran)
        left = o.clean_seconds - (time.perf_counter() - t0) if o.clean_seconds else None
        r = run_ptx(bug.ptx(True), bug.kernel, bug.args(), explore=n, seed=seed,
                    workers=o.workers, explore_seconds=left, **kw)
        if r.found:
            return f"FAILS at seed {seed} index {r.failure.schedule.index}: {r.failure.kind}", 0.0
        ran += r.schedules
        runs += r.runs
        seed += 1
        print(f"  {bug.kernel[:40]}: seed {seed - 1}: {r.schedules} clean, {ran} in all, "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        if r.schedules < n or (o.clean_seconds and time.perf_counter() - t0 > o.clean_seconds):
            break
    dt = time.perf_counter() - t0
    seeds = f"seed {first}" if seed == first + 1 else f"seeds {first}..{seed - 1}"
    again = f"; {runs} distinct runs" if runs < ran else ""  # a schedule drawn again runs once
    return f"{ran} ({seeds}{again})", ran / dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--find", type=int, default=1000, help="schedules allowed to find a bug")
    ap.add_argument("--clean", type=int, default=1000, help="schedules run on each fixed kernel")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--clean-seconds", type=float, default=None,
                    help="stop a fixed kernel's clean run after the chunk that passes this time")
    ap.add_argument("--clean-seed", type=int, default=100, help="the fixed kernels' first seed")
    ap.add_argument("--clean-chunk", type=int, default=500, help="schedules of one seed")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--workers", type=int, default=None, help="tile-sim pool processes")
    o = ap.parse_args()
    print(f"| bug | where | default schedule | schedules to find (seeds 0..{o.seeds - 1}) | kind | "
          f"fixed kernel clean over | schedules/s (fixed) |")
    print("|---|---|---|---|---|---|---|")
    for name, bug in ZOO.items():
        if o.only and name not in o.only:
            continue
        where = ("zoo kernel" if name in BUGS else f"zoo kernel, bench/zoo/tile_ir/{bug.file}"
                 if name in MLIR_BUGS else bug.what[bug.what.rindex("(") + 1:-1])
        kw = dict(**bug.launch(), strict=bug.strict, progress=False)
        dflt = default_outcome(bug)
        found, kinds = [], set()
        if dflt == "passes":
            for s in range(o.seeds):
                r = run_ptx(bug.ptx(False), bug.kernel, bug.args(), explore=o.find, seed=s,
                            workers=o.workers, **kw)
                found.append(str(r.schedules) if r.found else f">{o.find}")
                if r.found:
                    kinds.add(r.failure.kind)
        clean, rate = fixed_clean(bug, kw, o)
        print(f"| {name} | {where} | {dflt} | {', '.join(found) or '-'} | "
              f"{'/'.join(sorted(kinds)) or '-'} | {clean} | {rate:.1f} |", flush=True)


if __name__ == "__main__":
    main()
