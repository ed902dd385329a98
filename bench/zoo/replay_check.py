"""Replay reproduces every reported schedule: for each zoo bug the default schedule passes, find it
under seeds 0..4 and run the failing schedule again from (seed, index) through
run_ptx(replay=); print whether the kind and the report are the same (tile-sim).

    PYTHONPATH=python python bench/zoo/replay_check.py [--find N] [--only NAME..]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run import ZOO  # noqa: E402

from tile_mlir.sim import run_ptx  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--find", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--only", nargs="*")
    o = ap.parse_args()
    same = total = 0
    for name, bug in ZOO.items():
        if (o.only and name not in o.only) or bug.default_finds:
            continue
        kw = dict(**bug.launch(), strict=bug.strict, progress=False)
        for s in range(o.seeds):
            r = run_ptx(bug.ptx(False), bug.kernel, bug.args(), explore=o.find, seed=s, **kw)
            if not r.found:
                print(f"{name} seed {s}: not found in {o.find}", flush=True)
                continue
            i = r.failure.schedule.index
            again = run_ptx(bug.ptx(False), bug.kernel, bug.args(), replay=(s, i), **kw)
            ok = again.found and again.failure.kind == r.failure.kind and \
                again.failure.report == r.failure.report
            same += ok
            total += 1
            print(f"{name} seed {s} index {i}: replay {'reproduces' if ok else 'DIFFERS'} "
                  f"({r.failure.kind})", flush=True)
    print(f"{same} of {total} failing schedules reproduced by replay")


if __name__ == "__main__":
    main()
