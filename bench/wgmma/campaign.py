"""The H200 wgmma campaign: random wgmma cases, compiled here for sm_90a, expected outputs from
tile-sim, shipped for the GPU runner (run_gpu.py).

    .venv/bin/python bench/wgmma/campaign.py --cases 2400 --seed 1 [--out bench/wgmma/cases]

A configuration is one kernel (kind, N, operand layouts and swizzles, accumulate on/off,
negation, satfinite) run over several CTAs, one instance (value mode and seed) each.  The cases
folder holds: ``manifest.json`` (configurations, per-instance sha256 of tile-sim's output, the
PTX's sha256), one cubin per kind, and ``sample.npz`` (the full expected outputs of a sample of
instances, which ``make test`` replays on tile-sim)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import wg_cases as cases  # noqa: E402
import wg_kernels as kernels  # noqa: E402
import wg_values as values  # noqa: E402

#: kind -> (atype, btype choices, dtypes)
KINDS = {"f16": (("f16",), ("f32", "f16")), "bf16": (("bf16",), ("f32",)),
         "tf32": (("tf32",), ("f32",)), "e4m3": (("e4m3", "e5m2"), ("f32", "f16")),
         "e5m2": (("e5m2", "e4m3"), ("f32", "f16")), "s8": (("s8", "u8"), ("s32",))}
N_CHOICES = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256)
N_WEIGHTS = (12, 12, 8, 12, 6, 10, 5, 6, 3, 3)
INSTANCES = 8


def _choice(rng, seq, weights=None):
    if weights is None:
        return seq[int(rng.integers(len(seq)))]
    w = np.array(weights, dtype=float)
    return seq[int(rng.choice(len(seq), p=w / w.sum()))]


def _operand_cfg(rng, atype, rows, transposable):
    major = _choice(rng, ("K", "MN")) if transposable else "K"
    T = 16 // kernels.ELEM_BYTES[atype]
    sws = [0, 32, 64, 128]
    if major == "MN":  # an MN-major swizzle atom spans T * S/16 rows
        sws = [s for s in sws if s == 0 or rows >= T * s // 16]
    sw = _choice(rng, sws)
    arr = _choice(rng, ("k", "mn"))
    koff = 32 * int(rng.integers(sw // 32)) if (major == "K" and sw) else 0
    return {"major": major, "swizzle": sw, "arr": arr, "koff": koff}


def sample_configs(n_cases: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    kinds = list(KINDS)
    n_cfg = -(-n_cases // INSTANCES)
    cfgs = []
    for i in range(n_cfg):
        kind = kinds[i % len(kinds)]
        atypes, dtypes = KINDS[kind]
        atype = atypes[0]
        btype = _choice(rng, atypes)
        n = _choice(rng, N_CHOICES, N_WEIGHTS)
        if kind == "s8" and n in (48, 96):
            n = 64  # s8: N = 8, 16, 24, then multiples of 16
        trans = atype in ("f16", "bf16")
        a_cfg = _operand_cfg(rng, atype, 64, trans)
        if rng.integers(4) == 0:
            a_cfg = {"src": "regs", "major": "K", "swizzle": 0, "arr": "k", "koff": 0}
        cfg = {"name": f"{kind}_{i:04d}", "kind": kind, "atype": atype, "btype": btype,
               "dtype": _choice(rng, dtypes), "n": n,
               "a": a_cfg, "b": _operand_cfg(rng, btype, n, trans),
               "scale_d": int(rng.integers(2)), "neg_a": 0, "neg_b": 0,
               "satfinite": int(kind == "s8" and rng.integers(2)),
               "seed": seed * 100000 + i, "modes": [values.MODES[j % len(values.MODES)]
                                                   for j in range(INSTANCES)]}
        if kind not in ("s8",):
            cfg["neg_a"], cfg["neg_b"] = int(rng.integers(4) == 0), int(rng.integers(4) == 0)
        cfgs.append(cfg)
    return cfgs


def ptxas(ptx: str, cubin: str):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(ptx)
    try:
        subprocess.run(["ptxas", "-arch=sm_90a", f.name, "-o", cubin], check=True,
                       capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"ptxas failed:\n{e.stderr[:4000]}")
    finally:
        os.unlink(f.name)


def simulate(cfg, ptx: str) -> np.ndarray:
    from tile_mlir.sim import run_ptx
    k = len(cfg["modes"])
    inp = np.concatenate([cases.inputs(cfg, i) for i in range(k)])
    out = np.zeros(k * 128 * kernels.nregs(cfg), dtype=np.uint32)
    run_ptx(ptx, cfg["name"], [inp, out], grid=(k, 1, 1), block=(128, 1, 1), max_seconds=600)
    return out.reshape(k, 128, kernels.nregs(cfg))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "cases"))
    ap.add_argument("--sample-every", type=int, default=8,
                    help="keep the full outputs of instance 0 of every k-th configuration")
    ns = ap.parse_args(argv)
    os.makedirs(ns.out, exist_ok=True)
    cfgs = sample_configs(ns.cases, ns.seed)
    sample = {}
    t0 = time.time()
    for kind in KINDS:
        group = [c for c in cfgs if c["kind"] == kind]
        ptx = kernels.module([kernels.entry(c, c["name"]) for c in group])
        cubin = f"wgmma_{kind}.cubin"
        ptxas(ptx, os.path.join(ns.out, cubin))
        for c in group:
            one = kernels.module([kernels.entry(c, c["name"])])
            c["cubin"] = cubin
            c["ptx_sha256"] = hashlib.sha256(one.encode()).hexdigest()[:24]
            out = simulate(c, one)
            c["expected"] = [cases.digest(o) for o in out]
            if int(c["name"].split("_")[1]) % ns.sample_every == 0:
                sample[c["name"]] = out[0]
        print(f"{kind}: {len(group)} configurations x {INSTANCES} instances simulated "
              f"({time.time() - t0:.0f} s)", flush=True)
    with open(os.path.join(ns.out, "manifest.json"), "w") as f:
        json.dump({"seed": ns.seed, "instances": INSTANCES, "configs": cfgs}, f, indent=0)
    np.savez_compressed(os.path.join(ns.out, "sample.npz"), **sample)
    print(f"campaign: {len(cfgs) * INSTANCES} cases in {len(cfgs)} kernels -> {ns.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
