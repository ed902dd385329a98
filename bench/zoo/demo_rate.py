"""Schedules per second of exploration on the demo kernel (examples/demo.mlir compiled), with the
default schedule's time for scale (tile-sim, this machine).

    PYTHONPATH=python python bench/zoo/demo_rate.py [N]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import tile_mlir
from tile_mlir.sim import run_ptx

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    art = tile_mlir.compile(open(os.path.join(ROOT, "examples", "demo.mlir")).read(), emit=("ptx",))
    a = (np.arange(512, dtype=np.uint32) * 37 % 251).astype(np.uint8).reshape(32, 16)

    def mk():
        return [a.copy(), np.zeros((128, 16), np.uint8)]
    t = time.perf_counter()
    res = run_ptx(art.ptx, art.kernel_name, mk(), block=art.block, strict=True, workers=1)
    one = time.perf_counter() - t
    t, c = time.perf_counter(), time.process_time()
    r = run_ptx(art.ptx, art.kernel_name, mk(), block=art.block, strict=True, explore=n, seed=0,
                progress=False)
    dt, cpu = time.perf_counter() - t, time.process_time() - c
    print(f"demo kernel: default schedule {one * 1e3:.1f} ms ({res.steps} warp-instructions); "
          f"explore: {r.schedules} schedules in {dt:.2f} s = {r.schedules / dt:.1f} schedules/s "
          f"of wall time, {r.schedules / cpu:.1f} per CPU second (the default run and the probe "
          f"included; the wall rate falls with the machine's load); {r.counts}; "
          f"failure: {r.failure}")


if __name__ == "__main__":
    main()
