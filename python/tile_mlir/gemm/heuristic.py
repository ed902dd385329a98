"""The configuration for a shape (docs/gemm-library.md §5): a cost model over the candidate tilings, from the
shape, the dtype and the device's multiprocessor count.

The persistent kernel runs min(SMs, units) CTAs; a CTA's time is its tiles' (waves = ceil(units / SMs)), a
tile's the larger of its tensor-core time and its operand traffic (each K step loads (tile_m + tile_n) rows of
128 bytes), and the whole no less than one pass over A and B in DRAM at the busy fraction of the waves' SMs. So the model prefers, in order: tiles
that fill every multiprocessor in whole waves; among those, the larger tiles (fewer bytes per flop); 64-row
tiles where M <= 64 (half the shared memory and traffic of 128 rows, all of it past M zeros). The rates are the
H100/H200's (stated below, not measured per device); autotune=True measures instead (autotune.py).
"""
from __future__ import annotations

from .config import GemmConfig

__all__ = ["choose", "candidates", "estimate", "shape_class"]

# per multiprocessor: dense tensor-core flop/s (H100 SXM: 989 TF bf16, 1979 TF fp8, over 132 SMs) and the
# operand bytes/s a CTA's TMA loads sustain out of L2 (~64 B/clock at 1.7 GHz); DRAM: HBM3's 3.35 TB/s (H100;
# the H200's 4.8 the model need not know: the DRAM bound only decides between tilings of equal waves)
MMA_PER_SM = {"bf16": 989e12 / 132, "e4m3": 1979e12 / 132}
LOAD_PER_SM = 64 * 1.7e9
DRAM = 3.35e12
TILE_N = tuple(range(256, 15, -16))  # (wgmma N: any multiple of 8; these 16 keep cluster_m 2 open)
BIG = GemmConfig(tile_m=128, tile_n=256)  # the suite's tile (docs/gemm-walkthrough.md §10)


def candidates(m: int, n: int, k: int, dtype: str) -> list[GemmConfig]:
    """Every tiling the model (and autotune) weighs for this shape."""
    out = []
    for tm in ((64, 128) if m <= 64 else (128,)):
        for tn in TILE_N:
            if tn > 2 * max(8, -(-n // 8) * 8) and tn != TILE_N[-1]:
                continue  # (a tile far wider than N: the narrower ones cover it)
            out.append(GemmConfig(dtype, tile_m=tm, tile_n=tn))
    return out


def estimate(cfg: GemmConfig, m: int, n: int, k: int, sms: int) -> float:
    """Seconds the model gives cfg at M x N x K on `sms` multiprocessors."""
    units = cfg.units(m, n)
    waves = -(-units // sms)
    kp = -(-k // cfg.tile_k) * cfg.tile_k
    mma = 2.0 * cfg.tile_m * cfg.tile_n * kp / MMA_PER_SM[cfg.dtype]
    load = (cfg.tile_m + cfg.tile_n) * kp * cfg.elem_bytes / LOAD_PER_SM
    # DRAM is only streamed at its rate while every SM pulls its share: scaled by the busy fraction of the waves
    dram = ((m + n) * k * cfg.elem_bytes + 2 * m * n) / DRAM * (waves * sms / units)
    return max(waves * max(mma, load), dram)


def choose(m: int, n: int, k: int, dtype: str, sms: int) -> GemmConfig:
    """The model's configuration for M x N x K. Within 0.1 us of the best estimate (a DRAM-bound shape ties
    many tilings), the one keeping more multiprocessors busy (each pulls its share of DRAM), then the fewer
    rows (less of the tile past M), then the wider tile."""
    if -(-m // 128) * -(-n // 256) >= sms:  # every SM busy with 128 x 256 tiles: the suite's kernel
        return GemmConfig(dtype, tile_m=BIG.tile_m, tile_n=BIG.tile_n)
    return min(candidates(m, n, k, dtype), key=lambda c: (round(estimate(c, m, n, k, sms) * 1e7),
                                                           -min(c.units(m, n), sms), c.tile_m, -c.tile_n))


def shape_class(m: int, n: int, k: int) -> tuple[int, int, int]:
    """What autotune keys its winners on: M rounded up to a power of two (decode batches share one), N and K
    to a multiple of 256 (below 256: exact)."""
    def up(x: int, q: int) -> int:
        return x if x < q else -(-x // q) * q
    return (1 << max(0, (m - 1).bit_length()), up(n, 256), up(k, 256))
