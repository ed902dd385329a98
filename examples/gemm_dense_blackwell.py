#!/usr/bin/env python3
"""The persistent dense Blackwell GEMM (tcgen05, sm_100a) in the tile dialect: bf16 / fp16 (kind::f16), fp8
e4m3 / e5m2 (kind::f8f6f4) and tf32 (kind::tf32), on one CTA or a CTA pair (cta_group::2), with split-K.
docs/gemm-walkthrough.md §12 goes through it.

    python examples/gemm_dense_blackwell.py --dtype bf16 -M 300 -N 264 -K 416 --ctas 2               # tile IR
    python examples/gemm_dense_blackwell.py --dtype e4m3 -M 300 -N 264 -K 416 --ctas 2 --run sim     # vs MMA-Sim
    python examples/gemm_dense_blackwell.py --dtype tf32 -M 300 -N 264 -K 200 --cta-group 2 --run sim
    python examples/gemm_dense_blackwell.py --dtype f16 -M 200 -N 136 -K 1000 --split-k 3 --run sim
    python examples/gemm_dense_blackwell.py --dtype bf16 -M 300 -N 264 -K 416 --ptx

D[M, N] = A[M, K] . B[N, K]^T in bf16, A and B K-major ("TN"). The kernel is the library's
(tile_mlir.gemm.blackwell.build: one kernel per BlackwellConfig, sizes at run time, the grid chosen at launch);
this script runs it on a problem and checks it. Its schedule is the persistent block-scaled kernel's
(examples/gemm_persistent_blackwell.py, docs/gemm-walkthrough.md §11) without the scale factors: 256 threads
(thread 0 = TMA producer, thread 32 = MMA issuer, warps 4-7 = epilogue), grid = min(CTAs, work units), CTA (or
pair) u taking units u, u + units, ... in tile.raster.grouped order; the ring's K step counts on across its
units; two accumulators in tensor memory, so one unit's epilogue overlaps the next one's MMAs. With no scale
factors in tensor memory the two accumulators may take all 512 columns: tile_n up to 256.
  * --cta-group 2: CTA pairs (clusters of 2) walk 256 x tile_n tiles; each CTA stages its 128 rows of A and
    tile_n / 2 rows of B, all loads completing on the even CTA's `full`, whose thread 32 issues the M = 256
    cta_group::2 MMAs and commits to both CTAs' barriers (multicast); both CTAs' epilogues release the
    accumulators on the even CTA's acc_empty (count 256).
  * --split-k S: a unit is (tile, split), split s taking K tiles [s q, (s + 1) q) (q = ceil(K tiles / S)); each
    unit's fp32 partial tile is added into a zeroed fp32 workspace by TMA reductions, converted to bf16 after.
    On tile-sim the reductions of a tile run in the order of its units' walkers (clusters run one after
    another), which the check's model follows (reduce_splits).
  * partial tiles: TMA loads past M, N or K fill zeros, the TMA store of D is clipped at D's edges. Alignment
    (TMA's 16-byte global strides): rows of A and B of a 16-byte multiple, N a multiple of 8.
Only the builder's own integers reach the IR (no user strings).
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from gemm_reference import DENSE_FORMATS, add_check_options, module_text  # noqa: E402

from tile_mlir.gemm.blackwell import build  # noqa: E402
from tile_mlir.gemm.blackwell_config import BlackwellConfig  # noqa: E402

B200_SMS = 148


@dataclass(frozen=True)
class DenseProblem:
    """One run: the kernel's configuration (tile_mlir.gemm.blackwell_config.BlackwellConfig: tiling and schedule,
    compiled once), the sizes it is launched with and the CTAs it may take."""
    cfg: BlackwellConfig
    m: int
    n: int
    k: int
    ctas: int = B200_SMS  # at most this many CTAs (one per multiprocessor)

    def __post_init__(self):
        if self.ctas < self.cfg.cta_group:
            raise ValueError(f"ctas={self.ctas}: a CTA pair needs at least 2 CTAs")
        self.cfg.check(self.m, self.n, self.k, self.grid[0])

    @property
    def dtype(self) -> str:
        return self.cfg.dtype

    @property
    def fmt(self):
        return DENSE_FORMATS[self.cfg.dtype]

    @property
    def tile_k(self) -> int:
        return self.cfg.tile_k

    @property
    def k_tiles(self) -> int:
        return -(-self.k // self.cfg.tile_k)

    @property
    def k_per_split(self) -> int:
        return self.cfg.k_per_split(self.k)

    @property
    def split_k(self) -> int:
        return self.cfg.split_k

    @property
    def tiles(self) -> tuple[int, int]:
        return self.cfg.tiles(self.m, self.n)

    @property
    def work(self) -> int:
        return self.cfg.units(self.m, self.n)

    @property
    def grid(self) -> tuple[int, int, int]:
        return (self.cfg.grid(self.m, self.n, self.ctas), 1, 1)

    @property
    def units(self) -> int:
        """Unit walkers: CTAs, or CTA pairs."""
        return self.grid[0] // self.cfg.cta_group

    @property
    def name(self) -> str:
        return f"{self.cfg.name} {self.m}x{self.n}x{self.k}"


# ------------------------------------------------------------------------------------------ checking
def operands(pb: DenseProblem, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Random A (M x K) and B (N x K) of the problem's format (gemm_reference.random_dense_format)."""
    from gemm_reference import random_dense_format
    return random_dense_format(pb.fmt, pb.m, pb.n, pb.k, seed=seed)


def padded(pb: DenseProblem, x: np.ndarray) -> np.ndarray:
    """x over K padded with zeros to the K the kernel's units run (TMA's fill: a zero product adds nothing, but
    the chain keeps its steps)."""
    kp = pb.split_k * pb.k_per_split * pb.tile_k
    return np.pad(x, ((0, 0), (0, kp - x.shape[1])))


def split_chains(pb: DenseProblem, a, b, chain):
    """The splits' partial tiles: `chain(a_s, b_s)` (fp32 D of one MMA chain) over each split's K."""
    a, b = padded(pb, a), padded(pb, b)
    w = pb.k_per_split * pb.tile_k
    return [chain(a[:, s * w:(s + 1) * w], b[:, s * w:(s + 1) * w]) for s in range(pb.split_k)]


def raster_grouped(tile: int, tiles_m: int, tiles_n: int, group_m: int) -> tuple[int, int]:
    """tile.raster.grouped's (row, col) of a linear tile index: group_m tile rows at a time, down each column of
    the group, the last group shorter (docs/gemm-walkthrough.md §10)."""
    first = tile // (group_m * tiles_n) * group_m
    rows = min(tiles_m - first, group_m)
    inside = tile % (group_m * tiles_n)
    return first + inside % rows, inside // rows


def reduce_splits(pb: DenseProblem, parts) -> np.ndarray:
    """The fp32 workspace after the kernel: zero, then each tile's split partials added (TMA reductions,
    round to nearest even) in the order tile-sim runs them: its clusters one after another, each walker's units
    in turn, so by (walker, iteration) of unit u = split * tiles + tile. (On a GPU the order of a tile's
    reductions is the order they reach L2: with 2 splits the sum is the same either way, with more it may
    differ.)"""
    if pb.split_k == 1:
        return parts[0]
    if pb.cfg.split_reduce == "fixup":  # the kernel's fix-up: the tile's last unit adds the parts in part order
        w = parts[0]
        for p in parts[1:]:
            w = (w + p).astype(np.float32)
        return w
    tm, tn = pb.tiles
    tiles, walkers = tm * tn, pb.units
    rows, cols = pb.cfg.tile_m * pb.cfg.cta_group, pb.cfg.tile_n
    w = np.zeros_like(parts[0])
    for t in range(tiles):
        r, c = raster_grouped(t, tm, tn, pb.cfg.group_m)
        win = np.s_[r * rows:(r + 1) * rows, c * cols:(c + 1) * cols]
        for s in sorted(range(pb.split_k), key=lambda s: ((s * tiles + t) % walkers, (s * tiles + t) // walkers)):
            w[win] = (w[win] + parts[s][win]).astype(np.float32)
    return w


def expected(pb: DenseProblem, a, b, mmasim: bool = True) -> np.ndarray:
    """bf16 D as the kernel computes it: per split MMA-Sim's Blackwell model of its MMA chain (or, with
    mmasim False, tile-sim's exact formulation of it: seconds where MMA-Sim takes minutes), the partial tiles
    added in split order."""
    import gemm_reference as ref
    chain = (lambda x, y: ref.mmasim_dense(x, y, pb.fmt)) if mmasim else \
        (lambda x, y: ref.fast_dense(x, y, pb.fmt, progress=False))
    if pb.cfg.stream_k:
        return ref.to_bf16(stream_k_sum(pb, a, b, chain))
    return ref.to_bf16(reduce_splits(pb, split_chains(pb, a, b, chain)))


def stream_k_sum(pb: DenseProblem, a, b, chain) -> np.ndarray:
    """fp32 D of the stream-K kernel: the tiles' K steps (tile-major) in even ranges over the walkers (CTAs or
    pairs); each tile's segments, one chain per walker whose range meets it, added in K order into the first."""
    (m, k), n = a.shape, b.shape[0]
    tk, cfg = pb.tile_k, pb.cfg
    kt = -(-k // tk)
    a, b = (np.pad(x, ((0, 0), (0, kt * tk - k))) for x in (a, b))
    tm, tn = pb.tiles
    rows, cols = cfg.tile_m * cfg.cta_group, cfg.tile_n
    walkers, total = pb.grid[0] // cfg.cta_group, tm * tn * kt
    starts = [w * total // walkers for w in range(walkers + 1)]
    d = np.zeros((m, n), np.float32)
    for t in range(tm * tn):
        r, c = raster_grouped(t, tm, tn, cfg.group_m)
        win = np.s_[r * rows:(r + 1) * rows, c * cols:(c + 1) * cols]
        acc = None
        for w in range(walkers):
            lo, hi = max(starts[w], t * kt) - t * kt, min(starts[w + 1], (t + 1) * kt) - t * kt
            if hi > lo:
                part = chain(a[win[0], lo * tk:hi * tk], b[win[1], lo * tk:hi * tk])
                acc = part if acc is None else (acc + part).astype(np.float32)
        d[win] = acc
    return d


def check(pb: DenseProblem, d: np.ndarray, a, b, samples: int = 2, progress: bool = False):
    """(elements of bf16 D that differ from the exact model of the kernel's chains and reductions, elements of
    the splits' fp32 partials that differ from MMA-Sim's on `samples` sampled 128 x 8 tiles each, elements
    compared there). The exact model is tile-sim's integer formulation of MMA-Sim's arithmetic (seconds where
    MMA-Sim takes minutes); MMA-Sim itself checks it on the sampled tiles."""
    import gemm_reference as ref
    parts = split_chains(pb, a, b, lambda x, y: ref.fast_dense(x, y, pb.fmt, progress=progress))
    want = ref.to_bf16(reduce_splits(pb, parts))
    differ = int(np.count_nonzero(d.view(np.uint16) != want.view(np.uint16)))
    pa, pbb = padded(pb, a), padded(pb, b)
    w = pb.k_per_split * pb.tile_k
    bad = compared = 0
    for s, part in enumerate(parts):
        ks = slice(s * w, (s + 1) * w)
        _, bad32, n = ref.check_sampled(part, lambda r, c: ref.mmasim_dense(pa[r, ks], pbb[c, ks], pb.fmt), 128,
                                        samples, seed=s, progress=progress)
        bad, compared = bad + bad32, compared + n
    return differ, bad, compared


def kernel(cfg: BlackwellConfig, grid: int, backend: str = "sim"):
    """cfg's kernel compiled once (per process) and bound to launch `grid` CTAs."""
    import dataclasses

    import tile_mlir
    from tile_mlir.runtime.jit import JitKernel

    art = _ARTIFACTS.get(cfg)
    if art is None:
        art = _ARTIFACTS[cfg] = tile_mlir.compile(build(cfg), arch="sm_100a")
    return JitKernel(dataclasses.replace(art, grid=(grid, 1, 1)), backend)


_ARTIFACTS: dict = {}


def run(pb: DenseProblem, seed: int = 0, backend: str = "sim"):
    """(D, (A, B)) of the problem's kernel on random operands; split-K: the kernel reduces into a zeroed fp32
    workspace, converted to bf16 after (round to nearest even, as cvt.rn.bf16.f32)."""
    import gemm_reference as ref
    a, b = operands(pb, seed)
    out = np.zeros((pb.m, pb.n), np.float32 if pb.split_k > 1 else ml_dtypes.bfloat16)
    kernel(pb.cfg, pb.grid[0], backend)(a, b, out, pb.m, pb.n, pb.k)
    return (ref.to_bf16(out) if pb.split_k > 1 else out), (a, b)


def main(argv=None) -> int:
    from example_cli import MAX_EXTENT, int_in, run_main

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=sorted(DENSE_FORMATS), default="bf16")
    p.add_argument("-M", type=int_in(1, MAX_EXTENT), default=300)
    p.add_argument("-N", type=int_in(1, MAX_EXTENT), default=264)
    p.add_argument("-K", type=int_in(1, MAX_EXTENT), default=416)
    p.add_argument("--ctas", type=int_in(1, 65535), default=B200_SMS, help="at most this many CTAs (the GPU's SMs)")
    p.add_argument("--group-m", type=int_in(1, 65536), default=8)
    p.add_argument("--stages", type=int_in(0, 64), default=0, help="0: as many as fit")
    p.add_argument("--tile-n", type=int_in(1, 256), default=128)
    p.add_argument("--cta-group", type=int, choices=(1, 2), default=1, help="2 = CTA pairs issuing M = 256 MMAs")
    p.add_argument("--split-k", type=int_in(1, 64), default=1, help="K splits per tile")
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX instead of the tile IR")
    p.add_argument("--run", choices=("sim", "gpu"), help="run on random operands and compare D bit for bit with "
                   "the exact model of MMA-Sim's arithmetic, itself checked against MMA-Sim on sampled tiles")
    add_check_options(p)
    args = p.parse_args(argv)
    return run_main(p, lambda: _main(p, args))


def _main(p, args) -> int:
    try:
        cfg = BlackwellConfig(args.dtype, tile_n=args.tile_n, cta_group=args.cta_group, stages=args.stages,
                              group_m=args.group_m, split_k=args.split_k)
        pb = DenseProblem(cfg, args.M, args.N, args.K, ctas=args.ctas)
    except ValueError as e:
        p.error(str(e))
    if not args.run:
        print(module_text(build(cfg), "sm_100a", cfg.name, args.ptx))
        return 0
    label = f"{pb.name} ({pb.grid[0]} CTAs, {pb.work} units) on {args.run}"
    d, (a, b) = run(pb, backend=args.run)
    if args.mmasim_full:
        import gemm_reference as ref
        return ref.report_bits(label, d, expected(pb, a, b, mmasim=True))
    differ, bad, compared = check(pb, d, a, b, args.samples, progress=True)
    print(f"{label}: D {'==' if not differ else '!='} the exact model of MMA-Sim's arithmetic, bit for bit "
          f"({differ} of {d.size} differ); the model {'==' if not bad else '!='} MMA-Sim on sampled tiles of "
          f"{'each split' if pb.split_k > 1 else 'D'} in fp32 ({bad} of {compared} differ)")
    return 1 if differ or bad else 0


if __name__ == "__main__":
    sys.exit(main())
