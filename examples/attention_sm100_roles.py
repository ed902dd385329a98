"""The warp roles of examples/attention_sm100.py's kernel, each a loop over the CTA's work units (two query tiles
Q0, Q1 of one head sharing every K/V tile) and, inside it, over the unit's key tiles; docs/attention-walkthrough.md
§2 draws their barriers.

Counts that run on across units: the CTA's i-th unit starts at key tile `base` (the key tiles of its earlier units,
carried by the unit loop), so key tile j of it is the CTA's g = base + j. Both query tiles of a unit read the same
n_kv key tiles (causal: up to Q1's diagonal; Q0's last one is then masked whole, as FlashAttention-4 does), so one
g serves both: the K/V ring stage and parity, and the phases of the per-tile barriers of either tile (s_full[s],
p_full[s], o_done[s]: phase g); alpha_full[s] completes once per key tile after a unit's first, a = base - i + j - 1
times before tile j; the per-unit barriers (q_full[s], q_empty, l_full[s]) have phase i.
"""
from __future__ import annotations

from contextlib import contextmanager

from attention_sm100_model import softmax_scale_log2
from tile_mlir.dialect import builders as tb
from tile_mlir.mlir import arith, ir, scf

BLOCK_M = BLOCK_N = 128
ATOM = 64  # elements of a 128-byte swizzle row (16-bit): a TMA box's inner extent
Q_TILES = 2  # query tiles of a unit (a CTA's two softmax warpgroups)
SOFTMAX_WARP0 = (4, 8)  # softmax warpgroup s: warps 4 + 4 s .. + 3, query tile s
CORRECTION_WARP0 = 12
LN2 = 0.6931471805599453  # ln 2, rounded to f32 where the kernel holds it
EPILOGUE_BARRIER = 1  # named barrier of the correction warpgroup (0 is the CTA's)
CHUNK = 32  # columns of O the correction holds at a time (tcgen05.ld/st .x32: its 64 registers a thread fit them)


def buf_t(scope: str, shape, elem: str, layout: str | None = None, align: int | None = None):
    return tb.buffer_t(scope, shape, elem, layout, align=align)


def cmp(pred: str, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def rows(cols: int, warp0: int) -> str:
    """A warpgroup's register tile of 128 rows (warps warp0 .. warp0 + 3): query row 32 (w - warp0) + l in thread l
    of warp w, its lane of tensor memory (tcgen05.ld/st.32x32b reach lane quarter w % 4), `cols` columns in its
    registers."""
    return f"S[(4, 32, {cols}) : (1@warpid, 1@laneid, 1@reg)] + O[{warp0}@warpid]"


class Ctx:
    """What every role reads: the config, constants, the barriers (a namespace of buffers), the tensor-memory
    buffers, the CTA's unit loop, the ring's stage and parity of the CTA's key tile g."""

    def __init__(self, cfg, c, bars, tm):
        self.cfg, self.c, self.bars, self.tm = cfg, c, bars, tm

    def ring(self, index, bufs):
        return tb.ring_stage(index, bufs, result_type=bufs[0].type) if len(bufs) > 1 else bufs[0]

    def stage(self, g):
        return arith.remui(g, self.c(self.cfg.stages))

    def parity(self, g):  # (wait_parity reads bit 0)
        return arith.divui(g, self.c(self.cfg.stages))

    def minus1(self, x):
        return arith.subi(x, self.c(1))

    @contextmanager
    def units(self):
        """scf.for over the CTA's units u = block, block + grid, ..., carrying `base`; yields a Unit inside it."""
        c, cfg = self.c, self.cfg
        bid, grid = tb.block_id("x"), c(cfg.grid[0])
        op = scf.ForOp(bid, c(cfg.units), grid, [c(0)])
        with ir.InsertionPoint(op.body):
            u, base = op.induction_variable, op.inner_iter_args[0]
            unit = Unit(self, u, arith.divui(arith.subi(u, bid), grid), base)
            yield unit
            scf.YieldOp([arith.addi(base, unit.n_kv)])


class Unit:
    """One work unit: head bh, the pair t of query tiles 2t, 2t + 1 (of a head's pairs, the longest first: causal
    pairs read more keys), its key-tile count n_kv, the CTA's unit count i and its first key tile `base`."""

    def __init__(self, k: Ctx, u, i, base):
        c, cfg = k.c, k.cfg
        self.c, self.i, self.base = c, i, base
        self.bh = arith.divui(u, c(cfg.q_pairs))
        self.t = arith.subi(c(cfg.q_pairs - 1), arith.remui(u, c(cfg.q_pairs)))
        group = cfg.heads // cfg.kv_heads  # (b * heads + h) / group = b * kv_heads + h / group
        self.kvh = arith.divui(self.bh, c(group)) if group > 1 else self.bh
        # key tiles: all, or (causal, key k <= query q) those up to Q1's last row
        self.n_kv = (c(cfg.kv_tiles) if not cfg.causal
                     else arith.minui(c(cfg.kv_tiles), arith.addi(arith.muli(self.t, c(2)), c(2))))

    def qt(self, s: int):
        """Query tile of Q_s: 2t + s."""
        return arith.addi(arith.muli(self.t, self.c(Q_TILES)), self.c(s))

    def q0(self, s: int):
        return arith.muli(self.qt(s), self.c(BLOCK_M))

    def g(self, j):
        return arith.addi(self.base, j)


def load(k: Ctx, sq, sk, sv, Q, K, V):
    """Thread 0: per unit Q0 and Q1 once the previous unit's S MMAs have read them (q_empty), then K_j, V_j into
    ring stage g % stages once the MMAs of its last use are done (kv_empty); a 128 x head_dim tile is head_dim / 64
    TMA boxes of 128B-swizzled rows, each at its region of the buffer (rows past seq_q: TMA's zero fill)."""
    c, d, b = k.c, k.cfg.head_dim, k.bars

    def load_tile(dst, glob, row_bh, row0, bar):
        for a in range(d // ATOM):
            src = tb.subview(glob, [row_bh, row0, c(a * ATOM)], static_offsets=[-1, -1, -1], sizes=[1, 128, ATOM])
            tb.copy_async(dst, src, bar, dst_region=[(0, 1), (0, 128), (a * ATOM, (a + 1) * ATOM)])

    with k.units() as w:
        tb.mbarrier_wait_parity(b.q_empty, arith.xori(w.i, c(1)))  # (a fresh barrier passes parity 1)
        for s in range(Q_TILES):
            tb.mbarrier_arrive_expect_tx(b.q_full[s], k.cfg.tile_bytes)
            load_tile(sq[s], Q, w.bh, w.q0(s), b.q_full[s])
        with tb.loop(c(0), w.n_kv, c(1)) as j:
            g = w.g(j)
            s = k.stage(g)
            tb.mbarrier_wait_parity(k.ring(s, b.kv_empty), arith.xori(k.parity(g), c(1)))
            bar = k.ring(s, b.kv_full)
            tb.mbarrier_arrive_expect_tx(bar, 2 * k.cfg.tile_bytes)
            k0 = arith.muli(j, c(BLOCK_N))
            load_tile(k.ring(s, sk), K, w.kvh, k0, bar)
            load_tile(k.ring(s, sv), V, w.kvh, k0, bar)


def mma(k: Ctx, sq, sk, svb):
    """Thread 32, per unit: S_s = Q_s K_0^T for s = 0, 1 (commit to s_full[s]); then per key tile j and query tile
    s in turn, so that one tile's softmax runs under the other tile's MMAs: once P_s is in tensor memory and O_s is
    ready (p_full[s], 256 arrivals: the softmax's and the correction's -- O_s rescaled by alpha_j for j > 0, the
    previous unit's O_s read by the epilogue for j = 0), O_s (+)= P_s V_j (.ts: A = P_s in tensor memory, B = V_j^T
    MN-major), commit to o_done[s] (after tile 1's also to kv_empty of the stage); then, if a key tile follows,
    S_s = Q_s K_{j+1}^T over the same columns, issued once o_done[s] shows that the PV MMA read P_s (the ISA
    orders one thread's MMAs without a wait only on one accumulator), and a commit to s_full[s]; after the unit's
    last S MMA a commit to q_empty."""
    c, b, tm = k.c, k.bars, k.tm
    false = arith.constant(ir.IntegerType.get_signless(1), 0)

    def s_mma(s: int, g, wait_kv: bool):
        st = k.stage(g)
        if wait_kv:
            tb.mbarrier_wait_parity(k.ring(st, b.kv_full), k.parity(g))
        tb.gemm_async(tm["s"][s], sq[s], k.ring(st, sk), false)
        tb.commit(b.s_full[s], 1)

    with k.units() as w:
        for s in range(Q_TILES):
            tb.mbarrier_wait_parity(b.q_full[s], w.i)
            with tb.when(cmp("ugt", w.base, c(0))):  # the previous unit's last P_s V MMA read P_s
                tb.mbarrier_wait_parity(b.o_done[s], k.minus1(w.base))
            s_mma(s, w.base, s == 0)
        with tb.when(cmp("eq", w.n_kv, c(1))):
            tb.commit(b.q_empty, 1)  # the unit's S MMAs are issued: Q0, Q1 are free once they complete
        with tb.loop(c(0), w.n_kv, c(1)) as j:
            g = w.g(j)
            more = cmp("ult", arith.addi(j, c(1)), w.n_kv)
            later = cmp("ugt", j, c(0))
            st = k.stage(g)
            for s in range(Q_TILES):
                tb.mbarrier_wait_parity(b.p_full[s], g)
                tb.gemm_async(tm["o"][s], tm["p"][s], k.ring(st, svb), later)
                tb.commit(b.o_done[s], 1)
                if s == Q_TILES - 1:
                    tb.commit(k.ring(st, b.kv_empty), 1)
                with tb.when(more):
                    tb.mbarrier_wait_parity(b.o_done[s], g)  # P_s read: S_s may overwrite its columns
                    s_mma(s, arith.addi(g, c(1)), s == 0)
            with tb.when(cmp("eq", arith.addi(j, c(2)), w.n_kv)):
                tb.commit(b.q_empty, 1)


def softmax(k: Ctx, s: int, alpha_s, l_s, m_s=None):
    """Softmax warpgroup s (warps 4 + 4 s .. + 3), thread r of it on row r of query tile Q_s, per unit and key tile j
    (examples/attention_sm100_model.py computes the same in numpy): wait s_full[s], tcgen05.ld S_s; -inf at keys past
    seq_k (the last tile) and, causal, above the diagonal (tiles j >= 2t + s: the diagonal tile, bound 0, and for Q0
    the tile past it, bound -128: every key masked); m_new = max(m, rowmax S); p = 2^(S c - m_new c) (c = scale
    log2 e: one fma.rn and ex2.approx each); alpha = 2^(m c - m_new c); l = l alpha + rowsum p; j > 0: alpha to
    shared memory, arrive alpha_full[s]; P_s = bf16|f16(p) by tcgen05.st over S_s's first 64 columns, arrive
    p_full[s]. S_s's columns and alpha_s[s] are free when s_full[s] shows tile j's S: the MMA thread issued it after
    the previous P_s V MMA completed, which waited for the correction's read of the previous alpha. After the unit's
    last tile: l to l_s[i % 2] (and, for the log-sum-exp, m c to m_s[i % 2]), arrive l_full[s]."""
    cfg, c, b, tm = k.cfg, k.c, k.bars, k.tm
    f32, idx = ir.F32Type.get(), ir.IndexType.get()
    lay = lambda cols: rows(cols, SOFTMAX_WARP0[s])  # noqa: E731
    rs = tb.alloc_reg(buf_t("reg", (BLOCK_M, BLOCK_N), "f32", lay(BLOCK_N)))
    rp = tb.alloc_reg(buf_t("reg", (BLOCK_M, BLOCK_N), cfg.dtype, lay(BLOCK_N)))
    row_t = buf_t("reg", (BLOCK_M, 1), "f32", lay(1))
    m, m_new, m_c, alpha, l, l_tile, c_row = (tb.alloc_reg(row_t) for _ in range(7))
    c_log2 = arith.constant(f32, float(softmax_scale_log2(cfg.head_dim)))
    tb.reg_fill(c_row, c_log2)
    last = cfg.kv_tiles - 1
    residual = cfg.seq_k - last * BLOCK_N  # valid keys of the last key tile
    with k.units() as w:
        tb.reg_fill(m, arith.constant(f32, float("-inf")))
        tb.reg_fill(l, arith.constant(f32, 0.0))
        qt = w.qt(s)
        with tb.loop(c(0), w.n_kv, c(1)) as j:
            g = w.g(j)
            tb.mbarrier_wait_parity(b.s_full[s], g)
            tb.fence("tcgen05_after_sync")
            tb.copy_async(rs, tm["s"][s], scope="warpgroup")
            if residual < BLOCK_N:
                with tb.when(cmp("eq", j, c(last))):
                    tb.reg_mask(rs, rs, arith.constant(idx, residual), "residual")
            if cfg.causal:  # key k0 + col > query q0 + row: col > row + (q0 - k0), q0 - k0 = 128 (qt - j) <= 0
                with tb.when(cmp("uge", j, qt)):
                    bound = arith.muli(arith.subi(qt, j), c(BLOCK_M))
                    tb.reg_mask(rs, rs, arith.index_cast(idx, bound), "causal")
            tb.reg_reduce(m_new, rs, kind="max", axis=1)
            tb.reg_max(m_new, m_new, m)
            tb.reg_mul(m_c, m_new, c_row)
            tb.reg_exp2(alpha, m, c_log2, m_c)
            tb.reg_exp2(rs, rs, c_log2, m_c)
            tb.reg_reduce(l_tile, rs, kind="sum", axis=1)
            tb.reg_fma(l, l, alpha, l_tile)
            tb.reg_max(m, m_new, m_new)
            with tb.when(cmp("ugt", j, c(0))):
                tb.copy(alpha_s[s], alpha, scope="warpgroup")
                tb.mbarrier_arrive(b.alpha_full[s])
            tb.convert(rp, rs, "rn")
            tb.copy_async(tm["p"][s], rp, scope="warpgroup")
            tb.fence("tcgen05_before_sync")
            tb.mbarrier_arrive(b.p_full[s])
        tb.copy(k.ring(arith.andi(w.i, c(1)), l_s[s]), l, scope="warpgroup")
        if m_s is not None:
            tb.copy(k.ring(arith.andi(w.i, c(1)), m_s[s]), m_c, scope="warpgroup")
        tb.mbarrier_arrive(b.l_full[s])


def correction(k: Ctx, alpha_s, l_s, box, O, tid, m_s=None, lse=None):
    """Warps 12-15, thread 384 + r on row r of both query tiles, per unit: arrive p_full[0], p_full[1] (O_0, O_1
    free: this warpgroup read the previous unit's in its epilogue); per key tile j > 0 and query tile s, once
    alpha_j is in shared memory (alpha_full[s]) and O_s holds tiles 0..j-1 (o_done[s]), O_s *= alpha_j (tcgen05.ld
    64 columns, mul, tcgen05.st), arrive p_full[s]. Epilogue, per query tile s after the unit's last: l (l_full[s])
    and the last PV (o_done[s]), O_s / l (rcp.approx of l), to bf16 / f16 one 64-column box at a time through one
    128B-swizzled staging box between two named barriers of the warpgroup (thread 384 saw the previous box's TMA
    store read it; all 128 threads wrote theirs), thread 384 stores the box with TMA (rows past seq_q clipped) and
    waits until the copy engine has read it. With `lse` (the LSE tensor, its staging row): the log-sum-exp
    ln 2 (m c + log2 l) (lg2.approx), stored with tile s's first box."""
    cfg, c, b, tm = k.cfg, k.c, k.bars, k.tm
    lay = lambda cols: rows(cols, CORRECTION_WARP0)  # noqa: E731
    ro = tb.alloc_reg(buf_t("reg", (BLOCK_M, CHUNK), "f32", lay(CHUNK)))
    ra = tb.alloc_reg(buf_t("reg", (BLOCK_M, 1), "f32", lay(1)))
    rout = tb.alloc_reg(buf_t("reg", (BLOCK_M, CHUNK), cfg.dtype, lay(CHUNK)))
    box_t = buf_t("shared", (BLOCK_M, ATOM), cfg.dtype, f"Swizzle<128B> o S[({BLOCK_M}, {ATOM}) : ({ATOM}, 1)]", 1024)
    box_rows = tb.reinterpret(box, box_t)
    chunks = [[(0, BLOCK_M), (h * CHUNK, (h + 1) * CHUNK)] for h in range(cfg.head_dim // CHUNK)]
    halves = ATOM // CHUNK  # chunks of a staging box
    leader = cmp("eq", tid, c(32 * CORRECTION_WARP0))
    if lse is not None:
        f32 = ir.F32Type.get()
        rm, rt, ln2 = (tb.alloc_reg(buf_t("reg", (BLOCK_M, 1), "f32", lay(1))) for _ in range(3))
        tb.reg_fill(ln2, arith.constant(f32, float(LN2)))
        lse_row = tb.reinterpret(lse[1], buf_t("shared", (BLOCK_M, 1), "f32", "S[(128, 1) : (1, 1)]", 128))
    with k.units() as w:
        for s in range(Q_TILES):
            tb.mbarrier_arrive(b.p_full[s])
        with tb.loop(c(1), w.n_kv, c(1)) as j:
            g = w.g(j)
            for s in range(Q_TILES):
                tb.mbarrier_wait_parity(b.alpha_full[s], arith.subi(arith.subi(g, w.i), c(1)))
                tb.mbarrier_wait_parity(b.o_done[s], k.minus1(g))
                tb.fence("tcgen05_after_sync")
                tb.copy(ra, alpha_s[s], scope="warpgroup")
                for cols in chunks:
                    tb.copy_async(ro, tm["o"][s], scope="warpgroup", src_region=cols)
                    tb.reg_mul(ro, ro, ra)
                    tb.copy_async(tm["o"][s], ro, scope="warpgroup", dst_region=cols)
                tb.fence("tcgen05_before_sync")
                tb.mbarrier_arrive(b.p_full[s])
        for s in range(Q_TILES):
            tb.mbarrier_wait_parity(b.l_full[s], w.i)
            tb.mbarrier_wait_parity(b.o_done[s], k.minus1(arith.addi(w.base, w.n_kv)))
            tb.fence("tcgen05_after_sync")
            tb.copy(ra, k.ring(arith.andi(w.i, c(1)), l_s[s]), scope="warpgroup")
            if lse is not None:  # ln 2 (m c + log2 l): the natural log of the sum of exp(score * scale)
                tb.copy(rm, k.ring(arith.andi(w.i, c(1)), m_s[s]), scope="warpgroup")
                tb.reg_lg2(rt, ra)
                tb.reg_add(rt, rt, rm)
                tb.reg_mul(rt, rt, ln2)
            tb.reg_rcp(ra, ra, mode="approx")
            for a in range(cfg.head_dim // ATOM):
                tb.named_barrier_sync(id=EPILOGUE_BARRIER, count=128)  # (thread 384 saw the last store read it)
                for h in range(halves):
                    tb.copy_async(ro, tm["o"][s], scope="warpgroup", src_region=chunks[a * halves + h])
                    tb.reg_mul(ro, ro, ra)
                    tb.convert(rout, ro, "rn")
                    tb.copy(box_rows, rout, scope="warpgroup", dst_region=[(0, BLOCK_M), (h * CHUNK, (h + 1) * CHUNK)])
                if lse is not None and a == 0:
                    tb.copy(lse_row, rt, scope="warpgroup")
                tb.fence("proxy_async")  # generic-proxy stores that the copy engine reads
                tb.named_barrier_sync(id=EPILOGUE_BARRIER, count=128)
                with tb.when(leader):
                    dst = tb.subview(O, [w.bh, w.q0(s), c(a * ATOM)], static_offsets=[-1, -1, -1],
                                     sizes=[1, BLOCK_M, ATOM])
                    tb.copy_async(dst, box)
                    if lse is not None and a == 0:
                        tb.copy_async(tb.subview(lse[0], [w.bh, w.q0(s)], static_offsets=[-1, -1],
                                                 sizes=[1, BLOCK_M]), lse[1])
                    tb.bulk_wait(0, kind="read")
        tb.fence("tcgen05_before_sync")  # (the epilogue's tcgen05.ld waits come before the next unit's arrives)
