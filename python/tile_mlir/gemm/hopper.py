"""The tile IR of a GemmConfig's kernel on sm_90a, sizes at run time (docs/gemm-library.md §3).

    kernel(A: ?x?xelem, B: ?x?xelem, D: ?x?xbf16, M: i32, N: i32, K: i32)
    kernel(A: ?x?xelem, B: ?x?xelem, W: ?x?xf32, M: i32, N: i32, K: i32)      (split_k > 1)

A, B and D have runtime extents (dialect/types.py): their tensor maps are encoded at launch from the arrays
given, and the kernel computes its tile counts and K loop bound from M, N, K. The schedule is
examples/gemm_persistent.py's cooperative one (docs/gemm-walkthrough.md §10): grid = min(SMs, units) CTAs
walking units in grouped raster order, the producer's ring running on across tiles; with tile_m 64 one
consumer warpgroup computes the tile (small M). Past M, N and K TMA loads zeros and the TMA store clips, so
every M, N, K works whose rows are 16-byte multiples (TMA's global strides; api.py pads the others).
Split-K (split_k S > 1): a unit is a tile and one of S parts of its K steps, ceil(k_tiles / S) steps each (the
last part's steps past K load zeros), its fp32 accumulator added into the workspace W (M x N fp32, zero before
the launch) by TMA reductions (cp.reduce.async.bulk.tensor .add, clipped at W's edges like the stores); the
caller converts W to bf16 (call.py) -- split_reduce "tma", the default. With split_reduce "fixup" (opt-in):

    kernel(A: ?x?xelem, B: ?x?xelem, D: ?x?xbf16, W: RxNtxf32, C: Sxi32, M: i32, N: i32, K: i32)

each unit's consumers store their fp32 accumulators (64 x tile_n each, ld/st in the fragment's layout) into
the unit's slot of W (tile_m rows of tile_n columns a unit, R for FIXUP_UNITS units: static, so that plain
loads and stores may window it; uninitialised, only written slots are read) and arrive at their tile's
semaphore in C (one i32 per tile and consumer, zero before the first launch and left zero by every launch:
tile.semaphore.arrive counts modulo split_k); the last to arrive loads the S slots and adds them
in part order (P0 + P1 + ... : deterministic, the same bits whichever unit is last), converts to bf16 and
stores D by the usual epilogue (docs/gemm-library.md §3).
Only the builder's own integers reach the IR.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ..dialect import builders as _tb
from ..frontend.context import make_context
from ..mlir import arith as _arith, ir as _ir, scf as _scf
from .config import GemmConfig

__all__ = ["build", "PARAMS"]

# setmaxnreg with two consumers and the fix-up: 128 x 40 + 256 x 232 <= 64K registers (without, ptxas caps the
# 384 threads at 168 each and the fix-up's accumulator and partial spill)
PRODUCER_REGS, CONSUMER_REGS = 40, 232
PARAMS = ("A", "B", "D", "M", "N", "K")  # (TMA-reduced split-K: W for D; the fix-up: A, B, D, W, C, M, N, K)


class _B:
    """The builders plus the i32 arithmetic and structured control flow the kernel body uses."""

    def __init__(self):
        self.tb, self.arith, self.ir, self.scf = _tb, _arith, _ir, _scf
        self.i32 = _ir.IntegerType.get_signless(32)

    def c(self, v: int):
        return self.arith.ConstantOp(self.i32, v).result

    def op(self, name: str, a, b):
        return getattr(self.arith, name)(a, b).result

    def ceil_div(self, a, d: int):
        return self.op("DivUIOp", self.op("AddIOp", a, self.c(d - 1)), self.c(d))

    def cmp(self, pred: str, a, b):
        return self.arith.CmpIOp(getattr(self.arith.CmpIPredicate, pred), a, b).result

    def when(self, cond):
        return self.tb.when(cond)

    def loop(self, lb, ub, step):
        """scf.for over i32 bounds; yields the induction variable (the builders' loop)."""
        return self.tb.loop(lb, ub, step)


def _acc_layout(n: int, warp0: int) -> str:
    """The wgmma m64nNk16 accumulator fragment of the warpgroup whose first warp is warp0 (docs/gemm.md §3b)."""
    return f"S[(4, 2, 8, {n // 8}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)] + O[{warp0}@warpid]"


def build(cfg: GemmConfig):
    """The tile IR module of cfg's kernel."""
    ctx = make_context()
    with ctx, _ir.Location.unknown(ctx):
        b = _B()
        module = b.ir.Module.create()
        _kernel(b, module, cfg)
    return module


def _kernel(b: _B, module, cfg: GemmConfig) -> None:
    tb = b.tb
    bm, bn, bk, st, cm = cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.stages, cfg.cluster_m
    dyn = lambda elem: tb.buffer_t("global", (None, None), elem)  # noqa: E731  (runtime extents)
    swz = lambda rows: tb.buffer_t("shared", (rows, bk), cfg.elem, f"Swizzle<128B> o S[({rows}, {bk}) : ({bk}, 1)]",  # noqa: E731
                                   align=1024)
    sa_t, sb_t, bar_t = swz(bm), swz(bn), tb.buffer_t("shared", (1,), "i64")
    i32 = b.i32
    split = cfg.split_k > 1
    params = {"A": dyn(cfg.elem), "B": dyn(cfg.elem), ("W" if cfg.tma_reduce else "D"): dyn(cfg.out_elem)}
    if cfg.fixup:
        params.update(W=tb.buffer_t("global", cfg.workspace_shape, "f32"),
                      C=tb.buffer_t("global", (cfg.semaphores,), "i32"))
    params.update(M=i32, N=i32, K=i32)
    bn_load = bn // cm
    with tb.kernel(module, cfg.name, params, block=(cfg.threads, 1, 1), grid=(1, 1, 1),
                   cluster=(cm, 1, 1) if cm > 1 else None) as (_, args):
        a, bb, d = args[:3]
        work, sems = args[3:5] if cfg.fixup else (None, None)
        m_size, n_size, k_size = args[-3:]
        tb.tensor_map(a, [bm, bk], swizzle="128B")
        tb.tensor_map(bb, [bn_load, bk], swizzle="128B")
        ec = cfg.epi_cols
        swizzled = ec == 64
        tb.tensor_map(d, [64, ec], swizzle="128B" if swizzled else None)
        sd_t = tb.buffer_t("shared", (64, ec), cfg.out_elem,
                           f"Swizzle<128B> o S[(64, {ec}) : ({ec}, 1)]" if swizzled else f"S[(64, {ec}) : ({ec}, 1)]",
                           align=1024 if swizzled else 128)
        consumers = range(1, cfg.consumers + 1)
        epi = {c: ([tb.alloc_shared(sd_t) for _ in range(2)], sd_t, tb.alloc_shared(bar_t), tb.alloc_shared(bar_t))
               for c in consumers}
        sa = [tb.alloc_shared(sa_t) for _ in range(st)]
        sb = [tb.alloc_shared(sb_t) for _ in range(st)]
        full = [tb.alloc_shared(bar_t) for _ in range(st)]
        empty = [tb.alloc_shared(bar_t) for _ in range(st)]
        tid, warp = tb.thread_id(), tb.warp_id()
        is_t0 = b.cmp("eq", tid, b.c(0))
        with b.when(is_t0):  # full[s]: the producer's arrive + the stage's bytes; empty[s]: every consumer
            for s in range(st):  # (with cluster_m 2: the pair's)
                tb.mbarrier_init(full[s], 1)
                tb.mbarrier_init(empty[s], cfg.consumers * cm)
            for _, _, free, written in epi.values():
                tb.mbarrier_init(free, 1)  # the leader: the last TMA store has read the box
                tb.mbarrier_init(written, 128)  # every thread of the warpgroup wrote its part
        tb.barrier("cluster" if cm > 1 else "cta")
        ring = lambda g, bufs, t: tb.ring_stage(b.op("RemUIOp", g, b.c(st)), bufs, result_type=t)  # noqa: E731
        parity = lambda g: b.op("DivUIOp", g, b.c(st))  # noqa: E731  (wait_parity reads bit 0)
        # the sizes: tile counts and the K loop's bound from the parameters
        units_m = b.ceil_div(b.ceil_div(m_size, bm), cm)
        units_n = b.ceil_div(n_size, bn)
        kt_n = b.ceil_div(k_size, bk)
        n_tiles = b.op("MulIOp", units_m, units_n)
        n_units = b.op("MulIOp", n_tiles, b.c(cfg.split_k)) if split else n_tiles
        if split:  # each unit's K steps: a part of ceil(k_tiles / S)
            kt_n = b.ceil_div(kt_n, cfg.split_k)
        bid, rank = tb.block_id("x"), (tb.cta_rank() if cm > 1 else b.c(0))
        unit0 = b.op("DivUIOp", bid, b.c(cm)) if cm > 1 else bid
        clusters = b.op("DivUIOp", tb.grid_dim("x"), b.c(cm)) if cm > 1 else tb.grid_dim("x")

        def tiles():
            """The CTA's work loop: yields a _Unit inside it."""
            if cfg.stream_k:
                yield from _stream_units(b, cfg, work, sems, bid, tb.grid_dim("x"), units_m, units_n, kt_n)
                return
            with b.loop(unit0, n_units, clusters) as unit:
                it = b.op("DivUIOp", b.op("SubIOp", unit, unit0), clusters)
                tile, k_first, fix = unit, b.c(0), None
                if split:  # unit = part * tiles + tile: the CTAs in flight take one part of many tiles
                    tile = b.op("RemUIOp", unit, n_tiles)
                    k_first = b.op("MulIOp", b.op("DivUIOp", unit, n_tiles), kt_n)
                if cfg.fixup:  # a CTA's slot: unit * cm + rank (part-major: part p of CTA tile q is p * stride + q)
                    ctile = b.op("AddIOp", b.op("MulIOp", tile, b.c(cm)), rank)
                    stride = b.op("MulIOp", n_tiles, b.c(cm))
                    fix = _Fixup(b, cfg, work, sems, b.op("AddIOp", b.op("MulIOp", unit, b.c(cm)), rank), ctile,
                                 b.c(cfg.split_k), (ctile, stride))
                coords = tb.raster_grouped(tile, units_m, units_n, max(1, cfg.group_m // cm))
                row = b.op("AddIOp", b.op("MulIOp", coords.row, b.c(cm)), rank) if cm > 1 else coords.row
                yield _Unit(it, b.op("MulIOp", it, kt_n), b.op("MulIOp", row, b.c(bm)),
                            b.op("MulIOp", coords.col, b.c(bn)), k_first, kt_n, fix)

        wg = b.op("DivUIOp", warp, b.c(4))
        rebalance = cfg.fixup and cfg.consumers == 2  # (the fix-up's second fp32 tile: 168 registers spill)
        with b.when(b.cmp("eq", wg, b.c(0))):
            if rebalance:
                tb.setmaxnreg("dec", PRODUCER_REGS)
            with b.when(is_t0):  # producer: K step g into stage g % S once every consumer released it
                for u in tiles():
                    g0, m0, n0 = u.g0, u.m0, u.n0
                    with b.loop(b.c(0), u.steps, b.c(1)) as kt:
                        g = b.op("AddIOp", g0, kt)
                        tb.mbarrier_wait_parity(ring(g, empty, bar_t), b.op("XOrIOp", parity(g), b.c(1)))
                        bar = ring(g, full, bar_t)
                        tb.mbarrier_arrive_expect_tx(bar, cfg.stage_bytes)  # (a box wholly past K: all zeros)
                        k0 = b.op("MulIOp", b.op("AddIOp", u.k_first, kt), b.c(bk))
                        tb.copy_async(ring(g, sa, sa_t), tb.subview(a, [m0, k0], static_offsets=[-1, -1],
                                                                    sizes=[bm, bk]), bar)
                        if cm == 1:
                            tb.copy_async(ring(g, sb, sb_t), tb.subview(bb, [n0, k0], static_offsets=[-1, -1],
                                                                        sizes=[bn, bk]), bar)
                            continue
                        for r in range(cm):  # this CTA's half of B, multicast into both CTAs' stage
                            with b.when(b.cmp("eq", rank, b.c(r))):
                                src = tb.subview(bb, [b.op("AddIOp", n0, b.c(r * bn_load)), k0],
                                                 static_offsets=[-1, -1], sizes=[bn_load, bk])
                                tb.copy_async(ring(g, sb, sb_t), src, bar, multicast_mask=(1 << cm) - 1,
                                              dst_region=[(r * bn_load, (r + 1) * bn_load), (0, bk)])
        if rebalance:
            with b.when(b.cmp("ne", wg, b.c(0))):
                tb.setmaxnreg("inc", CONSUMER_REGS)
        for c in consumers:  # consumer c computes rows 64 (c - 1) .. 64 c - 1 of each tile
            with b.when(b.cmp("eq", wg, b.c(c))):
                _consumer(b, cfg, c, tid, d, sa, sb, full, empty, sa_t, sb_t, bar_t, ring, parity, tiles, epi[c], rank)
        if cm > 1:  # no CTA leaves while its peer may still multicast into it or arrive on its barriers
            tb.barrier("cluster")
        tb.ret()


def _consumer(b, cfg, c, tid, d, sa, sb, full, empty, sa_t, sb_t, bar_t, ring, parity, tiles, epi, rank):
    tb, bk = b.tb, cfg.tile_k
    acc_t = tb.buffer_t("reg", (64, cfg.tile_n), "f32", _acc_layout(cfg.tile_n, 4 * c))
    out_t = tb.buffer_t("reg", (64, cfg.tile_n), "bf16", _acc_layout(cfg.tile_n, 4 * c))
    acc = tb.alloc_reg(acc_t)
    out = tb.alloc_reg(out_t) if not cfg.tma_reduce else None
    part = tb.alloc_reg(acc_t) if cfg.fixup else None
    leader = b.cmp("eq", tid, b.c(128 * c))
    r0 = 64 * (c - 1)

    def release(g):  # stage g % S is read: free it for this CTA's producer and, with a cluster, the peer's
        bar = ring(g, empty, bar_t)
        tb.mbarrier_arrive(bar)
        if cfg.cluster_m > 1:
            tb.mbarrier_arrive(bar, b.op("XOrIOp", rank, b.c(1)))
    for u in tiles():
        g0, fix = u.g0, u.fix
        with b.loop(b.c(0), u.steps, b.c(1)) as kt:
            g = b.op("AddIOp", g0, kt)
            tb.mbarrier_wait_parity(ring(g, full, bar_t), parity(g))
            accumulate = b.cmp("ugt", kt, b.c(0))
            tb.gemm_async(acc, ring(g, sa, sa_t), ring(g, sb, sb_t), accumulate, scope="warpgroup",
                          a_region=[(r0, r0 + 64), (0, bk)])
            tb.gemm_wait(pending=1)  # the previous step's wgmmas are done: its stage is free again
            with b.when(accumulate):
                with b.when(leader):
                    release(b.op("SubIOp", g, b.c(1)))
        tb.gemm_wait(pending=0)
        with b.when(leader):  # the tile's last stage
            release(b.op("SubIOp", b.op("AddIOp", g0, u.steps), b.c(1)))
        active = None
        if cfg.fixup:  # partial out, arrive; the last unit of the tile sums the parts into acc
            active = fix.reduce(c, acc, part)
            with b.when(active):
                tb.convert(out, acc, "rn")
        elif not cfg.tma_reduce:
            tb.convert(out, acc, "rn")
        _store(b, cfg, d, epi, acc if cfg.tma_reduce else out, leader, b.op("AddIOp", u.m0, b.c(r0)), u.n0, u.count,
               active)
    with b.when(leader):  # the last store reads shared memory: the CTA stays until it has
        tb.bulk_wait(0, kind="all")


def _store(b, cfg, d, epi, out, leader, row, n0, count, active=None):
    """Registers -> shared -> TMA store (split-K: reduction into W), clipped at the edges, of 64 rows in rounds of
    epi_cols columns, through
    two staging boxes (docs/gemm-walkthrough.md §10): round q fills box q % 2 once the store of round q - 2 has
    read it; both barriers complete once a round (parity: q). `active` (an i1, the fix-up's last unit): only
    then are the box written and stored; the barriers complete every round regardless, so that their parity
    stays the unit count's."""
    tb = b.tb
    boxes, box_t, free, written = epi
    ec, rounds = cfg.epi_cols, cfg.epi_rounds
    for r in range(rounds):
        phase = b.op("AddIOp", b.op("MulIOp", count, b.c(rounds)), b.c(r))
        with b.when(leader):
            tb.bulk_wait(1, kind="read")
            tb.mbarrier_arrive(free)
        tb.mbarrier_wait_parity(free, phase)
        sd = boxes[r % 2] if rounds % 2 == 0 else tb.ring_stage(b.op("RemUIOp", phase, b.c(2)), boxes,
                                                                 result_type=box_t)
        with _maybe(b, active):
            tb.copy(sd, out, "warpgroup", dst_region=[(0, 64), (0, ec)], src_region=[(0, 64), (r * ec, (r + 1) * ec)])
            tb.fence("proxy_async")  # (generic-proxy stores that the copy engine reads)
        tb.mbarrier_arrive(written)
        with b.when(leader):
            tb.mbarrier_wait_parity(written, phase)
            col = b.op("AddIOp", n0, b.c(r * ec))
            with _maybe(b, active):
                tb.copy_async(tb.subview(d, [row, col], static_offsets=[-1, -1], sizes=[64, ec]), sd,
                              reduce="add" if cfg.tma_reduce else None)


def _maybe(b, cond):
    """b.when(cond), or nothing when cond is None."""
    return b.when(cond) if cond is not None else contextlib.nullcontext()


@dataclass
class _Unit:
    """One unit of a CTA's work: its index among the CTA's units (the epilogue's phase), its first ring step,
    its tile's first row and column, its first K step and K step count, and its fix-up (None: not split)."""
    count: object
    g0: object
    m0: object
    n0: object
    k_first: object
    steps: object
    fix: object


def _stream_units(b, cfg, work, sems, cta, grid, units_m, units_n, kt):
    """Stream-K (docs/gemm-library.md §3): the tiles' K steps, tiles x kt of them in tile-major order, in
    `grid` even ranges, CTA c's [c I / G, (c + 1) I / G); its range crosses tiles in segments, each a unit.
    Tile t's contributors are CTAs c0..c1 (c0 the owner of its first step, c1 of its last: the owner of step i
    is ceil((i + 1) G / I) - 1); contributor c's partial goes in slot t + c (unique: contributors of tile t + 1
    start at c1 or later), and the last to arrive adds the slots of c0..c1 in order."""
    tb = b.tb
    n_tiles = b.op("MulIOp", units_m, units_n)
    total = b.op("MulIOp", n_tiles, kt)
    start = b.op("DivUIOp", b.op("MulIOp", cta, total), grid)
    end = b.op("DivUIOp", b.op("MulIOp", b.op("AddIOp", cta, b.c(1)), total), grid)
    t_first = b.op("DivUIOp", start, kt)
    last_step = b.op("SubIOp", end, b.c(1))
    segs = b.arith.SelectOp(b.cmp("ugt", end, start),
                            b.op("AddIOp", b.op("SubIOp", b.op("DivUIOp", last_step, kt), t_first), b.c(1)),
                            b.c(0)).result

    def owner(step):
        return b.op("SubIOp", b.op("DivUIOp", b.op("AddIOp", b.op("MulIOp", b.op("AddIOp", step, b.c(1)), grid),
                                                    b.op("SubIOp", total, b.c(1))), total), b.c(1))
    with b.loop(b.c(0), segs, b.c(1)) as j:
        t = b.op("AddIOp", t_first, j)
        base = b.op("MulIOp", t, kt)
        lo = b.op("MaxUIOp", start, base)
        hi = b.op("MinUIOp", end, b.op("AddIOp", base, kt))
        c0, c1 = owner(base), owner(b.op("SubIOp", b.op("AddIOp", base, kt), b.c(1)))
        count = b.op("AddIOp", b.op("SubIOp", c1, c0), b.c(1))
        fix = _Fixup(b, cfg, work, sems, b.op("AddIOp", t, cta), t, count, (b.op("AddIOp", t, c0), b.c(1)))
        coords = tb.raster_grouped(t, units_m, units_n, cfg.group_m)
        yield _Unit(j, b.op("SubIOp", lo, start), b.op("MulIOp", coords.row, b.c(cfg.tile_m)),
                    b.op("MulIOp", coords.col, b.c(cfg.tile_n)), b.op("SubIOp", lo, base), b.op("SubIOp", hi, lo), fix)


class _Fixup:
    """One unit's share of a split tile's fix-up (docs/gemm-library.md §3): its slot of W (`slot`: tile_m rows),
    its tile's semaphores (`sem`: one per consumer, an index in C's consumers-wide rows), the tile's `arrivals`
    (i32, as many as its slots) and its slots in the order they are added, (first, stride): slot p is first + p
    stride (split-K: part p of the tile; stream-K: stride 1, its contributors in K order)."""

    def __init__(self, b, cfg, work, sems, slot, sem, arrivals, slots):
        self.b, self.cfg, self.work, self.sems = b, cfg, work, sems
        self.slot, self.sem, self.arrivals, self.slots = slot, sem, arrivals, slots

    def _rows(self, slot, c):
        b = self.b
        row = b.op("AddIOp", b.op("MulIOp", slot, b.c(self.cfg.tile_m)), b.c(64 * (c - 1)))
        return b.tb.subview(self.work, [row, b.c(0)], static_offsets=[-1, -1], sizes=[64, self.cfg.tile_n])

    def reduce(self, c, acc, part):
        """Consumer c stores acc into the slot and arrives; returns `last` (i1), where acc is then the sum of
        the tile's partials in slot order (the first slot's first)."""
        b, tb, cfg = self.b, self.b.tb, self.cfg
        tb.copy(self._rows(self.slot, c), acc, "warpgroup")
        sem = tb.subview(self.sems, [b.op("AddIOp", b.op("MulIOp", self.sem, b.c(cfg.consumers)), b.c(c - 1))],
                         static_offsets=[-1], sizes=[1])
        last = tb.semaphore_arrive(sem, self.arrivals, id=c, count=128)
        with b.when(last):  # (a loop, not unrolled: one partial in registers at a time beside acc)
            first, stride = self.slots
            tb.copy(acc, self._rows(first, c), "warpgroup")
            with b.loop(b.c(1), self.arrivals, b.c(1)) as p:
                tb.copy(part, self._rows(b.op("AddIOp", first, b.op("MulIOp", p, stride)), c), "warpgroup")
                tb.reg_add(acc, acc, part)
        return last
