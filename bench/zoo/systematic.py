"""The systematic mode on the bug zoo's small kernels (zoo_kernels.py, zoo_mlir.py): for each bug and its fixed twin, the runs the
search made (complete and cut by a sleep set), whether it completed before its bound, and what it
found (tile-sim; docs/emulator.md §15).

    PYTHONPATH=python python bench/zoo/systematic.py [--n N] [--only NAME..]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from zoo_kernels import BUGS  # noqa: E402
from zoo_mlir import MLIR_BUGS  # noqa: E402

from tile_mlir.sim import EmulationError, run_ptx  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--only", nargs="*")
    o = ap.parse_args()
    print("| kernel | twin | schedules (complete) | runs | search | found | s |")
    print("|---|---|---|---|---|---|---|")
    for name, bug in {**BUGS, **MLIR_BUGS}.items():
        if o.only and name not in o.only:
            continue
        for fixed in (False, True):
            t = time.perf_counter()
            try:
                r = run_ptx(bug.ptx(fixed), bug.kernel, bug.args(), systematic=o.n, strict=True,
                            progress=False, **bug.launch())
            except EmulationError as e:  # the default schedule fails: nothing to search
                print(f"| {name} | {'fixed' if fixed else 'bug'} | - | - | - | default schedule: "
                      f"{str(e).splitlines()[0][:60]} | - |")
                continue
            runs = r.notes[0].split(" run(s)")[0] if r.notes else "?"
            search = "complete" if r.exhaustive else ("stopped at the failure" if r.found else
                                                     "bound reached")
            print(f"| {name} | {'fixed' if fixed else 'bug'} | {r.schedules} | {runs} | {search} "
                  f"| {r.failure.kind if r.found else '-'} | {time.perf_counter() - t:.1f} |",
                  flush=True)


if __name__ == "__main__":
    main()
