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

from .config import FIXUP_MAX_N, FIXUP_UNITS, GemmConfig

__all__ = ["choose", "candidates", "estimate", "shape_class"]

# per multiprocessor: dense tensor-core flop/s (H100 SXM: 989 TF bf16, 1979 TF fp8, over 132 SMs) and the
# operand bytes/s a CTA's TMA loads sustain out of L2 (~64 B/clock at 1.7 GHz); DRAM: HBM3's 3.35 TB/s (H100;
# the H200's 4.8 the model need not know: the DRAM bound only decides between tilings of equal waves)
MMA_PER_SM = {"bf16": 989e12 / 132, "e4m3": 1979e12 / 132}
LOAD_PER_SM = 64 * 1.7e9
DRAM = 3.35e12
L2 = 2 * DRAM  # operand bytes/s out of L2 to all SMs (an assumption: twice DRAM's)
# split-K's own work beside the kernel: zeroing the fp32 workspace and converting it, two more launches of a
# few microseconds each on the GPU (an assumption, measured only as autotune measures)
SPLIT_FIXED = 4e-6
# (the kernel's own fix-up, split_reduce "fixup" and stream-K, makes neither launch and adds no TMA reduction,
# but stores and loads whole partial tiles: the model still prices every split as the TMA-reduced one measured
# above, and stream-K's partials alike, a bound the fix-up beat at every decode shape an H100 ran (the probe below)
# The fix-up and stream-K (docs/gemm-library.md §3) ran first on tile-sim, whose memory is sequentially
# consistent; their release/acquire pattern has since run on an H100:
#   bench/results/h100-gemm-fixup-probe-2026-12-07.txt  every candidate's D within 1e-2 of cuBLAS (decode shapes)
#   bench/results/h100-gemm-checked-2026-12-07.txt      the three suites through the heuristic with them on
# False offers only the TMA-reduced split (the model's choice before that run).
SILICON_CHECKED = True
# the partials' reductions into L2 (cp.reduce.async.bulk.tensor .add.f32): fitted to an H100's timings of split
# counts 2 to 8 (bench/results/h100-gemm-library-2026-12-07-probe.txt: fewer parts won at every shape)
RED = 1.5e12
# a K step's own time in a CTA whatever its bytes: the consumer's wgmma group waited for one step behind
# (gemm_wait 1), the stage's release and the producer's re-arm; measured on an H100 (bench/results/
# h100-gemm-library-2026-12-07-run1.txt): ~370 ns a step for 64 x 32 tiles streaming K (M = 1, N = 4096)
STEP = 370e-9
TIE = 0.05
# ties: split-K tiles at least this wide among tiles that divide N (where none does, as at N = 200 or 4000,
# unmeasured: the rule stays out). Both measured on an H100 (bench/results/
# h100-gemm-decode-2026-12-07-probe.txt, ours/cuBLAS at N = 4096): 64 x 128 tiles in 4 parts 0.92-0.99 at
# M 1, 16, 64 (K 14336) and M 64 (K 4096) where 64 x 96 in 3 parts (ragged at N) gave 0.88-0.94 and 64 x 64 in
# 2 parts 0.83; 128 x 128 in 4 parts 0.92 at 128 x 4096 x 4096 where 128 x 96 in 3 gave 0.87
SPLIT_MIN_N = 128
SPLITS = (2, 3, 4, 6, 8, 12, 16)
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
            kt = -(-k // out[-1].tile_k)
            if tn % 32 == 0:  # split-K parts of at least two K steps: reduced by the fix-up where it can (tiles at
                # most FIXUP_MAX_N wide, units within its workspace), else by TMA (32-column fp32 staging boxes)
                for s in SPLITS:
                    if kt >= 2 * s:
                        fix = GemmConfig(dtype, tile_m=tm, tile_n=tn, split_k=s, split_reduce="tma")
                        if SILICON_CHECKED and tn <= FIXUP_MAX_N and fix.units(m, n) <= FIXUP_UNITS:
                            fix = GemmConfig(dtype, tile_m=tm, tile_n=tn, split_k=s, split_reduce="fixup")
                        out.append(fix)
            if SILICON_CHECKED and tn <= FIXUP_MAX_N and kt >= 2:  # stream-K (the fix-up's tiles; which shapes: _stream_fits)
                out.append(GemmConfig(dtype, tile_m=tm, tile_n=tn, stream_k=True))
    return [c for c in out if c.stages >= 4]  # (fewer stages, e.g. a wide unswizzled staging tile: no latency hidden)


def _stream_fits(cfg: GemmConfig, m: int, n: int, k: int, sms: int) -> bool:
    """Stream-K where it is meant for: fewer output tiles than SMs, at least two K steps a CTA, and its slots
    and step counts within the kernel's limits (GemmConfig.check)."""
    tiles, kt = cfg.tiles(m, n), -(-k // cfg.tile_k)
    try:
        cfg.check(m, n, k, sms)
    except ValueError:
        return False
    return tiles < sms and tiles * kt >= 2 * sms


def estimate(cfg: GemmConfig, m: int, n: int, k: int, sms: int) -> float:
    """Seconds the model gives cfg at M x N x K on `sms` multiprocessors."""
    kt = -(-k // cfg.tile_k)
    rows = min(cfg.tile_m, m) + min(cfg.tile_n, n)  # (rows past M and N: TMA's zeros, no traffic)
    if cfg.stream_k:  # every CTA ceil(tiles kt / sms) steps; a tile's partials: about sms / tiles + 1 of them
        if not _stream_fits(cfg, m, n, k, sms):
            return float("inf")
        tiles = cfg.tiles(m, n)
        units, waves, kp = sms, 1, -(-tiles * kt // sms) * cfg.tile_k
        parts = -(-sms // tiles) + 1
    else:
        units = cfg.units(m, n)
        waves = -(-units // sms)
        kp = -(-kt // cfg.split_k) * cfg.tile_k  # a unit's K (a split-K part's)
        parts = cfg.split_k
    mma = 2.0 * cfg.tile_m * cfg.tile_n * kp / MMA_PER_SM[cfg.dtype]
    load = max(rows * kp * cfg.elem_bytes / LOAD_PER_SM, kp // cfg.tile_k * STEP)
    l2 = units * rows * kp * cfg.elem_bytes / L2  # every unit's operands out of L2
    # DRAM is only streamed at its rate while every SM pulls its share: scaled by the busy fraction of the waves
    dram = ((m + n) * k * cfg.elem_bytes + 2 * m * n) / DRAM * (waves * sms / units)
    t = max(waves * max(mma, load), dram, l2)
    if parts > 1:  # the partials' reductions, as the TMA-reduced split-K measured them (below)
        t += parts * min(m, -(-m // cfg.tile_m) * cfg.tile_m) * n * 4 / RED + 10 * m * n / DRAM + SPLIT_FIXED
    return t


def choose(m: int, n: int, k: int, dtype: str, sms: int) -> GemmConfig:
    """The model's configuration for M x N x K. Among the candidates within TIE of the best estimate (a
    DRAM-bound shape ties many tilings, and the model is no closer than that), the one of fewest waves, then
    one whose tiles divide N, then (among those) no split-K tile narrower than SPLIT_MIN_N (both measured, not
    modelled: see SPLIT_MIN_N), then not stream-K (unmeasured: only where it beats the rest by TIE), then of
    fewest split-K parts (each adds its partial tile's reduction), then keeping more multiprocessors busy
    (each pulls its share of DRAM), then the fewer rows (less of the tile past M), then the wider tile."""
    if -(-m // 128) * -(-n // 256) >= sms:  # every SM busy with 128 x 256 tiles: the suite's kernel
        return GemmConfig(dtype, tile_m=BIG.tile_m, tile_n=BIG.tile_n)
    timed = [(estimate(c, m, n, k, sms), c) for c in candidates(m, n, k, dtype)]
    best = min(t for t, _ in timed)
    near = [c for t, c in timed if t <= best * (1 + TIE)]
    return min(near, key=lambda c: (-(-c.units(m, n) // sms) if not c.stream_k else 1, n % c.tile_n != 0,
                                    c.split_k > 1 and c.tile_n < SPLIT_MIN_N and n % c.tile_n == 0, c.stream_k,
                                    c.split_k, -min(c.units(m, n), sms), c.tile_m, -c.tile_n))


def shape_class(m: int, n: int, k: int) -> tuple[int, int, int]:
    """What autotune keys its winners on: M rounded up to a power of two (decode batches share one), N and K
    to a multiple of 256 (below 256: exact)."""
    def up(x: int, q: int) -> int:
        return x if x < q else -(-x // q) * q
    return (1 << max(0, (m - 1).bit_length()), up(n, 256), up(k, 256))
