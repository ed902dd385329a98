"""Schedules per second of exploration on fixed twins of the bug zoo: wall clock and this process's
CPU time (tile-sim; docs/emulator.md §15).  Each NAME:N explores the fixed twin of NAME under N
schedules of seed 100 in this process (W=2 in the environment: on the pool of 2 workers, whose CPU
time is not counted), after one warm-up schedule.

    PYTHONPATH=python python bench/zoo/explore_rate.py ring-release:200 acc-arrive:6 ...
"""

from __future__ import annotations

import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run import ZOO  # noqa: E402

from tile_mlir.sim import run_ptx  # noqa: E402


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    workers = int(os.environ.get("W", "1"))
    for spec in sys.argv[1:]:
        name, n = spec.split(":")
        b = ZOO[name]
        kw = dict(**b.launch(), strict=b.strict, progress=False)
        ptx = b.ptx(True)
        run_ptx(ptx, b.kernel, b.args(), explore=1, seed=0, workers=1, **kw)  # warm-up
        t, c = time.perf_counter(), cpu()
        r = run_ptx(ptx, b.kernel, b.args(), explore=int(n), seed=100, workers=workers, **kw)
        dt, dc = time.perf_counter() - t, cpu() - c
        print(f"{name}: {r.schedules} schedules ({r.runs} distinct runs), {dt:.1f} s wall "
              f"({r.schedules / dt:.1f}/s), {dc:.1f} CPU s ({r.schedules / dc:.1f}/CPU s), load "
              f"{os.getloadavg()[0]:.1f}, found={r.found}", flush=True)


if __name__ == "__main__":
    main()
