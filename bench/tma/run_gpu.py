"""The TMA differential campaign, GPU side: every case of bench/tma/cases/ run on the GPU and its
bytes compared with tile-sim's (the sha256 campaign.py recorded).  python3 with numpy and
cuda-bindings only: it encodes each tensor map itself with cuTensorMapEncodeTiled from the case's
record and launches the shipped cubin with cuLaunchKernel / cuLaunchKernelEx (clusters).

    python3 bench/tma/run_gpu.py [--cases DIR] [--save FILE.npz] [--limit N]

Prints one line per case that does not match ("mismatch" / "crash" with the CUDA error) and a
per-category count (kind / swizzle / element size / edge), then the totals; exit status 1 unless
every case matched.  ``--save`` keeps every case's GPU bytes (and the shared addresses the kernels
saw) for a look at the raw bytes of a mismatch.
"""
from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tma_cases as C  # noqa: E402

from cuda.bindings import driver as cu  # noqa: E402


class CudaFail(Exception):
    pass


def check(res, call):
    """The values of a cuda-bindings call (a tuple (CUresult, *values)); CudaFail on an error."""
    err, *vals = res if isinstance(res, tuple) else (res,)
    if int(err) != 0:
        name = cu.cuGetErrorName(err)[1]
        raise CudaFail(f"{call}: {name.decode() if isinstance(name, bytes) else name}")
    return vals[0] if len(vals) == 1 else tuple(vals) or None


class Device:
    def __init__(self, cubin: bytes):
        check(cu.cuInit(0), "cuInit")
        self.dev = check(cu.cuDeviceGet(0), "cuDeviceGet")
        self.ctx = check(cu.cuDevicePrimaryCtxRetain(self.dev), "cuDevicePrimaryCtxRetain")
        check(cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        self.mod = check(cu.cuModuleLoadData(cubin), "cuModuleLoadData")
        self.fns = {}

    def fn(self, name):
        if name not in self.fns:
            self.fns[name] = check(cu.cuModuleGetFunction(self.mod, name.encode()),
                                   "cuModuleGetFunction")
        return self.fns[name]

    def name(self):
        return check(cu.cuDeviceGetName(64, self.dev), "cuDeviceGetName").split(b"\0")[0].decode()


def encode(case: dict, gptr: int):
    dt = C.DTYPES[case["dtype"]][0]
    rank = len(case["dims"])
    return check(cu.cuTensorMapEncodeTiled(
        cu.CUtensorMapDataType(dt), rank, gptr + case["goffset"],
        # rank 1: one unused stride, as the driver refuses a NULL globalStrides
        [cu.cuuint64_t(d) for d in case["dims"]],
        [cu.cuuint64_t(s) for s in case["strides"] or [0]],
        [cu.cuuint32_t(b) for b in case["box"]], [cu.cuuint32_t(e) for e in case["estrides"]],
        cu.CUtensorMapInterleave(0), cu.CUtensorMapSwizzle(C.SWIZZLES[case["swizzle"]]),
        cu.CUtensorMapL2promotion(0), cu.CUtensorMapFloatOOBfill(C.OOB_FILLS[case["oob_fill"]])),
        "cuTensorMapEncodeTiled")


def run_case(dev: Device, case: dict):
    """(judged bytes, out) of one case on the GPU."""
    a = C.inputs(case)
    bufs = {}
    try:
        for k, arr in a.items():
            p = int(check(cu.cuMemAlloc(max(arr.nbytes, 1)), "cuMemAlloc"))
            bufs[k] = p
            check(cu.cuMemcpyHtoD(p, arr.ctypes.data, arr.nbytes), "cuMemcpyHtoD")
        tmap = encode(case, bufs["tensor"])
        vals = [ctypes.c_uint64(bufs["out"]), ctypes.c_uint64(bufs["pat"])]
        scal = C.scalar_args(case)
        ncoords = len(case["coords"])
        vals += [ctypes.c_uint32(v) for v in scal[:-ncoords]]
        vals += [ctypes.c_int32(v) for v in scal[-ncoords:]]
        ptrs = [int(tmap.getPtr())] + [ctypes.addressof(v) for v in vals]
        params = (ctypes.c_void_p * len(ptrs))(*ptrs)
        f = dev.fn(C.kernel_name(case))
        grid, cluster = case["grid"], case["cluster"]
        if cluster == [1, 1, 1]:
            check(cu.cuLaunchKernel(f, *grid, 128, 1, 1, 0, 0, ctypes.addressof(params), 0),
                  "cuLaunchKernel")
        else:
            cfg = cu.CUlaunchConfig()
            cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid
            cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = 128, 1, 1
            cfg.sharedMemBytes = 0
            cfg.hStream = cu.CUstream(0)
            attr = cu.CUlaunchAttribute()
            attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster
            cfg.attrs = [attr]
            cfg.numAttrs = 1
            check(cu.cuLaunchKernelEx(cfg, f, ctypes.addressof(params), 0), "cuLaunchKernelEx")
        check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
        for k in ("tensor", "out"):
            check(cu.cuMemcpyDtoH(a[k].ctypes.data, bufs[k], a[k].nbytes), "cuMemcpyDtoH")
    finally:
        for p in bufs.values():
            cu.cuMemFree(p)
    return C.judged(case, a["tensor"], a["out"]), a["out"]


def worker(book: dict, start: int, stop: int, save: str | None) -> int:
    """Run cases [start, stop) in this process; one result line per case.  A crash (a sticky CUDA
    error) ends the process: the parent goes on with the next case in a fresh one."""
    with open(os.path.join(book["dir"], "tma.cubin"), "rb") as f:
        dev = Device(f.read())
    if start == 0:
        print(f"DEVICE {dev.name()}", flush=True)
    saved, rc = {}, 0
    for case in book["cases"][start:stop]:
        try:
            got, out = run_case(dev, case)
        except CudaFail as e:
            print(f"RESULT {case['id']} crash {e}", flush=True)
            rc = 3
            break
        saved[f"case{case['id']}"] = np.frombuffer(got, np.uint8)
        addrs = ",".join(map(str, C.smem_addresses(case, out)))
        ok = C.digest(got) == case["expected_sha256"]
        print(f"RESULT {case['id']} {'match' if ok else 'mismatch'} buf@{addrs}", flush=True)
    if save:
        np.savez_compressed(f"{save}.part{start}.npz", **saved)
    return rc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=os.path.join(HERE, "cases"))
    ap.add_argument("--save", default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--worker", type=int, nargs=2, default=None, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    with open(os.path.join(ns.cases, "cases.json")) as f:
        book = json.load(f)
    book["dir"] = ns.cases
    todo = book["cases"][:ns.limit]
    if ns.worker:
        return worker(book, *ns.worker, ns.save)
    by_id = {c["id"]: c for c in todo}
    results: dict = {}
    addrs: set = set()
    start = 0
    while start < len(todo):
        cmd = [sys.executable, os.path.abspath(__file__), "--cases", ns.cases, "--worker",
               str(start), str(len(todo))] + (["--save", ns.save] if ns.save else [])
        proc = subprocess.run(cmd, capture_output=True, text=True)
        last = start - 1
        for line in proc.stdout.splitlines():
            if line.startswith("DEVICE "):
                print(f"run_gpu: {line[7:]}: {len(todo)} TMA cases (seed {book['seed']})")
            if not line.startswith("RESULT "):
                continue
            _, cid, verdict, detail = line.split(" ", 3)
            case = by_id[int(cid)]
            results[case["id"]] = verdict
            last = todo.index(case)
            if verdict == "match":
                addrs.update(int(a) for a in detail[4:].split(","))
            else:
                print(f"{verdict:8s} case {cid} {case['category']}: "
                      f"{detail if verdict == 'crash' else ''} {json.dumps(case)}", flush=True)
        if last < start:  # the worker died before its first case: that case crashed it
            case = todo[start]
            results[case["id"]] = "crash"
            print(f"crash    case {case['id']} {case['category']}: worker exited "
                  f"{proc.returncode}: {proc.stderr.strip()[-300:]} {json.dumps(case)}")
            last = start
        start = last + 1
    per_cat: dict = {}
    totals = {"match": 0, "mismatch": 0, "crash": 0}
    for case in todo:
        v = results[case["id"]]
        totals[v] += 1
        per_cat.setdefault(case["category"], dict.fromkeys(totals, 0))[v] += 1
    print("per category (kind/swizzle/element bytes/edge): match mismatch crash")
    for cat in sorted(per_cat):
        r = per_cat[cat]
        print(f"  {cat:32s} {r['match']:4d} {r['mismatch']:4d} {r['crash']:4d}")
    print(f"shared address of `buf` seen by the kernels: {sorted(addrs)}")
    print(f"run_gpu: {len(todo)} cases: {totals['match']} match, {totals['mismatch']} mismatch, "
          f"{totals['crash']} crash")
    if ns.save:
        merged = {}
        for part in sorted(glob.glob(f"{glob.escape(ns.save)}.part*.npz")):
            with np.load(part) as z:
                merged.update({k: z[k] for k in z.files})
            os.remove(part)
        np.savez_compressed(ns.save, **merged)
    return 0 if totals["match"] == len(todo) else 1


if __name__ == "__main__":
    sys.exit(main())
