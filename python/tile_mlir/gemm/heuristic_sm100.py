"""The configuration for a shape on sm_100a (docs/gemm-library.md §5): heuristic.py's cost model over the
dense Blackwell kernel's tilings (blackwell_config.py).

No Blackwell GPU exists here, so nothing below was fitted to one: the rates are B200's published dense
figures spread over its multiprocessors, the per-CTA load rate is the one measured on Hopper (heuristic.py),
and the choice is only as good as that model (autotune=True measures instead, on a Blackwell GPU). With
cta_group 2 a pair computes a 256 x tile_n tile on two multiprocessors, each loading its A rows and half of B.
"""
from __future__ import annotations

from .blackwell_config import BlackwellConfig
from .heuristic import LOAD_PER_SM, RED, SPLIT_FIXED, SPLITS, TIE

__all__ = ["choose", "candidates", "estimate"]

# dense tensor-core flop/s per multiprocessor (B200: ~2.25 PF bf16 / f16, 4.5 PF fp8, 1.1 PF tf32, 148 SMs)
MMA_PER_SM = {"bf16": 2.25e15 / 148, "f16": 2.25e15 / 148, "e4m3": 4.5e15 / 148, "e5m2": 4.5e15 / 148,
              "tf32": 1.1e15 / 148}
DRAM = 8e12  # HBM3e, B200
TILE_N = (256, 192, 128, 64)


def candidates(m: int, n: int, k: int, dtype: str) -> list[BlackwellConfig]:
    """Every tiling the model (and autotune) weighs for this shape."""
    out = []
    for cg in (2, 1):
        if cg == 2 and m <= 128:
            continue  # (a pair's second 128 rows wholly past M)
        for tn in TILE_N:
            if tn > 2 * max(64, -(-n // 64) * 64) and tn != TILE_N[-1]:
                continue
            base = BlackwellConfig(dtype, tile_n=tn, cta_group=cg)
            out.append(base)
            kt = -(-k // base.tile_k)
            out += [BlackwellConfig(dtype, tile_n=tn, cta_group=cg, split_k=s) for s in SPLITS if kt >= 2 * s]
    return out


def estimate(cfg: BlackwellConfig, m: int, n: int, k: int, sms: int) -> float:
    """Seconds the model gives cfg at M x N x K on `sms` multiprocessors."""
    units = cfg.units(m, n)
    slots = max(1, sms // cfg.cta_group)
    waves = -(-units // slots)
    kp = cfg.k_per_split(k) * cfg.tile_k
    mma = 2.0 * cfg.tile_m * cfg.tile_n * kp / MMA_PER_SM[cfg.dtype]  # (each CTA of a pair: its 128 rows)
    rows = min(cfg.tile_m, m) + min(cfg.tile_n, n) / cfg.cta_group
    load = rows * kp * cfg.elem_bytes / LOAD_PER_SM
    dram = ((m + n) * k * cfg.elem_bytes + 2 * m * n) / DRAM * (waves * slots / units)
    t = max(waves * max(mma, load), dram)
    if cfg.split_k > 1:
        t += cfg.split_k * m * n * 4 / RED + 10 * m * n / DRAM + SPLIT_FIXED
    return t


def choose(m: int, n: int, k: int, dtype: str, sms: int) -> BlackwellConfig:
    """The model's configuration: among the candidates within TIE of the best estimate, the one of fewest
    waves, then fewest split-K parts, then CTA pairs (half of B's traffic per CTA), then the wider tile."""
    timed = [(estimate(c, m, n, k, sms), c) for c in candidates(m, n, k, dtype)]
    best = min(t for t, _ in timed)
    near = [c for t, c in timed if t <= best * (1 + TIE)]
    return min(near, key=lambda c: (-(-c.units(m, n) // max(1, sms // c.cta_group)), c.split_k, -c.cta_group,
                                    -c.tile_n))
