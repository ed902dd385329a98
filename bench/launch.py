"""Per-launch overhead of a cached kernel through tile_mlir.runtime vs a raw cuLaunchKernel.

Runs on a GPU machine (PYTHONPATH=python python3 bench/launch.py). Both sides launch the same
CUfunction (the self-test copy kernel, test/fixtures/gpu/selftest_copy_u8.json, 32x128 threads)
with the same arguments on the legacy default stream.

Method: host wall time of each launch call alone (time.perf_counter_ns around the call, no sync
inside), in batches of --batch launches followed by one synchronisation (so the launch queue never
fills up and back-pressure does not enter the measurement); batches of the variants are
interleaved to cancel drift; median (and p10/p90) over --iters launches per variant (>= 1000).

Variants:
  raw cuLaunchKernel     cuda-bindings call on pre-built kernelParams (the floor)
  kernel(*dev)           the normal API call with the same device arrays each time
                         (cupy if installed, else torch, else runtime.DeviceArray)  <- the goal
  kernel.launch(*dev)    the fast path without a result object
  kernel(*fresh views)   new array objects each call: full protocol read + dtype/shape checks
  kernel(*torch)         torch CUDA tensors (when torch is installed)
The goal is a ratio <= 1.1 for "kernel(*dev)".
"""
from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

from tile_mlir.artifact import Artifact  # noqa: E402
from tile_mlir.runtime import jit, synchronize  # noqa: E402
from tile_mlir.runtime.driver import drv  # noqa: E402


def _device_arrays(n: int):
    """(label, src, dst, make_fresh_views) with the best available device-array library."""
    try:
        import cupy as cp
        src = (cp.arange(n) % 251).astype(cp.uint8)
        dst = cp.zeros(n, dtype=cp.uint8)
        return "cupy", src, dst, lambda: (src[:], dst[:])
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            src = (torch.arange(n, device="cuda") % 251).to(torch.uint8)
            dst = torch.zeros(n, dtype=torch.uint8, device="cuda")
            return "torch", src, dst, lambda: (src[:], dst[:])
    except Exception:
        pass
    from tile_mlir.runtime import DeviceArray
    src = DeviceArray.from_host((np.arange(n) % 251).astype(np.uint8))
    dst = DeviceArray.zeros(n, np.uint8)

    class View:  # a new object over the same memory
        def __init__(self, a):
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    return "DeviceArray", src, dst, lambda: (View(src), View(dst))


def measure(variants: dict, iters: int, batch: int) -> dict:
    times = {k: [] for k in variants}
    for fn in variants.values():  # warm up
        for _ in range(20):
            fn()
    synchronize()
    rounds = max(1, iters // batch)
    pc = time.perf_counter_ns
    for _ in range(rounds):
        for name, fn in variants.items():
            t = times[name]
            for _ in range(batch):
                t0 = pc()
                fn()
                t.append(pc() - t0)
            synchronize()
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifact", default=os.path.join(HERE, os.pardir, "test", "fixtures", "gpu",
                                                        "selftest_copy_u8.json"))
    ap.add_argument("--iters", type=int, default=5000)
    ap.add_argument("--batch", type=int, default=250)
    ns = ap.parse_args(argv)
    iters = max(ns.iters, 1000)

    art = Artifact.load(ns.artifact)
    n = art.params[0].shape[0]
    kernel = jit(art, backend="gpu").load()
    lib, src, dst, fresh = _device_arrays(n)
    kernel(src, dst, n)
    synchronize()

    d = drv()
    bound = kernel._runner.chosen.bind()  # the GPU backend's binding: the same CUfunction
    func = bound.loaded.function
    g, b = art.grid, art.block
    vals = [ctypes.c_uint64(bound.pack.slots[0].value),
            ctypes.c_uint64(bound.pack.slots[1].value), ctypes.c_uint32(n)]
    ptrs = (ctypes.c_void_p * 3)(*[ctypes.addressof(v) for v in vals])
    addr = ctypes.addressof(ptrs)
    stream = d.CUstream(0)
    launch = d.cuLaunchKernel

    def raw():
        err = launch(func, g[0], g[1], g[2], b[0], b[1], b[2], 0, stream, addr, 0)[0]
        if err:
            raise RuntimeError(err)

    views = [fresh() for _ in range(iters + 64)]
    it = iter(views * 4)

    variants = {
        "raw cuLaunchKernel": raw,
        f"kernel(*dev) [{lib}]": lambda: kernel(src, dst, n),
        f"kernel.launch(*dev) [{lib}]": lambda: kernel.launch(src, dst, n),
        f"kernel(*fresh views) [{lib}]": lambda: kernel(*next(it), n),
    }
    try:
        import torch
        if torch.cuda.is_available() and lib != "torch":
            ts = (torch.arange(n, device="cuda") % 251).to(torch.uint8)
            td = torch.zeros(n, dtype=torch.uint8, device="cuda")
            torch.cuda.synchronize()
            variants["kernel(*dev) [torch]"] = lambda: kernel(ts, td, n)
    except Exception:
        pass

    times = measure(variants, iters, ns.batch)
    base = statistics.median(times["raw cuLaunchKernel"])
    print(f"launch overhead, {art.kernel_name} grid={tuple(g)} block={tuple(b)}, "
          f"{iters} launches per variant (median of per-call host time, batches of {ns.batch})")
    print(f"{'variant':34s} {'median us':>10s} {'p10 us':>8s} {'p90 us':>8s} {'ratio':>7s}")
    for name, t in times.items():
        t = sorted(t)
        med = statistics.median(t)
        print(f"{name:34s} {med / 1e3:10.2f} {t[len(t) // 10] / 1e3:8.2f} "
              f"{t[(9 * len(t)) // 10] / 1e3:8.2f} {med / base:7.2f}x")
    goal = statistics.median(times[f"kernel(*dev) [{lib}]"]) / base
    print(f"goal: kernel(*dev) <= 1.10x raw: {'PASS' if goal <= 1.1 else 'FAIL'} ({goal:.2f}x)")

    # numpy path for reference (allocation + copies + sync per call)
    hs, hd = (np.arange(n) % 251).astype(np.uint8), np.zeros(n, np.uint8)
    t = []
    for _ in range(100):
        t0 = time.perf_counter_ns()
        kernel(hs, hd, n)
        t.append(time.perf_counter_ns() - t0)
    ok = np.array_equal(hd, hs)
    print(f"{'kernel(*numpy) incl. copies+sync':34s} {statistics.median(t) / 1e3:10.2f}"
          f"   (100 calls, result {'match' if ok else 'MISMATCH'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
