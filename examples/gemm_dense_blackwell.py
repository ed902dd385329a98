#!/usr/bin/env python3
"""The persistent dense Blackwell GEMM (tcgen05, sm_100a) in the tile dialect: bf16 / fp16 (kind::f16), fp8
e4m3 / e5m2 (kind::f8f6f4) and tf32 (kind::tf32), on one CTA or a CTA pair (cta_group::2), with split-K.
docs/gemm-walkthrough.md §12 goes through it.

    python examples/gemm_dense_blackwell.py --dtype bf16 -M 300 -N 264 -K 416 --ctas 2               # tile IR
    python examples/gemm_dense_blackwell.py --dtype e4m3 -M 300 -N 264 -K 416 --ctas 2 --run sim     # vs MMA-Sim
    python examples/gemm_dense_blackwell.py --dtype tf32 -M 300 -N 264 -K 200 --cta-group 2 --run sim
    python examples/gemm_dense_blackwell.py --dtype f16 -M 200 -N 136 -K 1000 --split-k 3 --run sim
    python examples/gemm_dense_blackwell.py --dtype bf16 -M 300 -N 264 -K 416 --ptx

D[M, N] = A[M, K] . B[N, K]^T in bf16, A and B K-major ("TN"). The schedule is the persistent block-scaled
kernel's (examples/gemm_persistent_blackwell.py, docs/gemm-walkthrough.md §11) without the scale factors:
256 threads (thread 0 = TMA producer, thread 32 = MMA issuer, warps 4-7 = epilogue), grid = min(CTAs, work
units), CTA (or pair) u taking units u, u + units, ... in tile.raster.grouped order; the ring's K step counts on
across its units; two accumulators in tensor memory (acc[i % 2] for the CTA's i-th unit), so one unit's epilogue
overlaps the next one's MMAs. With no scale factors in tensor memory the two accumulators may take all 512
columns: tile_n up to 256.
  * --cta-group 2: CTA pairs (clusters of 2) walk 256 x tile_n tiles; each CTA stages its 128 rows of A and
    tile_n / 2 rows of B, all loads completing on the even CTA's `full`, whose thread 32 issues the M = 256
    cta_group::2 MMAs and commits to both CTAs' barriers (multicast); both CTAs' epilogues release the
    accumulators on the even CTA's acc_empty (count 256).
  * --split-k S: a work unit is (tile, split): split s of a tile takes K tiles [s q, (s + 1) q) (q = ceil(K tiles
    / S)). Every split but the last writes its fp32 partial tile to a workspace; they are added in split order,
    each split waiting for its predecessor's flag (docs/gemm-walkthrough.md §12), so that D is deterministic:
    bf16(((p_0 + p_1) + p_2) ...), where p_s is the MMA chain over the split's K.
  * partial tiles: TMA loads past M, N or K fill zeros, the TMA store of D is clipped at D's edges. Alignment
    (TMA's 16-byte global strides): rows of A and B of a 16-byte multiple (K a multiple of 16 / element bytes), N
    a multiple of 8.
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
from gemm_blockscaled import EPI_COLS, SMEM_LIMIT, _bar_t, _buf, _set_up, _store_staging, _swizzled  # noqa: E402
from gemm_reference import DENSE_FORMATS, add_check_options, module_text, run_check  # noqa: E402

from tile_mlir.dialect import builders as tb  # noqa: E402
from tile_mlir.mlir import arith, ir  # noqa: E402

B200_SMS = 148
TMEM_COLUMNS = 512


@dataclass(frozen=True)
class DenseBlackwellConfig:
    """One kernel: the problem, the tiling and the schedule."""
    dtype: str  # bf16 | f16 | e4m3 | e5m2 | tf32 (A and B alike)
    m: int
    n: int
    k: int
    ctas: int = B200_SMS  # at most this many CTAs (one per multiprocessor)
    group_m: int = 8  # tile rows per raster group
    stages: int = 0  # 0: as many as fit, at most 6
    tile_n: int = 128
    cta_group: int = 1  # 2: CTA pairs (clusters of 2) on 256 x tile_n tiles
    split_k: int = 1  # K splits per tile (their partial tiles added in split order)

    def __post_init__(self):
        if self.dtype not in DENSE_FORMATS:
            raise ValueError(f"dtype must be one of {', '.join(DENSE_FORMATS)}, got {self.dtype!r}")
        if min(self.m, self.n, self.k, self.ctas, self.group_m, self.split_k) < 1:
            raise ValueError("M, N, K, ctas, group_m and split_k must be positive")
        if self.tile_n % 64 or not 64 <= self.tile_n <= 256:
            raise ValueError(f"tile_n={self.tile_n}: 64, 128, 192 or 256 (whole 64-column epilogue slices; two "
                             f"accumulators in tensor memory's {TMEM_COLUMNS} columns)")
        if self.cta_group not in (1, 2):
            raise ValueError(f"cta_group={self.cta_group}: 1, or 2 (CTA pairs)")
        if self.ctas < self.cta_group:
            raise ValueError(f"ctas={self.ctas}: a CTA pair needs at least 2 CTAs")
        if (self.k * self.fmt.elem_bits // 8) % 16 or self.n % 8:
            raise ValueError(f"K={self.k}, N={self.n}: rows of A and B of a 16-byte multiple (K a multiple of "
                             f"{128 // self.fmt.elem_bits}) and N a multiple of 8 (TMA's 16-byte global strides)")
        if self.split_k > self.k_tiles:
            raise ValueError(f"split_k={self.split_k}: at most the {self.k_tiles} K tiles of K={self.k} (every "
                             "split takes at least one)")
        if (self.split_k - 1) * self.k_per_split >= self.k_tiles:
            raise ValueError(f"split_k={self.split_k}: {self.k_tiles} K tiles in splits of {self.k_per_split} leave "
                             "the last split empty; use fewer splits")
        if self.m < self.tile_m or self.n < self.tile_n or self.k < self.tile_k:
            raise ValueError(f"M={self.m}, N={self.n}, K={self.k}: at least one whole {self.tile_m} x {self.tile_n} x "
                             f"{self.tile_k} tile (a TMA box stays within its tensor)")
        if not self.stages:
            object.__setattr__(self, "stages", next((s for s in range(6, 1, -1) if self._smem(s) <= SMEM_LIMIT), 2))
        if self.stages < 2:
            raise ValueError("the ring needs at least 2 stages")
        if self.smem_bytes > SMEM_LIMIT:
            raise ValueError(f"{self.stages} stages need {self.smem_bytes} bytes of shared memory, more than a CTA's "
                             f"{SMEM_LIMIT}: use fewer stages")

    @property
    def fmt(self):
        return DENSE_FORMATS[self.dtype]

    tile_m = 128  # rows of A and D a CTA holds (a pair's MMA: 256)

    @property
    def tile_k(self) -> int:
        """One 128-byte swizzle row of K per stage."""
        return 1024 // self.fmt.elem_bits

    @property
    def k_tiles(self) -> int:
        return -(-self.k // self.tile_k)

    @property
    def k_per_split(self) -> int:
        """K tiles of one split (the last split's past K are TMA's zeros: every unit runs as many K steps)."""
        return -(-self.k_tiles // self.split_k)

    @property
    def tiles(self) -> tuple[int, int]:
        """Output tiles (rows, columns): 128 x tile_n, or 256 x tile_n per CTA pair."""
        return -(-self.m // (self.tile_m * self.cta_group)), -(-self.n // self.tile_n)

    @property
    def work(self) -> int:
        """Work units: (tile, split) pairs."""
        return self.tiles[0] * self.tiles[1] * self.split_k

    @property
    def units(self) -> int:
        """Unit walkers: CTAs, or CTA pairs; each takes units w, w + units, ..."""
        return min(self.ctas // self.cta_group, self.work)

    @property
    def grid(self) -> tuple[int, int, int]:
        return (self.units * self.cta_group, 1, 1)

    @property
    def tmem_cols(self) -> int:
        """Two accumulators of tile_n f32 columns, rounded up to a power of two (tcgen05.alloc)."""
        return 1 << max(5, (2 * self.tile_n - 1).bit_length())

    @property
    def stage_bytes(self) -> int:
        """A CTA's TMA bytes a stage: its 128 rows of A and its rows of B, 128 bytes of K each."""
        return (self.tile_m + self.tile_n // self.cta_group) * 128

    def _smem(self, stages: int) -> int:
        """The ring, the epilogue's bf16 tile of D, barriers, alignment padding (an upper bound)."""
        return stages * self.stage_bytes + self.tile_m * self.tile_n * 2 + 8 * (2 * stages + 6) + 4 + 1024

    @property
    def smem_bytes(self) -> int:
        return self._smem(self.stages)

    @property
    def name(self) -> str:
        return (f"gemm_dense_{self.dtype}_{self.m}x{self.n}x{self.k}" + ("_pair" if self.cta_group == 2 else "")
                + (f"_split{self.split_k}" if self.split_k > 1 else ""))


# ------------------------------------------------------------------------------------------ building
def build(cfg: DenseBlackwellConfig, context=None):
    """The tile IR module of cfg's kernel (in `context`, default a new tile_mlir context)."""
    from tile_mlir.frontend.context import make_context

    ctx = context or make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        _kernel(module, cfg)
    return module


def _cmp(pred: str, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def _kernel(module, cfg: DenseBlackwellConfig) -> None:
    elem = cfg.fmt.elem_mlir
    bm, bn, bk, st, cg = cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.stages, cfg.cta_group
    bnc = bn // cg  # rows of B a CTA stages (a pair's MMA reads the even CTA's first, then the odd's)
    kq = cfg.k_per_split
    params = {"A": _buf("global", (cfg.m, cfg.k), elem), "B": _buf("global", (cfg.n, cfg.k), elem),
              "D": _buf("global", (cfg.m, cfg.n), "bf16")}
    acc_t = _buf("tmem", (bm, bn), "f32", f"S[({bm}, {bn}) : (1@TLane, 1@TCol)]")
    bar_t = _bar_t()
    cluster = (2, 1, 1) if cg == 2 else None
    with tb.kernel(module, cfg.name, params, block=(256, 1, 1), grid=cfg.grid, cluster=cluster) as (kern, args):
        A, B, D = args
        c = tb.Constants(kern.regions[0].blocks[0])
        tb.tensor_map(A, (bm, bk), swizzle="128B")
        tb.tensor_map(B, (bnc, bk), swizzle="128B")
        tb.tensor_map(D, (bm, EPI_COLS), swizzle="128B")
        sa = [tb.alloc_shared(_swizzled(bm, bk, elem)) for _ in range(st)]
        sb = [tb.alloc_shared(_swizzled(bnc, bk, elem)) for _ in range(st)]
        sd = [tb.alloc_shared(_swizzled(bm, EPI_COLS, "bf16")) for _ in range(bn // EPI_COLS)]
        full = [tb.alloc_shared(bar_t) for _ in range(st)]
        empty = [tb.alloc_shared(bar_t) for _ in range(st)]
        acc_full = [tb.alloc_shared(bar_t) for _ in range(2)]
        acc_empty = [tb.alloc_shared(bar_t) for _ in range(2)]
        free, written = tb.alloc_shared(bar_t), tb.alloc_shared(bar_t)  # the staging tile sd's two barriers
        slot = tb.alloc_shared(_buf("shared", (1,), "i32"))
        tid, warp = tb.thread_id(), tb.warp_id()
        is_t0 = _cmp("eq", tid, c(0))
        is_mma_warp = _cmp("eq", warp, c(1))
        rank = tb.cta_rank() if cg == 2 else c(0)  # (a pair's even CTA, rank 0, arms `full` and issues the MMAs)
        is_leader = _cmp("eq", rank, c(0)) if cg == 2 else None
        # 1. set-up (as the block-scaled kernel's): full[s] = producer arrive + bytes; empty[s], acc_full[b] =
        #    tcgen05.commit of the MMA thread (a pair's: multicast to both CTAs); acc_empty[b] = the arrives of
        #    the 128 epilogue threads (a pair's: of both CTAs, on the even CTA's barrier); sd's `free` (the
        #    epilogue's leader: the last TMA store has read sd) and `written` (every epilogue thread)
        _set_up(is_mma_warp, is_t0, slot, cfg.tmem_cols, cg,
                [(b, 1) for b in full + empty + acc_full] + [(b, 128 * cg) for b in acc_empty]
                + [(free, 1), (written, 128)])
        acc = [tb.tmem_buffer(slot, acc_t, col_offset=b * bn) for b in range(2)]

        def ring(index, bufs):
            return tb.ring_stage(index, bufs, result_type=bufs[0].type)

        stage = lambda g: arith.remui(g, c(st))  # noqa: E731
        parity = lambda g: arith.divui(g, c(st))  # noqa: E731  (wait_parity reads bit 0)
        walker = arith.divui(tb.block_id("x"), c(cg))  # the CTA, or the CTA's pair
        n_work, walkers = c(cfg.work), c(cfg.units)

        def units():
            """The CTA's unit loop: yields (its count i of the walker's units, the tile's (row, col) block, the
            split) inside it. Units are split-minor: the splits of a tile are consecutive."""
            with tb.loop(walker, n_work, walkers) as unit:
                it = arith.divui(arith.subi(unit, walker), walkers)
                tile, split = (arith.divui(unit, c(cfg.split_k)), arith.remui(unit, c(cfg.split_k))) \
                    if cfg.split_k > 1 else (unit, c(0))
                coords = tb.raster_grouped(tile, c(cfg.tiles[0]), c(cfg.tiles[1]), cfg.group_m)
                yield it, coords.row, coords.col, split

        def k_steps(it):
            """The unit's K loop: yields (kt, the ring's step g) inside it."""
            with tb.loop(c(0), c(kq), c(1)) as kt:
                yield kt, arith.addi(arith.muli(it, c(kq)), kt)

        # a pair's loads all complete on the even CTA's `full` (docs/tma.md §8), which counts both CTAs' bytes
        tma_attrs = {"cta_group": 2, "barrier_cta": "pair_leader"} if cg == 2 else {}
        with tb.when(is_t0):
            # 2. producer: K step g into stage g % S once the MMAs that read its last use are done; a CTA of a pair
            #    loads its 128 rows of A and its half of B's rows
            for it, mb, nb, split in units():
                m0 = arith.muli(arith.addi(arith.muli(mb, c(cg)), rank), c(bm))
                row0_b = arith.addi(arith.muli(nb, c(bn)), arith.muli(rank, c(bnc)))
                kt0 = arith.muli(split, c(kq))
                for kt, g in k_steps(it):
                    s = stage(g)
                    tb.mbarrier_wait_parity(ring(s, empty), arith.xori(parity(g), c(1)))
                    bar = ring(s, full)
                    if cg == 1:
                        tb.mbarrier_arrive_expect_tx(bar, cfg.stage_bytes)
                    else:
                        with tb.when(is_leader):
                            tb.mbarrier_arrive_expect_tx(bar, 2 * cfg.stage_bytes)
                    k0 = arith.muli(arith.addi(kt0, kt), c(bk))
                    for dst, glob, offs, box in ((sa, A, (m0, k0), (bm, bk)), (sb, B, (row0_b, k0), (bnc, bk))):
                        src = tb.subview(glob, list(offs), static_offsets=[-1, -1], sizes=list(box))
                        tb.copy_async(ring(s, dst), src, bar, **tma_attrs)
        mask = 3 if cg == 2 else None  # a pair's commits reach both CTAs' barriers
        is_mma_thread = _cmp("eq", tid, c(32))
        with tb.when(arith.andi(is_mma_thread, is_leader) if cg == 2 else is_mma_thread):
            # 3. MMA issuer: unit i into acc[i % 2] once the epilogue has read that accumulator's last unit; per K
            #    step the stage's MMAs and a commit freeing the stage; after the last a commit to acc_full[i % 2]
            for it, _, _, _ in units():
                b = arith.andi(it, c(1))
                tb.mbarrier_wait_parity(ring(b, acc_empty), arith.xori(arith.divui(it, c(2)), c(1)))
                d = ring(b, acc)
                for kt, g in k_steps(it):
                    s = stage(g)
                    tb.mbarrier_wait_parity(ring(s, full), parity(g))
                    tb.gemm_async(d, ring(s, sa), ring(s, sb), _cmp("ugt", kt, c(0)), cta_group=cg)
                    tb.commit(ring(s, empty), cg, mask)
                tb.commit(ring(b, acc_full), cg, mask)
        with tb.when(_cmp("uge", warp, c(4))):
            _epilogue(cfg, c, units, ring, tid, rank, acc, acc_full, acc_empty, sd, free, written, D)
        tb.fence("tcgen05_before_sync")
        tb.barrier()
        if cg == 2:  # neither CTA frees tensor memory or exits while its peer may still signal it
            tb.barrier("cluster")
        with tb.when(is_mma_warp):  # every MMA completed (the epilogue saw each unit's acc_full)
            tb.fence("tcgen05_after_sync")
            tb.tmem_relinquish(cg)
            tb.tmem_dealloc(slot, cfg.tmem_cols, cg)
        tb.ret()


def _epilogue(cfg, c, units, ring, tid, rank, acc, acc_full, acc_empty, sd, free, written, D):
    """Warps 4-7 of each CTA (warp w reads lane quarter w % 4: rows 32 (w - 4) ..), on its 128 rows, as the
    block-scaled kernel's (§11): per unit wait acc_full, tcgen05.ld in slices of EPI_COLS columns, bf16, into
    the staging tile sd; arrive acc_empty (a pair's on the even CTA's barrier); the leader stores sd with TMA
    (clipped at D's edges). sd is rewritten only once the leader has seen the last store's reads done."""
    bm, bn = cfg.tile_m, cfg.tile_n
    regs_layout = f"S[(4, 32, {EPI_COLS}) : (1@warpid, 1@laneid, 1@reg)] + O[4@warpid]"
    leader = _cmp("eq", tid, c(128))
    racc = tb.alloc_reg(_buf("reg", (bm, EPI_COLS), "f32", regs_layout))
    rout = tb.alloc_reg(_buf("reg", (bm, EPI_COLS), "bf16", regs_layout))
    for it, mb, nb, split in units():
        b = arith.andi(it, c(1))
        tb.mbarrier_wait_parity(ring(b, acc_full), arith.divui(it, c(2)))
        tb.fence("tcgen05_after_sync")
        with tb.when(leader):
            tb.bulk_wait(0, kind="read")
            tb.mbarrier_arrive(free)
        tb.mbarrier_wait_parity(free, it)
        src = ring(b, acc)
        for c0 in range(0, bn, EPI_COLS):  # column slices: 64 registers a thread at a time
            tb.copy_async(racc, src, scope="warpgroup", src_region=[(0, bm), (c0, c0 + EPI_COLS)])
            tb.convert(rout, racc, "rn")
            tb.copy(sd[c0 // EPI_COLS], rout, scope="warpgroup")
        tb.fence("tcgen05_before_sync")  # (the tcgen05.ld waits come before the arrive)
        if cfg.cta_group == 2:  # (mapa + a .shared::cluster arrive, also from the even CTA itself)
            tb.mbarrier_arrive(ring(b, acc_empty), c(0))
        else:
            tb.mbarrier_arrive(ring(b, acc_empty))
        tb.fence("proxy_async")  # generic-proxy stores that the copy engine reads
        tb.mbarrier_arrive(written)
        with tb.when(leader):
            tb.mbarrier_wait_parity(written, it)
            m0 = arith.muli(arith.addi(arith.muli(mb, c(cfg.cta_group)), rank), c(bm))
            _store_staging(D, sd, m0, arith.muli(nb, c(bn)), bm, c)
    with tb.when(leader):  # the last store reads shared memory: the CTA stays until it has
        tb.bulk_wait(0, kind="all")


# ------------------------------------------------------------------------------------------ checking
def operands(cfg: DenseBlackwellConfig, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Random A (M x K) and B (N x K) of cfg's format (gemm_reference.random_dense_format)."""
    from gemm_reference import random_dense_format
    return random_dense_format(cfg.fmt, cfg.m, cfg.n, cfg.k, seed=seed)


def padded(cfg: DenseBlackwellConfig, x: np.ndarray) -> np.ndarray:
    """x over K padded with zeros to the K the kernel's units run (TMA's fill: a zero product adds nothing, but
    the chain keeps its steps)."""
    kp = cfg.split_k * cfg.k_per_split * cfg.tile_k
    return np.pad(x, ((0, 0), (0, kp - x.shape[1])))


def split_chains(cfg: DenseBlackwellConfig, a, b, chain):
    """The splits' partial tiles: `chain(a_s, b_s)` (fp32 D of one MMA chain) over each split's K."""
    a, b = padded(cfg, a), padded(cfg, b)
    w = cfg.k_per_split * cfg.tile_k
    return [chain(a[:, s * w:(s + 1) * w], b[:, s * w:(s + 1) * w]) for s in range(cfg.split_k)]


def reduce_splits(parts) -> np.ndarray:
    """The kernel's fix-up: the partial tiles added in split order in fp32 (round to nearest even)."""
    d = parts[0]
    for p in parts[1:]:
        d = (d + p).astype(np.float32)
    return d


def expected(cfg: DenseBlackwellConfig, a, b, mmasim: bool = True) -> np.ndarray:
    """bf16 D as the kernel computes it: per split MMA-Sim's Blackwell model of its MMA chain (or, with
    mmasim False, tile-sim's exact formulation of it: seconds where MMA-Sim takes minutes), the partial tiles
    added in split order."""
    import gemm_reference as ref
    chain = (lambda x, y: ref.mmasim_dense(x, y, cfg.fmt)) if mmasim else \
        (lambda x, y: ref.fast_dense(x, y, cfg.fmt, progress=False))
    return ref.to_bf16(reduce_splits(split_chains(cfg, a, b, chain)))


def run(cfg: DenseBlackwellConfig, seed: int = 0, backend: str = "sim"):
    """(D, (A, B)) of cfg's kernel on random operands through tile_mlir.jit."""
    import tile_mlir

    a, b = operands(cfg, seed)
    d = np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16)
    tile_mlir.jit(build(cfg), arch="sm_100a", backend=backend)(a, b, d)
    return d, (a, b)


def main(argv=None) -> int:
    from example_cli import MAX_EXTENT, int_in, run_main

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=sorted(DENSE_FORMATS), default="bf16")
    p.add_argument("-M", type=int_in(1, MAX_EXTENT), default=300)
    p.add_argument("-N", type=int_in(1, MAX_EXTENT), default=264)
    p.add_argument("-K", type=int_in(1, MAX_EXTENT), default=416)
    p.add_argument("--ctas", type=int_in(1, 65535), default=B200_SMS, help="at most this many CTAs (the GPU's SMs)")
    p.add_argument("--group-m", type=int_in(1, 65536), default=8)
    p.add_argument("--stages", type=int_in(0, 64), default=0, help="0: as many as fit, at most 6")
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
        cfg = DenseBlackwellConfig(args.dtype, args.M, args.N, args.K, ctas=args.ctas, group_m=args.group_m,
                                   stages=args.stages, tile_n=args.tile_n, cta_group=args.cta_group,
                                   split_k=args.split_k)
    except ValueError as e:
        p.error(str(e))
    label = f"{cfg.name} ({cfg.grid[0]} CTAs, {cfg.work} units) on {args.run}"
    if args.run and cfg.split_k == 1:
        d, (a, b) = run(cfg, backend=args.run)
        return run_check(label, d, (padded(cfg, a), padded(cfg, b)), cfg.fmt, args)
    if args.run:  # split-K: the model per split, added in split order
        import gemm_reference as ref
        d, (a, b) = run(cfg, backend=args.run)
        want = expected(cfg, a, b, mmasim=args.mmasim_full)
        return ref.report_bits(label, d, want)
    print(module_text(build(cfg), "sm_100a", cfg.name, args.ptx))
    return 0


if __name__ == "__main__":
    sys.exit(main())
