"""Explore every kernel of the bug zoo (zoo_kernels.py) and print its table: what the default
schedule does, the schedules exploration needed to find the bug under each of 5 seeds, and the
schedules over which the fixed twin stayed clean (tile-sim; docs/emulator.md, schedule
exploration).

    PYTHONPATH=python python bench/zoo/run.py [--find N] [--clean M] [--seeds S]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from zoo_kernels import BUGS, args  # noqa: E402

from tile_mlir.sim import EmulationError, run_ptx  # noqa: E402


def default_outcome(bug) -> str:
    fixed = args()
    run_ptx(bug.ptx(True), "k", fixed, strict=True, workers=1, **bug.launch())
    a = args()
    try:
        run_ptx(bug.ptx(False), "k", a, strict=True, workers=1, **bug.launch())
    except EmulationError as e:  # what it says, after the instruction and the thread
        msg = str(e).split("\n")[0]
        m = re.search(r"lane \d+\): (.*)", msg)
        return "reported: " + (m.group(1) if m else msg)[:70]
    same = all(x.tobytes() == y.tobytes() for x, y in zip(a, fixed))
    return "passes" if same else "wrong output"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--find", type=int, default=1000, help="schedules allowed to find a bug")
    ap.add_argument("--clean", type=int, default=1000, help="schedules run on each fixed kernel")
    ap.add_argument("--seeds", type=int, default=5)
    o = ap.parse_args()
    print(f"| bug | default schedule | schedules to find (seeds 0..{o.seeds - 1}) | kind | "
          f"fixed kernel clean over | schedules/s |")
    print("|---|---|---|---|---|---|")
    for name, bug in BUGS.items():
        kw = dict(**bug.launch(), strict=True, progress=False)
        dflt = default_outcome(bug)
        found, kinds = [], set()
        if dflt == "passes":
            for s in range(o.seeds):
                r = run_ptx(bug.ptx(False), "k", args(), explore=o.find, seed=s, **kw)
                found.append(str(r.schedules) if r.found else f">{o.find}")
                if r.found:
                    kinds.add(r.failure.kind)
        t = time.perf_counter()
        r = run_ptx(bug.ptx(True), "k", args(), explore=o.clean, seed=100, **kw)
        rate = r.schedules / (time.perf_counter() - t)
        clean = f"{r.schedules}" if not r.found else f"FAILS at {r.schedules}: {r.failure.kind}"
        print(f"| {name} | {dflt} | {', '.join(found) or '-'} | {'/'.join(sorted(kinds)) or '-'}"
              f" | {clean} | {rate:.1f} |", flush=True)


if __name__ == "__main__":
    main()
