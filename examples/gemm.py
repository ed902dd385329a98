#!/usr/bin/env python3
"""GEMM as a user calls it: tile_mlir.gemm(a, b) chooses the configuration for the shape, the dtype and the
device's multiprocessors, compiles it once (one kernel serves every shape) and runs it (docs/gemm-library.md).

    python examples/gemm.py --dtype bf16 -M 1 -N 4096 -K 14336                   # the configuration chosen
    python examples/gemm.py --dtype bf16 -M 130 -N 136 -K 200 --sms 2 --run sim  # run, check vs MMA-Sim
    python examples/gemm.py --dtype e4m3 -M 70 -N 20 -K 100 --sms 2 --run sim    # K, N padded for TMA
    python examples/gemm.py --dtype bf16 -M 70 -N 72 -K 300 --split-k 2 --sms 3 --run sim
    python examples/gemm.py --dtype bf16 -M 70 -N 72 -K 300 --stream-k --sms 3 --run sim

D[M, N] = A[M, K] . B[N, K]^T in bf16. --run checks D bit for bit against MMA-Sim's Hopper model (over K padded
with zeros to whole K tiles, as TMA fills it); split-K and stream-K reduced in the kernel against the model's
partials added in K order, split-K by TMA reductions in each order they may take (docs/gemm-library.md §3).
--sms stands for the device's count (tile-sim: 132).
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

DTYPES = {"bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn}


def split_k_parts(a, b, parts: int, tile_k: int) -> list[np.ndarray]:
    """Each split-K part's fp32 partial, MMA-Sim's model over its K steps (zero-filled past K)."""
    import gemm_reference as ref
    k = a.shape[1]
    kps = -(-(-(-k // tile_k)) // parts) * tile_k
    out = []
    for p in range(parts):
        lo, hi = p * kps, min((p + 1) * kps, k)
        pa, pb = (np.zeros((x.shape[0], kps), x.dtype) for x in (a, b))
        if hi > lo:
            pa[:, :hi - lo], pb[:, :hi - lo] = a[:, lo:hi], b[:, lo:hi]
        out.append(ref.mmasim_wgmma(pa, pb).astype(np.float32))
    return out


def _partial(a, b, lo: int, hi: int, tile_k: int) -> np.ndarray:
    """MMA-Sim's fp32 partial over K steps [lo, hi) (zero-filled past K)."""
    import gemm_reference as ref
    w = (hi - lo) * tile_k
    pa, pb = (np.zeros((x.shape[0], w), x.dtype) for x in (a, b))
    k0, k1 = lo * tile_k, min(hi * tile_k, a.shape[1])
    if k1 > k0:
        pa[:, :k1 - k0], pb[:, :k1 - k0] = a[:, k0:k1], b[:, k0:k1]
    return ref.mmasim_wgmma(pa, pb).astype(np.float32)


def stream_k_model(a, b, cfg, grid: int) -> np.ndarray:
    """D of the stream-K kernel (gemm/hopper.py _stream_units) as numpy: the tiles' K steps in `grid` even
    ranges; each tile's partials, one per CTA whose range meets it, added in K order into the first, in fp32."""
    import gemm_reference as ref
    (m, _), n = a.shape, b.shape[0]
    kt = -(-a.shape[1] // cfg.tile_k)
    tn_, tm_ = -(-n // cfg.tile_n), -(-m // cfg.tile_m)
    total = tm_ * tn_ * kt
    starts = [c * total // grid for c in range(grid + 1)]
    d = np.zeros((m, n), np.float32)
    for t in range(tm_ * tn_):
        r, c = _raster(t, tm_, tn_, cfg.group_m)
        rows, cols = slice(r * cfg.tile_m, (r + 1) * cfg.tile_m), slice(c * cfg.tile_n, (c + 1) * cfg.tile_n)
        acc = None
        for cta in range(grid):
            lo, hi = max(starts[cta], t * kt), min(starts[cta + 1], (t + 1) * kt)
            if hi > lo:
                p = _partial(a[rows], b[cols], lo - t * kt, hi - t * kt, cfg.tile_k)
                acc = p if acc is None else (acc + p).astype(np.float32)
        d[rows, cols] = acc
    return ref.to_bf16(d)


def _raster(t: int, tiles_m: int, tiles_n: int, group: int) -> tuple[int, int]:
    """Grouped raster order (tile.raster.grouped, docs/gemm-walkthrough.md §10): tile t's (row, column)."""
    per = group * tiles_n
    g, i = divmod(t, per)
    rows = min(group, tiles_m - g * group)
    return g * group + i % rows, i // rows


def check(d, a, b, cfg, grid: int = 0) -> int:
    """0 when D is the model's (split-K by the fix-up, and stream-K on `grid` CTAs: its partials added in K
    order; by TMA reductions: in one of the orders of its parts' additions, element by element)."""
    import gemm_reference as ref
    if cfg.stream_k:
        return ref.report_bits(cfg.name, d, stream_k_model(a, b, cfg, grid))
    if cfg.fixup:
        parts = split_k_parts(a, b, cfg.split_k, cfg.tile_k)
        acc = parts[0]
        for p in parts[1:]:
            acc = (acc + p).astype(np.float32)
        return ref.report_bits(cfg.name, d, ref.to_bf16(acc))
    if cfg.split_k == 1:
        kp = -(-a.shape[1] // cfg.tile_k) * cfg.tile_k
        pad = lambda x: np.pad(x, ((0, 0), (0, kp - x.shape[1])))  # noqa: E731
        return ref.report_bits(cfg.name, d, ref.to_bf16(ref.mmasim_wgmma(pad(a), pad(b))))
    parts = split_k_parts(a, b, cfg.split_k, cfg.tile_k)
    hit = np.zeros(d.shape, bool)
    for order in itertools.permutations(parts):
        acc = np.zeros_like(parts[0])
        for p in order:
            acc = (acc + p).astype(np.float32)
        hit |= d.view(np.uint16) == ref.to_bf16(acc).view(np.uint16)
    missed = int(np.count_nonzero(~hit))
    print(f"{cfg.name}: D == MMA-Sim's model in one order of its {cfg.split_k} parts ({missed} of {d.size} "
          "in none)")
    return 1 if missed else 0


def main(argv=None) -> int:
    from example_cli import MAX_EXTENT, int_in, run_main

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    p.add_argument("-M", type=int_in(1, MAX_EXTENT), default=1)
    p.add_argument("-N", type=int_in(1, MAX_EXTENT), default=4096)
    p.add_argument("-K", type=int_in(1, MAX_EXTENT), default=14336)
    p.add_argument("--sms", type=int_in(1, 1024), help="the multiprocessors to choose for (default: the device's)")
    p.add_argument("--split-k", type=int_in(1, 64), help="this many split-K parts of the chosen tile instead")
    p.add_argument("--split-reduce", choices=("fixup", "tma"), default="fixup",
                   help="with --split-k: parts added in the kernel (fixup) or by TMA reductions")
    p.add_argument("--stream-k", action="store_true", help="stream-K over the chosen tile instead")
    p.add_argument("--run", choices=("sim", "gpu"), help="run on random operands and check D")
    args = p.parse_args(argv)
    return run_main(p, lambda: _main(args))


def _main(args) -> int:
    import dataclasses

    import tile_mlir
    from gemm_reference import random_dense
    from tile_mlir.gemm import GemmConfig

    where = args.run or "sim"
    sms = args.sms or tile_mlir.gemm.device_sms(where)
    cfg = tile_mlir.gemm.choose(args.M, args.N, args.K, args.dtype, sms)
    if args.split_k or args.stream_k:
        cfg = GemmConfig(**{**dataclasses.asdict(cfg), "split_k": 1 if args.stream_k else args.split_k, "stages": 0,
                            "split_reduce": args.split_reduce, "stream_k": args.stream_k, "cluster_m": 1})
    print(f"{args.M} x {args.N} x {args.K} {args.dtype} on {sms} SMs: {cfg.name} "
          f"({cfg.units(args.M, args.N)} units, grid {cfg.grid(args.M, args.N, sms)})")
    if not args.run:
        return 0
    a, b = random_dense(DTYPES[args.dtype], args.M, args.N, args.K, seed=0)
    d = tile_mlir.gemm(a, b, config=cfg, backend=args.run, sms=sms)
    return check(d, a, b, cfg, cfg.grid(args.M, args.N, sms))


if __name__ == "__main__":
    sys.exit(main())
