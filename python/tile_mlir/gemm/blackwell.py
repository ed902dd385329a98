"""The tile IR of a BlackwellConfig's kernel on sm_100a, sizes at run time (docs/gemm-walkthrough.md §12).

    kernel(A: ?x?xelem, B: ?x?xelem, D: ?x?xbf16, M: i32, N: i32, K: i32)
    kernel(A: ?x?xelem, B: ?x?xelem, W: ?x?xf32, M: i32, N: i32, K: i32)      (split_k > 1)

The dense persistent Blackwell GEMM: bf16 / f16 (tcgen05.mma kind::f16), e4m3 / e5m2 (kind::f8f6f4) and tf32
(kind::tf32), fp32 accumulation in tensor memory, D in bf16. The schedule is the block-scaled persistent kernel's
(examples/gemm_persistent_blackwell.py, docs/gemm-walkthrough.md §11) without scale factors: 256 threads, thread
0 the TMA producer, thread 32 the MMA issuer, warps 4-7 the epilogue; grid = min(SMs, units) CTAs (or pairs)
walking work units in grouped raster order, the ring's K step counting on across units; two accumulators in
tensor memory, so one unit's epilogue overlaps the next one's MMAs. With cta_group 2, CTA pairs walk 256 x
tile_n tiles: each CTA loads its 128 rows of A and tile_n / 2 rows of B, all completing on the even CTA's
barrier, whose thread 32 issues the M = 256 cta_group::2 MMAs and commits to both CTAs' barriers (multicast).
A, B and D have runtime extents: their tensor maps are encoded at launch from the arrays; past M, N and K TMA
loads zeros and the TMA store clips. Split-K (split_k S > 1), as the sm_90a kernel's (hopper.py): a unit is a
tile and one of S parts of its K steps, ceil(k_tiles / S) each (the last part's steps past K load zeros), its
fp32 accumulator added into the workspace W (M x N fp32, zero before the launch) by TMA reductions
(cp.reduce.async.bulk.tensor .add, clipped at W's edges); the caller converts W to bf16. With split_reduce
"fixup" the parameters are A, B, D, W (static: FIXUP_UNITS x cta_group slots of 128 x tile_n fp32), C
(i32 semaphores, one per CTA tile), M, N, K: the epilogue stores each slice of its partial into the unit's
slot, arrives at the tile's semaphore (tile.semaphore.arrive), and the last unit's epilogue adds the tile's
slots in part order slice by slice, converts and stores D (hopper.py's fix-up, docs/gemm-library.md §3).
Only the builder's own integers reach the IR.
"""
from __future__ import annotations

import contextlib

from ..dialect import builders as tb
from ..frontend.context import make_context
from ..mlir import arith, ir
from .blackwell_config import EPI_COLS, BlackwellConfig

__all__ = ["build", "PARAMS"]

PARAMS = ("A", "B", "D", "M", "N", "K")  # (split-K: W for D)


def build(cfg: BlackwellConfig, context=None):
    """The tile IR module of cfg's kernel (in `context`, default a new tile_mlir context)."""
    ctx = context or make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        _kernel(module, cfg)
    return module


def _cmp(pred: str, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def _ceil_div(c, a, d: int):
    return arith.divui(arith.addi(a, c(d - 1)), c(d))


def _swizzled(rows: int, cols: int, elem: str):
    """A tile as TMA writes a box with 128B swizzle: rows of 128 bytes, atoms of 8 rows, 1024-byte aligned."""
    return tb.buffer_t("shared", (rows, cols), elem, f"Swizzle<128B> o S[({rows}, {cols}) : ({cols}, 1)]", align=1024)


def _kernel(module, cfg: BlackwellConfig) -> None:
    elem = cfg.elem
    bm, bn, bk, st, cg = cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.stages, cfg.cta_group
    bnc = bn // cg  # rows of B a CTA stages (a pair's MMA reads the even CTA's first, then the odd's)
    dyn = lambda e: tb.buffer_t("global", (None, None), e)  # noqa: E731  (runtime extents)
    i32 = ir.IntegerType.get_signless(32)
    params = {"A": dyn(elem), "B": dyn(elem), ("W" if cfg.tma_reduce else "D"): dyn(cfg.out_elem)}
    if cfg.fixup:
        params.update(W=tb.buffer_t("global", cfg.workspace_shape, "f32"),
                      C=tb.buffer_t("global", (cfg.semaphores,), "i32"))
    params.update(M=i32, N=i32, K=i32)
    acc_t = tb.buffer_t("tmem", (bm, bn), "f32", f"S[({bm}, {bn}) : (1@TLane, 1@TCol)]")
    bar_t = tb.buffer_t("shared", (1,), "i64")
    cluster = (2, 1, 1) if cg == 2 else None
    with tb.kernel(module, cfg.name, params, block=(256, 1, 1), grid=(cg, 1, 1), cluster=cluster) as (kern, args):
        A, B, D = args[:3]
        fix = args[3:5] if cfg.fixup else None
        m_size, n_size, k_size = args[-3:]
        c = tb.Constants(kern.regions[0].blocks[0])
        tb.tensor_map(A, (bm, bk), swizzle="128B")
        tb.tensor_map(B, (bnc, bk), swizzle="128B")
        box = cfg.epi_box
        tb.tensor_map(D, (bm, box), swizzle="128B")
        sa = [tb.alloc_shared(_swizzled(bm, bk, elem)) for _ in range(st)]
        sb = [tb.alloc_shared(_swizzled(bnc, bk, elem)) for _ in range(st)]
        sd = [tb.alloc_shared(_swizzled(bm, box, cfg.out_elem)) for _ in range(bn // box)]
        full = [tb.alloc_shared(bar_t) for _ in range(st)]
        empty = [tb.alloc_shared(bar_t) for _ in range(st)]
        acc_full = [tb.alloc_shared(bar_t) for _ in range(2)]
        acc_empty = [tb.alloc_shared(bar_t) for _ in range(2)]
        free, written = tb.alloc_shared(bar_t), tb.alloc_shared(bar_t)  # the staging tile sd's two barriers
        slot = tb.alloc_shared(tb.buffer_t("shared", (1,), "i32"))
        tid, warp = tb.thread_id(), tb.warp_id()
        is_t0 = _cmp("eq", tid, c(0))
        is_mma_warp = _cmp("eq", warp, c(1))
        rank = tb.cta_rank() if cg == 2 else c(0)  # (a pair's even CTA, rank 0, arms `full` and issues the MMAs)
        is_leader = _cmp("eq", rank, c(0)) if cg == 2 else None
        # 1. set-up: warp 1 allocates tensor memory, thread 0 initialises the barriers: full[s] = producer arrive
        #    + bytes; empty[s], acc_full[b] = tcgen05.commit of the MMA thread (a pair's: multicast to both
        #    CTAs); acc_empty[b] = the 128 epilogue threads (a pair's: of both CTAs, on the even CTA's barrier);
        #    the staging tile's `free` (the epilogue's leader: the last TMA store has read it) and `written`
        with tb.when(is_mma_warp):
            tb.tmem_alloc(slot, cfg.tmem_cols, cg)
        with tb.when(is_t0):
            for bar, count in ([(b, 1) for b in full + empty + acc_full] + [(b, 128 * cg) for b in acc_empty]
                               + [(free, 1), (written, 128)]):
                tb.mbarrier_init(bar, count)
        tb.fence("tcgen05_before_sync")
        tb.barrier()
        if cg == 2:  # the peer's barriers initialised and its tensor memory allocated before either uses them
            tb.barrier("cluster")
        tb.fence("tcgen05_after_sync")
        acc = [tb.tmem_buffer(slot, acc_t, col_offset=b * bn) for b in range(2)]

        def ring(index, bufs):
            return tb.ring_stage(index, bufs, result_type=bufs[0].type)

        stage = lambda g: arith.remui(g, c(st))  # noqa: E731
        parity = lambda g: arith.divui(g, c(st))  # noqa: E731  (wait_parity reads bit 0)
        # the sizes: tile counts and K steps per unit from the parameters
        tiles_m, tiles_n = _ceil_div(c, m_size, bm * cg), _ceil_div(c, n_size, bn)
        kq = _ceil_div(c, _ceil_div(c, k_size, bk), cfg.split_k) if cfg.split_k > 1 else _ceil_div(c, k_size, bk)
        n_tiles = arith.muli(tiles_m, tiles_n)
        n_work = arith.muli(n_tiles, c(cfg.split_k)) if cfg.split_k > 1 else n_tiles
        walker = arith.divui(tb.block_id("x"), c(cg)) if cg == 2 else tb.block_id("x")
        walkers = arith.divui(tb.grid_dim("x"), c(cg)) if cg == 2 else tb.grid_dim("x")
        units = _Units(cfg, c, walker, walkers, n_work, n_tiles, tiles_m, tiles_n, kq)
        # a pair's loads all complete on the even CTA's `full` (docs/tma.md §8), which counts both CTAs' bytes
        tma_attrs = {"cta_group": 2, "barrier_cta": "pair_leader"} if cg == 2 else {}
        with tb.when(is_t0):
            # 2. producer: K step g into stage g % S once the MMAs that read its last use are done; a CTA of a pair
            #    loads its 128 rows of A and its half of B's rows
            for it, mb, nb, split in units.walk():
                m0 = arith.muli(arith.addi(arith.muli(mb, c(cg)), rank), c(bm))
                row0_b = arith.addi(arith.muli(nb, c(bn)), arith.muli(rank, c(bnc)))
                kt0 = units.k_first
                for kt, g in units.k_steps(it):
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
            for it, _, _, _ in units.walk():
                b = arith.andi(it, c(1))
                tb.mbarrier_wait_parity(ring(b, acc_empty), arith.xori(arith.divui(it, c(2)), c(1)))
                d = ring(b, acc)
                for kt, g in units.k_steps(it):
                    s = stage(g)
                    tb.mbarrier_wait_parity(ring(s, full), parity(g))
                    tb.gemm_async(d, ring(s, sa), ring(s, sb), _cmp("ugt", kt, c(0)), cta_group=cg)
                    tb.commit(ring(s, empty), cg, mask)
                tb.commit(ring(b, acc_full), cg, mask)
        with tb.when(_cmp("uge", warp, c(4))):
            _epilogue(cfg, c, units, ring, tid, rank, acc, acc_full, acc_empty, sd, free, written, D, fix)
        tb.fence("tcgen05_before_sync")
        tb.barrier()
        if cg == 2:  # neither CTA frees tensor memory or exits while its peer may still signal it
            tb.barrier("cluster")
        with tb.when(is_mma_warp):  # every MMA completed (the epilogue saw each unit's acc_full)
            tb.fence("tcgen05_after_sync")
            tb.tmem_relinquish(cg)
            tb.tmem_dealloc(slot, cfg.tmem_cols, cg)
        tb.ret()


class _Units:
    """The work-unit walk every role runs: walker w (a CTA, or a pair) takes units w, w + walkers, ...; unit u is
    tile u % tiles (in tile.raster.grouped order) and split u / tiles: the walkers in flight take one split of
    many tiles."""

    def __init__(self, cfg, c, walker, walkers, n_work, n_tiles, tiles_m, tiles_n, kq):
        self.cfg, self.c, self.walker, self.walkers, self.n_work = cfg, c, walker, walkers, n_work
        self.n_tiles, self.tiles_m, self.tiles_n, self.kq = n_tiles, tiles_m, tiles_n, kq

    def walk(self):
        """Yields (the walker's count i of its units, the tile's (row, col) block, the split) inside its loop;
        the unit's first K step, K steps, first ring step and tile stay on self for k_steps and the fix-up."""
        if self.cfg.stream_k:
            yield from self._stream()
            return
        c, sk = self.c, self.cfg.split_k
        with tb.loop(self.walker, self.n_work, self.walkers) as unit:
            it = arith.divui(arith.subi(unit, self.walker), self.walkers)
            tile, split = (arith.remui(unit, self.n_tiles), arith.divui(unit, self.n_tiles)) if sk > 1 \
                else (unit, c(0))
            coords = tb.raster_grouped(tile, self.tiles_m, self.tiles_n, self.cfg.group_m)
            self.k_first, self.steps, self.g0 = arith.muli(split, self.kq), self.kq, arith.muli(it, self.kq)
            # the fix-up (hopper.py's _Fixup): walker slot unit, parts p * tiles + tile in part order
            self.tile, self.slot, self.arrivals = tile, unit, c(sk)
            self.order = [arith.addi(arith.muli(c(p), self.n_tiles), tile) if p else tile for p in range(sk)]
            yield it, coords.row, coords.col, split

    def _stream(self):
        """Stream-K (hopper.py's _stream_units): walker w's K steps [w I / W, (w + 1) I / W) of the I = tiles x
        k_tiles, in segments per tile; tile t's contributors w0..w1, walker w's slot t + w."""
        c, kt, walkers = self.c, self.kq, self.walkers
        total = arith.muli(self.n_tiles, kt)
        start = arith.divui(arith.muli(self.walker, total), walkers)
        end = arith.divui(arith.muli(arith.addi(self.walker, c(1)), total), walkers)
        t_first = arith.divui(start, kt)
        segs = arith.select(_cmp("ugt", end, start),
                            arith.addi(arith.subi(arith.divui(arith.subi(end, c(1)), kt), t_first), c(1)), c(0))

        def owner(step):
            return arith.subi(arith.divui(arith.addi(arith.muli(arith.addi(step, c(1)), walkers),
                                                     arith.subi(total, c(1))), total), c(1))
        with tb.loop(c(0), segs, c(1)) as j:
            t = arith.addi(t_first, j)
            base = arith.muli(t, kt)
            lo, hi = arith.maxui(start, base), arith.minui(end, arith.addi(base, kt))
            w0, w1 = owner(base), owner(arith.subi(arith.addi(base, kt), c(1)))
            coords = tb.raster_grouped(t, self.tiles_m, self.tiles_n, self.cfg.group_m)
            self.k_first, self.steps, self.g0 = arith.subi(lo, base), arith.subi(hi, lo), arith.subi(lo, start)
            self.tile, self.slot, self.arrivals = t, arith.addi(t, self.walker), arith.addi(arith.subi(w1, w0), c(1))
            self.order = (arith.addi(t, w0), arith.addi(t, w1))
            yield j, coords.row, coords.col, None

    def k_steps(self, it):
        """The unit's K loop: yields (kt, the ring's step g) inside it."""
        c = self.c
        with tb.loop(c(0), self.steps, c(1)) as kt:
            yield kt, arith.addi(self.g0, kt)


def _epilogue(cfg, c, units, ring, tid, rank, acc, acc_full, acc_empty, sd, free, written, D, fix=None):
    """Warps 4-7 of each CTA (warp w reads lane quarter w % 4: rows 32 (w - 4) ..), on its 128 rows, as the
    block-scaled kernel's (docs/gemm-walkthrough.md §11): per unit wait acc_full, tcgen05.ld in slices of
    EPI_COLS columns, bf16, into the staging tile sd; arrive acc_empty (a pair's on the even CTA's barrier); the
    leader stores sd with TMA (clipped at D's edges). sd is rewritten only once the leader has seen the last
    store's reads done and said so on `free`; both sd barriers complete once a unit (parity: the unit count).
    Split-K: the fp32 slices go to sd as they are, and the leader's TMA stores are reductions (.add) into W; with
    the fix-up (`fix` = (W, C)) they go to the unit's slot of W, and only the tile's last unit fills sd, with the
    sum of the tile's slots, and stores it."""
    bm, bn, box = cfg.tile_m, cfg.tile_n, cfg.epi_box
    split = cfg.tma_reduce
    regs_layout = f"S[(4, 32, {EPI_COLS}) : (1@warpid, 1@laneid, 1@reg)] + O[4@warpid]"
    leader = _cmp("eq", tid, c(128))
    racc = tb.alloc_reg(tb.buffer_t("reg", (bm, EPI_COLS), "f32", regs_layout))
    rout = None if split else tb.alloc_reg(tb.buffer_t("reg", (bm, EPI_COLS), "bf16", regs_layout))
    rpart = tb.alloc_reg(tb.buffer_t("reg", (bm, EPI_COLS), "f32", regs_layout)) if fix else None
    for it, mb, nb, _ in units.walk():
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
            if fix:  # the slice into the unit's slot
                tb.copy(_slot(cfg, c, fix[0], arith.addi(arith.muli(units.slot, c(cfg.cta_group)), rank), c0), racc,
                        scope="warpgroup")
            elif split:  # (two 32-column boxes of fp32 a slice)
                for h in range(EPI_COLS // box):
                    tb.copy(sd[(c0 + h * box) // box], racc, scope="warpgroup",
                            src_region=[(0, bm), (h * box, (h + 1) * box)])
            else:
                tb.convert(rout, racc, "rn")
                tb.copy(sd[c0 // box], rout, scope="warpgroup")
        tb.fence("tcgen05_before_sync")  # (the tcgen05.ld waits come before the arrive)
        if cfg.cta_group == 2:  # (mapa + a .shared::cluster arrive, also from the even CTA itself)
            tb.mbarrier_arrive(ring(b, acc_empty), c(0))
        else:
            tb.mbarrier_arrive(ring(b, acc_empty))
        last = _fixup(cfg, c, units, rank, fix, racc, rpart, rout, sd) if fix else None
        tb.fence("proxy_async")  # generic-proxy stores that the copy engine reads
        tb.mbarrier_arrive(written)
        with tb.when(leader):
            tb.mbarrier_wait_parity(written, it)
            m0 = arith.muli(arith.addi(arith.muli(mb, c(cfg.cta_group)), rank), c(bm))
            n0 = arith.muli(nb, c(bn))
            with (tb.when(last) if fix else contextlib.nullcontext()):  # (the fix-up: the tile's last unit alone)
                for i, sbox in enumerate(sd):  # one TMA store (split-K: reduction) a box, clipped at D's edges
                    col = arith.addi(n0, c(i * box)) if i else n0
                    tb.copy_async(tb.subview(D, [m0, col], static_offsets=[-1, -1], sizes=[bm, box]), sbox,
                                  **({"reduce": "add"} if split else {}))
    with tb.when(leader):  # the last store reads shared memory: the CTA stays until it has
        tb.bulk_wait(0, kind="all")


def _slot(cfg, c, work, slot, c0):
    """The 128 x EPI_COLS window at columns c0.. of CTA slot `slot` of the fix-up's workspace."""
    row = arith.muli(slot, c(cfg.tile_m))
    return tb.subview(work, [row], static_offsets=[-1, c0], sizes=[cfg.tile_m, EPI_COLS])


def _fixup(cfg, c, units, rank, fix, racc, rpart, rout, sd):
    """The epilogue's arrival at its CTA tile's semaphore; the last (its i1, returned) adds the tile's slots in
    order (units.order: the parts' walker slots, or stream-K's first and last), slice by slice, and fills sd with
    the bf16 sum."""
    work, sems = fix
    cg = c(cfg.cta_group)
    cta_slot = lambda s: arith.addi(arith.muli(s, cg), rank)  # noqa: E731  (a walker slot's CTA slot)
    ctile = cta_slot(units.tile)
    last = tb.semaphore_arrive(tb.subview(sems, [ctile], static_offsets=[-1], sizes=[1]), units.arrivals, id=1,
                               count=128)
    with tb.when(last):
        for c0 in range(0, cfg.tile_n, EPI_COLS):
            if isinstance(units.order, list):
                for p, slot in enumerate(units.order):
                    tb.copy(racc if p == 0 else rpart, _slot(cfg, c, work, cta_slot(slot), c0), scope="warpgroup")
                    if p:
                        tb.reg_add(racc, racc, rpart)
            else:
                first, final = units.order
                tb.copy(racc, _slot(cfg, c, work, cta_slot(first), c0), scope="warpgroup")
                with tb.loop(arith.addi(first, c(1)), arith.addi(final, c(1)), c(1)) as slot:
                    tb.copy(rpart, _slot(cfg, c, work, cta_slot(slot), c0), scope="warpgroup")
                    tb.reg_add(racc, racc, rpart)
            tb.convert(rout, racc, "rn")
            tb.copy(sd[c0 // cfg.epi_box], rout, scope="warpgroup")
    return last
