#!/usr/bin/env python3
"""The persistent Hopper GEMM (sm_90a) in the tile dialect, built with the keyword builders: as many CTAs as
multiprocessors, each walking output tiles in grouped (L2-aware) order, its TMA ring running on across tiles.
docs/gemm-walkthrough.md §10 goes through it.

    python examples/gemm_persistent.py --dtype bf16 -M 256 -N 512 -K 640 --ctas 2           # tile IR
    python examples/gemm_persistent.py --dtype e4m3 -M 256 -N 512 -K 640 --ctas 2 --run sim # vs MMA-Sim
    python examples/gemm_persistent.py --dtype bf16 -M 200 -N 384 -K 600 --ctas 2 --tile-n 128 --run sim
    python examples/gemm_persistent.py --dtype bf16 -M 384 -N 512 -K 256 --ctas 4 --cluster-m 2 --run sim

D[M, N] = A[M, K] . B[N, K]^T in bf16, A and B K-major ("TN"), as examples/gemm_blockscaled.py's twin, whose
warp roles it keeps (384 threads: warpgroup 0 = producer, one thread issuing TMA loads into an S-stage ring;
warpgroups 1 and 2 = consumers, 64 rows of the 128 x 256 tile each, wgmma with the accumulator in registers).
What changes:
  * grid = min(CTAs, tiles) CTAs (--ctas: the GPU's multiprocessors, 132 on the H200); CTA b takes tiles
    b, b + grid, ... and maps each to its (row, column) by tile.raster.grouped: `group_m` tile rows at a time,
    down a column of the group, then the next column, so the tiles in flight share panels of A and B in L2;
  * the ring's K step g counts on across the CTA's tiles (g = i * k_tiles + kt for its i-th tile), so a step's
    stage g % S and parity (g / S) % 2 are SSA values: tile.ring.stage picks the stage's buffers and
    barriers, tile.mbarrier.wait_parity waits on the parity. The producer runs up to S steps ahead, into the
    next tile while the consumers convert and store this one;
  * K need not be a multiple of the K tile: the last stage's TMA box runs past K and TMA fills it with zeros
    (a zero product adds nothing);
  * the epilogue (--epilogue): "tma" writes each consumer's 64 rows to shared memory 64 columns at a time,
    alternating between two 128B-swizzled staging boxes (no bank conflicts), each stored by the warpgroup's
    leader with TMA, clipped at D's edges (so M and N need not be multiples of the tile), the warpgroup going on
    to the next tile while the copy engine writes (the default);
    "registers" stores the accumulator registers with tile.copy (whole tiles only). On the H200 tma is the
    faster at every shape of bench/gemm.py's suite but one within noise (docs/gemm-walkthrough.md §10);
  * --cluster-m 2: clusters of 2 CTAs on tiles (2p, n) and (2p + 1, n), each loading its A and half of the B
    tile for both by TMA multicast, releasing stages on both CTAs' barriers (docs/tma.md §9).
  * --schedule pingpong (tile_n at most 128): each consumer owns every other tile of the CTA, all its rows, its
    epilogue under the other's mainloop, the two taking turns on the ring through `order` barriers. Both
    options are bit for bit on tile-sim and on the H200 and neither is faster there (docs/gemm-walkthrough.md
    §10).
Only the builder's own integers reach the IR (no user strings).
This kernel is compiled for one shape; tile_mlir.gemm (examples/gemm.py, docs/gemm-library.md) is the same
schedule with the sizes as kernel parameters, its configuration chosen for the caller.
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

EPILOGUES = ("tma", "registers")
SCHEDULES = ("cooperative", "pingpong")
DENSE = {"bf16": ("bf16", 2, ml_dtypes.bfloat16), "e4m3": ("f8E4M3FN", 1, ml_dtypes.float8_e4m3fn)}
EPI_BOX = 64  # columns of a TMA-store staging box: one 128-byte swizzle row of bf16
SMEM_LIMIT = 232448  # bytes of shared memory a CTA may have on sm_90 (227 KiB)
H200_SMS = 132


@dataclass(frozen=True)
class PersistentConfig:
    """One kernel: the problem, the tiling and the schedule."""
    dtype: str  # bf16 | e4m3
    m: int
    n: int
    k: int
    ctas: int = H200_SMS  # at most this many CTAs (one per multiprocessor)
    group_m: int = 8  # tile rows per raster group
    stages: int = 0  # 0: as many as fit, at most 4 (4 with either epilogue at tile_n 256)
    tile_m: int = 128
    tile_n: int = 256
    epilogue: str = "tma"  # tma: registers -> shared -> TMA store (clipped); registers: st.global, whole tiles
    cluster_m: int = 1  # 2: clusters of 2 CTAs on tiles (2 p, n) and (2 p + 1, n), each multicasting half of B
    # cooperative: both consumers share each tile (64 rows each); pingpong: each consumer owns every other tile
    # of the CTA (all 128 rows) and its epilogue runs under the other's mainloop
    schedule: str = "cooperative"

    def __post_init__(self):
        if self.dtype not in DENSE:
            raise ValueError(f"dtype must be one of {', '.join(DENSE)}, got {self.dtype!r}")
        if min(self.m, self.n, self.k, self.ctas, self.group_m) < 1:
            raise ValueError("M, N, K, ctas and group_m must be positive")
        if self.tile_n % 8 or not 8 <= self.tile_n <= 256:
            raise ValueError(f"tile_n={self.tile_n}: wgmma N is 8..256 in steps of 8")
        if self.epilogue not in EPILOGUES:
            raise ValueError(f"epilogue must be one of {', '.join(EPILOGUES)}, got {self.epilogue!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, got {self.schedule!r}")
        if self.schedule == "pingpong" and (self.tile_n > 128 or self.cluster_m != 1 or self.epilogue != "tma"):
            raise ValueError("schedule pingpong: tile_n at most 128 (a consumer holds 128 x tile_n f32 "
                             "accumulators, tile_n registers a thread), cluster_m 1 and the TMA epilogue")
        if self.cluster_m not in (1, 2):
            raise ValueError(f"cluster_m must be 1 or 2, got {self.cluster_m}")
        if self.cluster_m == 2 and (self.epilogue != "tma" or self.ctas < 2 or self.tile_n % 16):
            raise ValueError("cluster_m=2: the TMA epilogue (a pair's second tile row may lie past M, its stores "
                             "clipped away), at least 2 CTAs, and tile_n a multiple of 16 (each CTA loads "
                             "tile_n / 2 rows of B, whole 8-row swizzle atoms)")
        if not self.stages:  # as many as fit, at most 4 (pingpong: 6, its stages are smaller)
            most = 6 if self.schedule == "pingpong" else 4
            object.__setattr__(self, "stages", next((st for st in range(most, 1, -1) if self._smem(st) <= SMEM_LIMIT),
                                                    2))
        if self.epilogue == "registers" and (self.m % self.tile_m or self.n % self.tile_n):
            raise ValueError(f"M={self.m}, N={self.n}: the register epilogue stores D unclipped, so whole "
                             f"{self.tile_m} x {self.tile_n} tiles only")
        if self.n % 8:  # (a tensor smaller than a tile is fine: TMA fills the box past its edges and clips stores)
            raise ValueError(f"N={self.n}: a multiple of 8 (rows of D of 16-byte multiples, TMA's global strides)")
        if (self.k * self.elem_bytes) % 16:
            raise ValueError(f"K={self.k}: rows of A and B of a 16-byte multiple (TMA's global strides)")
        if self.stages < 2 or self.smem_bytes > SMEM_LIMIT:
            raise ValueError(f"{self.stages} stages: at least 2, and at most {SMEM_LIMIT} bytes of shared memory "
                             f"(these need {self.smem_bytes})")

    @property
    def elem_bytes(self) -> int:
        return DENSE[self.dtype][1]

    @property
    def tile_k(self) -> int:
        """One 128-byte swizzle row of K per stage."""
        return 128 // self.elem_bytes

    @property
    def k_tiles(self) -> int:
        return -(-self.k // self.tile_k)

    @property
    def tiles(self) -> tuple[int, int]:
        return -(-self.m // self.tile_m), -(-self.n // self.tile_n)

    @property
    def units(self) -> tuple[int, int]:
        """The grid of work units a cluster takes: pairs of tile rows by tile columns with cluster_m 2."""
        return -(-self.tiles[0] // self.cluster_m), self.tiles[1]

    @property
    def grid(self) -> int:
        return self.cluster_m * min(self.ctas // self.cluster_m, self.units[0] * self.units[1])

    @property
    def stage_bytes(self) -> int:
        return (self.tile_m + self.tile_n) * self.tile_k * self.elem_bytes

    @property
    def smem_bytes(self) -> int:
        return self._smem(self.stages)

    @property
    def epi_cols(self) -> int:
        """Columns of D in one staging box of the TMA epilogue: 64 (128 bytes of bf16, one 128-byte swizzle
        row, so that a warp's stores of 8 rows hit 8 different bank groups), or the whole tile_n where that is
        not a multiple of 64 (unswizzled)."""
        return EPI_BOX if self.tile_n % EPI_BOX == 0 else self.tile_n

    @property
    def epi_rounds(self) -> int:
        """Staging boxes a consumer writes per 64 rows of D; it alternates between two boxes, so that it
        fills one while the copy engine reads the other."""
        return self.tile_n // self.epi_cols

    def _smem(self, stages: int) -> int:
        epi = 2 * 2 * 64 * self.epi_cols * 2 + 32 if self.epilogue == "tma" else 0  # (2 boxes a consumer, 4 barriers)
        order = 16 if self.schedule == "pingpong" else 0  # (the consumers' two order barriers)
        return stages * self.stage_bytes + epi + 16 * stages + order + 1024  # (+ barriers, alignment padding)

    @property
    def name(self) -> str:
        mc = "_mc2" if self.cluster_m == 2 else ""
        pp = "_pingpong" if self.schedule == "pingpong" else ""
        return f"gemm_persistent{mc}{pp}_{self.dtype}_{self.m}x{self.n}x{self.k}"


# ------------------------------------------------------------------------------------------ building
class _B:
    """The builders plus the i32 arithmetic and structured control flow the kernel body uses."""

    def __init__(self):
        from tile_mlir.dialect import builders as tb
        from tile_mlir.mlir import arith, ir, scf
        self.tb, self.arith, self.ir, self.scf = tb, arith, ir, scf
        self.i32 = ir.IntegerType.get_signless(32)

    def c(self, v: int):
        return self.arith.ConstantOp(self.i32, v).result

    def op(self, name: str, a, b):
        return getattr(self.arith, name)(a, b).result

    def cmp(self, pred: str, a, b):
        return self.arith.CmpIOp(getattr(self.arith.CmpIPredicate, pred), a, b).result

    def when(self, cond):
        b = self

        class _If:
            def __enter__(self):
                self.op = b.scf.IfOp(cond)
                self.ip = b.ir.InsertionPoint(self.op.then_block)
                self.ip.__enter__()

            def __exit__(self, *exc):
                b.scf.YieldOp([])
                self.ip.__exit__(*exc)
        return _If()

    def loop(self, lb, ub, step):
        """scf.for over i32 bounds; yields the induction variable."""
        b = self

        class _For:
            def __enter__(self):
                self.op = b.scf.ForOp(lb, ub, step)
                self.ip = b.ir.InsertionPoint(self.op.body)
                self.ip.__enter__()
                return self.op.induction_variable

            def __exit__(self, *exc):
                b.scf.YieldOp([])
                self.ip.__exit__(*exc)
        return _For()


def _acc_layout(n: int, warp0: int) -> str:
    """The wgmma m64nNk16 accumulator fragment of the warpgroup whose first warp is warp0 (as
    examples/gemm_blockscaled.py's twin: row = 16 w + l / 4 + 8 ((v >> 1) & 1), col = 8 (v / 4) + 2 (l % 4) +
    (v & 1))."""
    return f"S[(4, 2, 8, {n // 8}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)] + O[{warp0}@warpid]"


def build(cfg: PersistentConfig):
    """The tile IR module of cfg's kernel."""
    from tile_mlir.frontend.context import make_context

    from tile_mlir.mlir import ir

    ctx = make_context()
    with ctx, ir.Location.unknown(ctx):
        b = _B()
        module = b.ir.Module.create()
        _kernel(b, module, cfg)
    return module


def _kernel(b: _B, module, cfg: PersistentConfig) -> None:
    tb = b.tb
    elem, size, _ = DENSE[cfg.dtype]
    bm, bn, bk, st, kt_n = cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.stages, cfg.k_tiles
    a_t = tb.buffer_t("global", (cfg.m, cfg.k), elem)
    b_t = tb.buffer_t("global", (cfg.n, cfg.k), elem)
    d_t = tb.buffer_t("global", (cfg.m, cfg.n), "bf16")
    swz = lambda rows: tb.buffer_t("shared", (rows, bk), elem, f"Swizzle<128B> o S[({rows}, {bk}) : ({bk}, 1)]",  # noqa: E731
                                   align=1024)
    sa_t, sb_t, bar_t = swz(bm), swz(bn), tb.buffer_t("shared", (1,), "i64")
    params = {"A": a_t, "B": b_t, "D": d_t}
    cm = cfg.cluster_m
    bn_load = bn // cm  # the rows of B a CTA loads (with cluster_m 2: its half, multicast to the pair)
    cluster = (cm, 1, 1) if cm > 1 else None
    with tb.kernel(module, cfg.name, params, block=(384, 1, 1), grid=(cfg.grid, 1, 1),
                   cluster=cluster) as (_, (a, bb, d)):
        tb.tensor_map(a, [bm, bk], swizzle="128B")  # (copy_async finds a window's map through its source)
        tb.tensor_map(bb, [bn_load, bk], swizzle="128B")
        epi = None
        if cfg.epilogue == "tma":  # per consumer: two staging boxes of its 64 rows of D, and two barriers
            ec = cfg.epi_cols
            swizzled = ec == EPI_BOX
            tb.tensor_map(d, [64, ec], swizzle="128B" if swizzled else None)
            sd_t = tb.buffer_t("shared", (64, ec), "bf16",
                               (f"Swizzle<128B> o S[(64, {ec}) : ({ec}, 1)]" if swizzled else f"S[(64, {ec}) : ({ec}, 1)]"),
                               align=1024 if swizzled else 128)
            epi = {c: ([tb.alloc_shared(sd_t) for _ in range(2)], sd_t, tb.alloc_shared(bar_t), tb.alloc_shared(bar_t))
                   for c in (1, 2)}
        sa = [tb.alloc_shared(sa_t) for _ in range(st)]
        sb = [tb.alloc_shared(sb_t) for _ in range(st)]
        full = [tb.alloc_shared(bar_t) for _ in range(st)]
        empty = [tb.alloc_shared(bar_t) for _ in range(st)]
        pingpong = cfg.schedule == "pingpong"
        # pingpong: order[c] completes when the other consumer has issued its tile's last MMAs (so that a
        # consumer's K steps come after all of the other's, and a stage's parity is never two phases old)
        order = {c: tb.alloc_shared(bar_t) for c in (1, 2)} if pingpong else {}
        tid, warp = tb.thread_id(), tb.warp_id()
        is_t0 = b.cmp("eq", tid, b.c(0))
        with b.when(is_t0):  # full[s]: the producer's arrive + the stage's bytes; empty[s]: both consumers
            for s in range(st):  # (pingpong: one consumer reads a step; cluster_m 2: the pair's consumers)
                tb.mbarrier_init(full[s], 1)
                tb.mbarrier_init(empty[s], 1 if pingpong else 2 * cm)
            for bar in order.values():
                tb.mbarrier_init(bar, 1)
            for _, _, free, written in (epi or {}).values():
                tb.mbarrier_init(free, 1)  # the leader: the last TMA store has read the tile
                tb.mbarrier_init(written, 128)  # every thread of the warpgroup wrote its part
        tb.barrier("cluster" if cm > 1 else "cta")  # (a peer's multicast and arrivals find them initialised)
        ring = lambda g, bufs, t: tb.ring_stage(b.op("RemUIOp", g, b.c(st)), bufs, result_type=t)  # noqa: E731
        parity = lambda g: b.op("DivUIOp", g, b.c(st))  # noqa: E731  (wait_parity reads bit 0)
        # a cluster (one CTA when cluster_m is 1) walks units; its CTA of rank r takes tile row cm * row + r
        bid, rank = tb.block_id("x"), (tb.cta_rank() if cm > 1 else b.c(0))
        unit0 = b.op("DivUIOp", bid, b.c(cm)) if cm > 1 else bid
        units_m, units_n = b.c(cfg.units[0]), b.c(cfg.units[1])
        n_units, clusters = b.c(cfg.units[0] * cfg.units[1]), b.c(cfg.grid // cm)

        def tiles(part=None):
            """The CTA's tile loop: yields (its count i of the CTA's tiles, first K step, m0, n0) inside it;
            part p of 2: only its tiles i = p, p + 2, ... (a pingpong consumer's)."""
            first, step = unit0, clusters
            if part is not None:
                step = b.op("MulIOp", clusters, b.c(2))
                first = b.op("AddIOp", unit0, b.op("MulIOp", clusters, b.c(part)))
            with b.loop(first, n_units, step) as unit:
                it = b.op("DivUIOp", b.op("SubIOp", unit, unit0), clusters)
                coords = tb.raster_grouped(unit, units_m, units_n, max(1, cfg.group_m // cm))
                row = b.op("AddIOp", b.op("MulIOp", coords.row, b.c(cm)), rank) if cm > 1 else coords.row
                yield (it, b.op("MulIOp", it, b.c(kt_n)), b.op("MulIOp", row, b.c(bm)),
                       b.op("MulIOp", coords.col, b.c(bn)))

        wg = b.op("DivUIOp", warp, b.c(4))
        with b.when(b.cmp("eq", wg, b.c(0))):
            with b.when(is_t0):  # producer: K step g into stage g % S once both consumers released it
                for _, g0, m0, n0 in tiles():
                    with b.loop(b.c(0), b.c(kt_n), b.c(1)) as kt:
                        g = b.op("AddIOp", g0, kt)
                        tb.mbarrier_wait_parity(ring(g, empty, bar_t), b.op("XOrIOp", parity(g), b.c(1)))
                        bar = ring(g, full, bar_t)
                        tb.mbarrier_arrive_expect_tx(bar, cfg.stage_bytes)
                        k0 = b.op("MulIOp", kt, b.c(bk))
                        src = tb.subview(a, [m0, k0], static_offsets=[-1, -1], sizes=[bm, bk])
                        tb.copy_async(ring(g, sa, sa_t), src, bar)
                        if cm == 1:
                            src = tb.subview(bb, [n0, k0], static_offsets=[-1, -1], sizes=[bn, bk])
                            tb.copy_async(ring(g, sb, sb_t), src, bar)
                            continue
                        # this CTA's half of B's rows, written into both CTAs' stage, completing on both's
                        # full[s] (a multicast load signals the barrier at the same offset in each destination)
                        for r in range(cm):
                            with b.when(b.cmp("eq", rank, b.c(r))):
                                src = tb.subview(bb, [b.op("AddIOp", n0, b.c(r * bn_load)), k0],
                                                 static_offsets=[-1, -1], sizes=[bn_load, bk])
                                tb.copy_async(ring(g, sb, sb_t), src, bar, multicast_mask=(1 << cm) - 1,
                                              dst_region=[(r * bn_load, (r + 1) * bn_load), (0, bk)])
        for c in (1, 2):  # consumers: warpgroup c computes rows 64 (c - 1) .. 64 c - 1 of each tile (pingpong:
            with b.when(b.cmp("eq", wg, b.c(c))):  # every row of every other tile)
                _consumer(b, cfg, c, tid, d, sa, sb, full, empty, sa_t, sb_t, bar_t, ring, parity, tiles,
                          epi and epi[c], rank, order)
        if cm > 1:  # no CTA leaves while its peer may still multicast into it or arrive on its barriers
            tb.barrier("cluster")
        tb.ret()


def _consumer(b, cfg, c, tid, d, sa, sb, full, empty, sa_t, sb_t, bar_t, ring, parity, tiles, epi, rank, order):
    tb, bk, kt_n = b.tb, cfg.tile_k, cfg.k_tiles
    pingpong = bool(order)
    halves = (0, 64) if pingpong else (64 * (c - 1),)  # the 64-row slices of the tile this warpgroup computes
    acc_t = tb.buffer_t("reg", (64, cfg.tile_n), "f32", _acc_layout(cfg.tile_n, 4 * c))
    out_t = tb.buffer_t("reg", (64, cfg.tile_n), "bf16", _acc_layout(cfg.tile_n, 4 * c))
    accs, out = [tb.alloc_reg(acc_t) for _ in halves], tb.alloc_reg(out_t)
    leader = b.cmp("eq", tid, b.c(128 * c))

    def release(g):  # stage g % S is read: free it for this CTA's producer and, with a cluster, the peer's
        bar = ring(g, empty, bar_t)
        tb.mbarrier_arrive(bar)
        if cfg.cluster_m > 1:
            tb.mbarrier_arrive(bar, b.op("XOrIOp", rank, b.c(1)))
    for it, g0, m0, n0 in tiles(c - 1 if pingpong else None):
        mine = b.op("DivUIOp", it, b.c(2)) if pingpong else it  # this warpgroup's count of its tiles
        if pingpong:  # wait for the other's previous tile's MMAs (consumer 1's first tile waits for nothing:
            # parity 1 of a fresh barrier counts as completed)
            tb.mbarrier_wait_parity(order[c], b.op("AddIOp", mine, b.c(1 if c == 1 else 0)))
        with b.loop(b.c(0), b.c(kt_n), b.c(1)) as kt:
            g = b.op("AddIOp", g0, kt)
            tb.mbarrier_wait_parity(ring(g, full, bar_t), parity(g))
            accumulate = b.cmp("ugt", kt, b.c(0))
            for acc, r0 in zip(accs, halves):
                tb.gemm_async(acc, ring(g, sa, sa_t), ring(g, sb, sb_t), accumulate, scope="warpgroup",
                              a_region=[(r0, r0 + 64), (0, bk)])
            tb.gemm_wait(pending=len(halves))  # the previous step's wgmmas are done: its stage is free again
            with b.when(accumulate):
                with b.when(leader):
                    release(b.op("SubIOp", g, b.c(1)))
        if pingpong:
            with b.when(leader):  # the tensor cores are the other's from here (they queue behind these MMAs)
                tb.mbarrier_arrive(order[3 - c])
        tb.gemm_wait(pending=0)
        with b.when(leader):  # the tile's last stage
            release(b.op("AddIOp", g0, b.c(kt_n - 1)))
        for h, (acc, r0) in enumerate(zip(accs, halves)):
            tb.convert(out, acc, "rn")
            row = b.op("AddIOp", m0, b.c(r0))
            if epi is None:
                tb.copy(tb.subview(d, [row, n0], static_offsets=[-1, -1], sizes=[64, cfg.tile_n]), out, "warpgroup")
                continue
            _store(b, cfg, d, epi, out, leader, row, n0, b.op("AddIOp", b.op("MulIOp", mine, b.c(len(halves))),
                                                                b.c(h)))
    if epi is not None:
        with b.when(leader):  # the last store reads shared memory: the CTA stays until it has
            tb.bulk_wait(0, kind="all")


def _store(b, cfg, d, epi, out, leader, row, n0, count):
    """Registers -> shared -> TMA store (clipped at D's edges) of 64 rows in rounds of epi_cols columns, each
    issued by the leader; after the last the warpgroup goes on while the copy engine writes. Round q (counted
    over the warpgroup's stores, `count` = its stores of 64 rows so far) fills staging box q % 2 once the
    leader has seen the store of round q - 2 done reading it (bulk_wait read with one group left in flight)
    and said so on `free`; both barriers complete once a round (parity: q)."""
    tb = b.tb
    boxes, box_t, free, written = epi
    ec, rounds = cfg.epi_cols, cfg.epi_rounds
    for r in range(rounds):
        phase = b.op("AddIOp", b.op("MulIOp", count, b.c(rounds)), b.c(r))
        with b.when(leader):
            tb.bulk_wait(1, kind="read")
            tb.mbarrier_arrive(free)
        tb.mbarrier_wait_parity(free, phase)
        # with an even number of rounds a round's box is fixed; otherwise it alternates with the count
        sd = boxes[r % 2] if rounds % 2 == 0 else tb.ring_stage(b.op("RemUIOp", phase, b.c(2)), boxes,
                                                                 result_type=box_t)
        tb.copy(sd, out, "warpgroup", dst_region=[(0, 64), (0, ec)], src_region=[(0, 64), (r * ec, (r + 1) * ec)])
        tb.fence("proxy_async")  # (generic-proxy stores that the copy engine reads)
        tb.mbarrier_arrive(written)
        with b.when(leader):
            tb.mbarrier_wait_parity(written, phase)
            col = b.op("AddIOp", n0, b.c(r * ec))
            tb.copy_async(tb.subview(d, [row, col], static_offsets=[-1, -1], sizes=[64, ec]), sd)


# ------------------------------------------------------------------------------------------ checking
def expected(a, b) -> np.ndarray:
    """D as the kernel computes it: MMA-Sim's Hopper wgmma model over K padded with zeros to whole K tiles (TMA's
    fill), bf16."""
    import gemm_reference as ref
    return ref.to_bf16(ref.mmasim_wgmma(a, b))


def run(cfg: PersistentConfig, seed: int = 0, backend: str = "sim"):
    """(D, A, B) of cfg's kernel on random operands through tile_mlir.jit."""
    import tile_mlir
    from gemm_reference import random_dense

    a, bt = random_dense(DENSE[cfg.dtype][2], cfg.m, cfg.n, cfg.k, seed=seed)
    d = np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16)
    tile_mlir.jit(build(cfg), arch="sm_90a", backend=backend)(a, bt, d)
    return d, a, bt


def padded(x, k: int):
    """x with zero columns up to k (what TMA fills past the tensor)."""
    out = np.zeros((x.shape[0], k), x.dtype)
    out[:, :x.shape[1]] = x
    return out


def main(argv=None) -> int:
    from example_cli import MAX_EXTENT, int_in, run_main

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=sorted(DENSE), default="bf16")
    p.add_argument("-M", type=int_in(1, MAX_EXTENT), default=256)
    p.add_argument("-N", type=int_in(1, MAX_EXTENT), default=512)
    p.add_argument("-K", type=int_in(1, MAX_EXTENT), default=640)
    p.add_argument("--ctas", type=int_in(1, 65535), help="at most this many CTAs (default: the device's SMs, read "
                   "from it with --run gpu; 132, an H200's, otherwise)")
    p.add_argument("--group-m", type=int_in(1, 65536), default=8)
    p.add_argument("--stages", type=int_in(0, 64), default=0, help="0: as many as fit")
    p.add_argument("--tile-n", type=int_in(1, 256), default=256)
    p.add_argument("--epilogue", choices=EPILOGUES, default="tma")
    p.add_argument("--schedule", choices=SCHEDULES, default="cooperative",
                   help="pingpong: each consumer warpgroup owns every other tile (use --tile-n 128)")
    p.add_argument("--cluster-m", type=int, choices=(1, 2), default=1,
                   help="2: CTA pairs on vertically adjacent tiles, each loading half of B for both (TMA multicast)")
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX instead of the tile IR")
    p.add_argument("--run", choices=("sim", "gpu"), help="run on random operands and compare D bit for bit with "
                   "the exact model of MMA-Sim's arithmetic, itself checked against MMA-Sim on sampled tiles")
    from gemm_reference import add_check_options
    add_check_options(p)
    args = p.parse_args(argv)
    return run_main(p, lambda: _main(p, args))


def _main(p, args) -> int:
    import tile_mlir

    ctas = args.ctas or tile_mlir.gemm.device_sms("gpu" if args.run == "gpu" else "sim")
    try:
        cfg = PersistentConfig(args.dtype, args.M, args.N, args.K, ctas=ctas, group_m=args.group_m,
                               stages=args.stages, tile_n=args.tile_n, epilogue=args.epilogue,
                               cluster_m=args.cluster_m, schedule=args.schedule)
    except ValueError as e:
        p.error(str(e))
    if args.run:
        d, a, bt = run(cfg, backend=args.run)
        from gemm_reference import run_check
        kp = cfg.k_tiles * cfg.tile_k
        return run_check(f"{cfg.name} ({cfg.grid} CTAs) on {args.run}", d, (padded(a, kp), padded(bt, kp)), None, args)
    from gemm_reference import module_text
    print(module_text(build(cfg), "sm_90a", cfg.name, args.ptx))
    return 0


if __name__ == "__main__":
    sys.exit(main())
