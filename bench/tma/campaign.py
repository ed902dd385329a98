"""The TMA differential campaign, development side: N random valid tile-mode TMA cases (seeded),
the campaign's PTX compiled by ptxas for sm_90a, each case run on tile-sim for its expected bytes,
all written to bench/tma/cases/ for the GPU-side runner (run_gpu.py, which compares the H200's
bytes with them) and for the replay test (test/python/sim/test_tma_campaign_replay.py).

    .venv/bin/python bench/tma/campaign.py --cases 640 --seed 1 [--out bench/tma/cases]

Cases cover rank 1..5, the four swizzle modes, 1/2/4/8-byte elements, boxes crossing the tensor's
edge (negative and past-the-end coordinates), padded global rows, element strides > 1, destination
offsets inside a swizzle repeat, OOB-NaN fill, the three ways of setting the tx-count, multicast
over clusters of 2 (masks 1, 2, 3; either issuer; one or two clusters) and TMA stores.  The case
records, the sha256 of each case's expected bytes and the full bytes of a sample are written;
inputs are regenerated from each case's seed (tma_cases.data).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))

import tma_cases as C  # noqa: E402
import tma_kernels as kernels  # noqa: E402
from tile_mlir.sim import TensorMap, run_ptx  # noqa: E402

SPAN = {"none": 0, "32b": 32, "64b": 64, "128b": 128}
MAX_IMAGE = 12 * 1024  # bytes of a box image in shared memory, to keep cases quick to emulate
MAX_TENSOR = 192 * 1024  # bytes of a case's global allocation
SAMPLE = 48  # cases whose full expected bytes are shipped


def _pick(rng, items, weights=None):
    p = None if weights is None else np.asarray(weights, float) / sum(weights)
    return items[int(rng.choice(len(items), p=p))]


def make_case(rng, cid: int, seed: int) -> dict:
    kind = _pick(rng, ["load", "mcast", "store"], [55, 25, 20])
    rank = _pick(rng, [1, 2, 3, 4, 5], [4, 36, 24, 18, 18])
    dtype = _pick(rng, list(C.DTYPES), [16, 8, 8, 4, 3, 1, 6, 6, 2, 5, 2, 2, 2])
    esize = C.DTYPES[dtype][1]
    swizzle = _pick(rng, list(SPAN))
    span = SPAN[swizzle]
    inner = 16 * int(rng.integers(1, (span or 256) // 16 + 1))  # inner box bytes
    box = [min(inner // esize, 256)]
    inner = box[0] * esize
    pitch = span or inner
    es = [1] * rank
    rows_left = max(1, MAX_IMAGE // pitch)
    for i in range(1, rank):
        b = int(rng.integers(1, min(256, 12 if rank > 3 else 40) + 1))
        if kind != "store" and rng.random() < 0.12:
            es[i] = int(rng.integers(2, 5))
            if rng.random() < 0.7:  # mostly boxes the stride divides (see A21 for the others)
                b = max(es[i], b - b % es[i])
        n = -(-b // es[i])
        if n > rows_left:
            b, n = rows_left * es[i], rows_left
        rows_left = max(1, rows_left // n)
        box.append(b)
    # the tensor: dims near the box so that edges are common, rows padded now and then
    dims = [int(rng.integers(max(1, box[0] // 2), box[0] * 3 + 1))]
    dims += [int(rng.integers(max(1, box[i] // 2), box[i] * es[i] * 2 + 2))
             for i in range(1, rank)]
    strides = []
    s = -(-dims[0] * esize // 16) * 16
    for i in range(1, rank):
        s += 16 * int(_pick(rng, [0, 0, 1, 2, 4]))
        strides.append(s)
        s *= dims[i]
    goffset = 16 * int(_pick(rng, [0, 0, 1, 4, 16]))
    gsize = goffset + (strides[-1] * dims[-1] if rank > 1 else -(-dims[0] * esize // 16) * 16)
    if gsize > MAX_TENSOR:
        return make_case(rng, cid, seed)
    # coordinates: inside, or across an edge (negative / past the end); c0 * esize % 16 == 0
    q = max(1, 16 // esize)
    coords = []
    for i in range(rank):
        reach = box[i] * es[i]
        if rng.random() < 0.45:
            c = int(rng.integers(-reach + 1, dims[i] + 1))
        else:
            c = int(rng.integers(0, max(1, dims[i] - reach + 1)))
        if i == 0:
            c = (c // q) * q
        if kind == "store":  # a store with a negative coordinate faults (A27)
            c = max(c, 0)
        coords.append(c)
    counts = [box[0]] + [-(-box[i] // es[i]) for i in range(1, rank)]
    image = int(np.prod(counts[1:])) * pitch
    off = 128 * int(rng.integers(0, 8)) if rng.random() < 0.4 else 1024 * int(rng.integers(0, 2))
    nbytes = off + image + 16 * int(rng.integers(0, 9)) if kind != "store" else image
    fill = "none"
    if dtype.startswith(("float", "bfloat")) and rng.random() < 0.3:
        fill = "nan_request_zero_fma"
    case = {"id": cid, "seed": seed, "kind": kind, "dtype": dtype, "dims": dims,
            "strides": strides, "box": box, "estrides": es, "swizzle": swizzle,
            "oob_fill": fill, "goffset": goffset, "gsize": gsize, "coords": coords,
            "off": off, "nbytes": nbytes,
            "tx": int(np.prod(counts)) * esize, "txmode": int(rng.integers(0, 3)),
            "grid": [1, 1, 1], "cluster": [1, 1, 1]}
    if kind == "mcast":
        case.update(mask=int(_pick(rng, [1, 2, 3], [1, 1, 4])), issuer=int(rng.integers(0, 2)),
                    grid=[int(_pick(rng, [2, 4])), 1, 1], cluster=[2, 1, 1])
    if kind == "store":
        case.update(tx=0, txmode=0)
    case["category"] = category(case)
    return case


def category(case: dict) -> str:
    """swizzle x element size x edge x kind, the campaign's per-category count."""
    edge = any(c < 0 or c + b * e > d for c, b, e, d in
               zip(case["coords"], case["box"], case["estrides"], case["dims"]))
    return (f"{case['kind']}/sw-{case['swizzle']}/e{C.DTYPES[case['dtype']][1]}/"
            f"{'edge' if edge else 'inside'}")


def tensor_map(case: dict, tensor: np.ndarray) -> TensorMap:
    return TensorMap(case["dtype"], tensor, case["dims"], case["strides"], case["box"],
                     element_strides=case["estrides"], swizzle=case["swizzle"],
                     oob_fill=case["oob_fill"], offset=case["goffset"])


def simulate(ptx: str, case: dict) -> bytes:
    """The case on tile-sim: the bytes it is judged by."""
    a = C.inputs(case)
    run_ptx(ptx, C.kernel_name(case), [tensor_map(case, a["tensor"]), a["out"], a["pat"]]
            + C.scalar_args(case), grid=case["grid"], block=(128, 1, 1),
            cluster=case["cluster"])
    return C.judged(case, a["tensor"], a["out"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=640)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "cases"))
    ns = ap.parse_args(argv)
    os.makedirs(ns.out, exist_ok=True)
    ptx = kernels.module()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tma.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        subprocess.run(["ptxas", "-arch=sm_90a", src, "-o", os.path.join(ns.out, "tma.cubin")],
                       check=True)
    with open(os.path.join(ns.out, "tma.ptx"), "w") as f:
        f.write(ptx)
    rng = np.random.default_rng(ns.seed)
    records, sample = [], {}
    t0 = time.time()
    for i in range(ns.cases):
        case = make_case(rng, i, ns.seed * 100003 + i)
        got = simulate(ptx, case)
        case["expected_sha256"] = C.digest(got)
        records.append(case)
        if i < SAMPLE:
            sample[f"case{i}"] = np.frombuffer(got, np.uint8)
    with open(os.path.join(ns.out, "cases.json"), "w") as f:
        json.dump({"seed": ns.seed, "spin": kernels.SPIN, "cases": records}, f, indent=0)
    np.savez_compressed(os.path.join(ns.out, "expected_sample.npz"), **sample)
    cats: dict = {}
    for c in records:
        cats[c["category"]] = cats.get(c["category"], 0) + 1
    print(f"campaign: {len(records)} cases (seed {ns.seed}) on tile-sim in "
          f"{time.time() - t0:.1f} s, {len(cats)} categories -> {os.path.relpath(ns.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
