"""Helpers of the wgmma tests: the campaign's kernel and input generator (bench/wgmma, written
from the PTX ISA independently of tile-sim), logical matrices back from the fragment words, and
float decoding for reference checks."""

from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "wgmma")
sys.path.append(os.path.abspath(BENCH))

import wg_cases as cases  # noqa: E402
import wg_kernels as kernels  # noqa: E402

from tile_mlir.sim import run_ptx  # noqa: E402


def config(atype="f16", btype=None, dtype="f32", n=16, a=None, b=None, scale_d=0, neg_a=0,
           neg_b=0, satfinite=0, modes=("normal",), seed=7):
    k = {"major": "K", "swizzle": 128, "arr": "k", "koff": 0}
    return {"name": "k", "kind": atype, "atype": atype, "btype": btype or atype, "dtype": dtype,
            "n": n, "a": dict(k, **(a or {})), "b": dict(k, **(b or {})), "scale_d": scale_d,
            "neg_a": neg_a, "neg_b": neg_b, "satfinite": satfinite, "seed": seed,
            "modes": list(modes)}


def ptx_of(cfg) -> str:
    return kernels.module([kernels.entry(cfg, cfg["name"])])


def run(cfg, ptx=None, strict=True):
    """Per instance: the 128 x nregs output words of tile-sim."""
    ptx = ptx or ptx_of(cfg)
    k = len(cfg["modes"])
    inp = np.concatenate([cases.inputs(cfg, i) for i in range(k)])
    out = np.zeros(k * 128 * kernels.nregs(cfg), dtype=np.uint32)
    res = run_ptx(ptx, cfg["name"], [inp, out], grid=(k, 1, 1), strict=strict)
    return out.reshape(k, 128, kernels.nregs(cfg)), res


def d_matrix(words: np.ndarray, n: int, dtype: str) -> np.ndarray:
    """64 x n bit patterns from a 128 x nregs accumulator fragment, placed by the PTX ISA's
    wgmma D fragment figure: thread t (warp w, lane l), value v at row 16w + l/4 + 8·((v/2)%2),
    column 8·(v/4) + 2·(l%4) + v%2; f16 values two per register, low half first."""
    if dtype == "f16":
        words = np.stack([words & 0xFFFF, words >> 16], axis=-1).reshape(128, -1)
    d = np.zeros((64, n), dtype=np.uint32)
    for t in range(128):
        w, lane = divmod(t, 32)
        for v in range(n // 2):
            d[16 * w + lane // 4 + 8 * ((v // 2) % 2), 8 * (v // 4) + 2 * (lane % 4) + v % 2] = \
                words[t, v]
    return d


def to_float(bits: np.ndarray, fmt: str) -> np.ndarray:
    if fmt in ("f32", "tf32"):
        b = bits.astype(np.uint32) & (0xFFFFE000 if fmt == "tf32" else 0xFFFFFFFF)
        return b.view(np.float32).astype(np.float64)
    view = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn,
            "e5m2": ml_dtypes.float8_e5m2}[fmt]
    return bits.astype(np.uint16 if fmt in ("f16", "bf16") else np.uint8).view(view).astype(
        np.float64)
