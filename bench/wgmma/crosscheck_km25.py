"""Cross-check of MMA-Sim (the model tile-sim's mma_numerics uses) against the hardware outputs that
Khattak and Mikaitis publish with their independent tensor-core models (arXiv:2512.07004;
github.com/north-numerical-computing/MATLAB-tensor-core, BSD-2-Clause, folder model_validation/:
D = a·b + c for 5000 random vectors per GPU and format, measured with wmma/mma.sync, and with
wgmma for fp8 on H100/H200, where c is zero).

    .venv/bin/python bench/wgmma/crosscheck_km25.py DIR     (DIR = a checkout's model_validation/)

For each GPU and format it runs MMA-Sim's dot-product model of the instruction family the data came
from (mma.sync: `MMA`; wgmma: `WGMMA`; and for B200 also `TCGen05MMA`, which tcgen05.mma uses) and
counts bit-exact agreements with the recorded D."""

from __future__ import annotations

import os
import sys

import numpy as np
import torch
import mmasim.nv_ptx as nv

K = {"fp16": 16, "bf16": 16, "tf32": 4, "E4M3": 32, "E5M2": 32}
PTX = {"fp16": "f16", "bf16": "bf16", "tf32": "tf32", "E4M3": "e4m3", "E5M2": "e5m2"}
DT = {"fp16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32,
      "E4M3": torch.float8_e4m3fn, "E5M2": torch.float8_e5m2}
ARCH = {"H100": "Hopper", "H200": "Hopper", "B200": "Blackwell"}


def hex_rows(path, k):
    with open(path) as f:
        w = np.array([int(t, 16) for t in f.read().split()], dtype=np.uint32)
    return w.view(np.float32).reshape(-1, k)


def bin_words(path):
    with open(path) as f:
        return np.array([int(t, 2) for t in f.read().split()], dtype=np.uint32)


def shape_of(family, arch, fmt, out):
    a = PTX[fmt]
    k = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32}[a]
    if family == "WGMMA":
        return f"m64n8k{k}.{out}.{a}.{a}"
    if family == "TCGen05MMA":
        kind = {"f16": "f16", "bf16": "f16", "tf32": "tf32"}.get(a, "f8f6f4")
        return f"m128n8k{k}.kind::{kind}.{out}.{a}.{a}"
    mk = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32}[a]
    return f"m16n8k{mk}.{out}.{a}.{a}.{out}"


def run(root):
    lines = []
    for gpu in ("H100", "H200", "B200"):
        for fmt in K:
            d = os.path.join(root, gpu, fmt)
            if not os.path.isdir(d):
                continue
            a = hex_rows(os.path.join(d, f"a_{gpu}_{fmt}.txt"), K[fmt])
            b = hex_rows(os.path.join(d, f"b_{gpu}_{fmt}.txt"), K[fmt])
            fp8 = fmt in ("E4M3", "E5M2")
            c_file = bin_words(os.path.join(d, f"c_{gpu}_fp32.txt")).view(np.float32)
            families = ["WGMMA"] if gpu != "B200" and fp8 else (
                ["MMA", "TCGen05MMA"] if gpu == "B200" else ["MMA", "WGMMA"])
            for out in ("f32", "f16"):
                path = os.path.join(d, f"d_{gpu}_{'fp32' if out == 'f32' else 'fp16'}.txt")
                if not os.path.exists(path):
                    continue
                want = bin_words(path).view(np.float32)
                ta, tb = torch.from_numpy(a).to(DT[fmt]), torch.from_numpy(b).to(DT[fmt])
                # Hopper fp8 -> f32 is their wgmma data, with c = 0 (their Validate_TC_models.m);
                # the fp8 -> f16 files were made with the recorded c (with c = 0 only 0.1% agree)
                zero_c = gpu != "B200" and fp8 and out == "f32"
                tc = torch.from_numpy(np.zeros_like(c_file) if zero_c else c_file.copy())
                if out == "f16":  # the measurement rounded c to fp16 (RNE) first
                    tc = tc.to(torch.float16)
                for fam in families:
                    try:
                        op = getattr(nv, fam)(ARCH[gpu], shape_of(fam, ARCH[gpu], fmt, out))
                    except AssertionError:
                        continue
                    got = op.dpa(ta, tb, tc).float().numpy()
                    same = (got.view(np.uint32) == want.view(np.uint32)) | \
                        (np.isnan(got) & np.isnan(want))
                    lines.append(f"{gpu} {fmt:4s} -> {out} (c {'= 0' if zero_c else 'recorded'}): "
                                 f"MMA-Sim {fam:10s} {int(same.sum())}/{len(want)} bit-exact")
    return lines


if __name__ == "__main__":
    for line in run(sys.argv[1]):
        print(line, flush=True)
