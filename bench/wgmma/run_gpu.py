"""The GPU side of the wgmma campaign (run it on the H200; numpy + cuda-bindings only):

    python3 bench/wgmma/run_gpu.py [CASES_DIR] [--dump DIR]

For every configuration of CASES_DIR/manifest.json it rebuilds the instances' inputs (wg_cases.py,
deterministic), launches the configuration's kernel from its kind's cubin (one CTA per
instance), and compares each instance's output bits with tile-sim's (the sha256 digests in the
manifest).  Prints one line per mismatching or crashing configuration, then matches / mismatches
/ crashes per kind.  ``--dump`` writes the GPU outputs of mismatching instances there (npz).
Exit status 1 if anything mismatched or crashed.  A crash poisons the context; the runner resets
the primary context and goes on with the next configuration."""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import wg_cases as cases  # noqa: E402
from wg_kernels import in_words, nregs  # noqa: E402

from cuda.bindings import driver as cu  # noqa: E402


class CudaError(Exception):
    pass


def call(name, *args):
    res = getattr(cu, name)(*args)
    err = res[0]
    if int(err) != 0:
        raise CudaError(f"{name}: {cu.cuGetErrorName(err)[1].decode()}")
    return res[1] if len(res) == 2 else res[1:]


class Device:
    def __init__(self):
        call("cuInit", 0)
        self.dev = call("cuDeviceGet", 0)
        self.name = call("cuDeviceGetName", 128, self.dev).split(b"\0")[0].decode()
        self._open()

    def _open(self):
        self.ctx = call("cuDevicePrimaryCtxRetain", self.dev)
        call("cuCtxSetCurrent", self.ctx)
        self.modules = {}

    def reset(self):
        cu.cuDevicePrimaryCtxReset(self.dev)
        cu.cuDevicePrimaryCtxRelease(self.dev)
        self._open()

    def function(self, cubin_path, name):
        mod = self.modules.get(cubin_path)
        if mod is None:
            with open(cubin_path, "rb") as f:
                mod = self.modules[cubin_path] = call("cuModuleLoadData", f.read())
        return call("cuModuleGetFunction", mod, name.encode())

    def run(self, fn, inp: np.ndarray, out_words: int, grid: int) -> np.ndarray:
        d_in = call("cuMemAlloc", inp.nbytes)
        d_out = call("cuMemAlloc", out_words * 4)
        try:
            call("cuMemcpyHtoD", d_in, inp.ctypes.data, inp.nbytes)
            call("cuMemsetD32", d_out, 0xFFFFFFFF, out_words)
            params = np.array([int(d_in), int(d_out)], dtype=np.uint64)
            ptrs = np.array([params.ctypes.data, params.ctypes.data + 8], dtype=np.uint64)
            call("cuLaunchKernel", fn, grid, 1, 1, 128, 1, 1, 0, 0, ptrs.ctypes.data, 0)
            call("cuCtxSynchronize")
            out = np.empty(out_words, dtype=np.uint32)
            call("cuMemcpyDtoH", out.ctypes.data, d_out, out_words * 4)
            return out
        finally:
            cu.cuMemFree(d_in)
            cu.cuMemFree(d_out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases_dir", nargs="?", default=os.path.join(HERE, "cases"))
    ap.add_argument("--dump", default=None)
    ns = ap.parse_args(argv)
    with open(os.path.join(ns.cases_dir, "manifest.json")) as f:
        manifest = json.load(f)
    dev = Device()
    print(f"device: {dev.name}; {len(manifest['configs'])} kernels from {ns.cases_dir}",
          flush=True)
    tally = collections.defaultdict(lambda: collections.Counter())
    dumped = {}
    t0 = time.time()
    for cfg in manifest["configs"]:
        k = len(cfg["modes"])
        kind = cfg["kind"]
        inp = np.concatenate([cases.inputs(cfg, i) for i in range(k)])
        assert inp.size == k * in_words(cfg)
        nr = nregs(cfg)
        try:
            fn = dev.function(os.path.join(ns.cases_dir, cfg["cubin"]), cfg["name"])
            out = dev.run(fn, inp, k * 128 * nr, k).reshape(k, 128, nr)
        except CudaError as e:
            tally[kind]["crash"] += k
            print(f"crash    {cfg['name']}: {e}", flush=True)
            dev.reset()
            continue
        bad = [i for i in range(k) if cases.digest(out[i]) != cfg["expected"][i]]
        tally[kind]["match"] += k - len(bad)
        tally[kind]["mismatch"] += len(bad)
        if bad:
            print(f"mismatch {cfg['name']}: instances {bad} (modes "
                  f"{[cfg['modes'][i] for i in bad]})", flush=True)
            for i in bad:
                dumped[f"{cfg['name']}.{i}"] = out[i]
    total = collections.Counter()
    for kind in sorted(tally):
        c = tally[kind]
        total.update(c)
        print(f"{kind:5s}: {c['match']} match, {c['mismatch']} mismatch, {c['crash']} crash")
    print(f"total: {total['match']} match, {total['mismatch']} mismatch, {total['crash']} crash "
          f"({sum(total.values())} cases, {time.time() - t0:.1f} s)")
    if ns.dump and dumped:
        os.makedirs(ns.dump, exist_ok=True)
        np.savez_compressed(os.path.join(ns.dump, "mismatches.npz"), **dumped)
    return 1 if total["mismatch"] or total["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
