"""The warp roles of examples/attention_sm100.py's kernel, each a loop over the CTA's work units (a query tile of
one head) and, inside it, over the unit's key tiles; docs/attention-walkthrough.md §2 draws their barriers.

Counts that run on across units: the CTA's i-th unit starts at key tile `base` (the key tiles of its earlier units,
carried by the unit loop), so key tile j of it is the CTA's g = base + j; the K/V ring stage and parity, the S
buffer and the phases of the per-tile barriers come from g; alpha_full and o_ready complete once per key tile after
a unit's first, a = base - i + j - 1 times before tile j; the per-unit barriers (q_full, q_empty, l_full, o_empty)
have phase i.
"""
from __future__ import annotations

from contextlib import contextmanager

from attention_sm100_model import softmax_scale_log2
from tile_mlir.dialect import builders as tb
from tile_mlir.mlir import arith, ir, scf

BLOCK_M = BLOCK_N = 128
ATOM = 64  # elements of a 128-byte swizzle row (16-bit): a TMA box's inner extent
SOFTMAX_WARP0, CORRECTION_WARP0 = 4, 8
LN2 = 0.6931471805599453  # ln 2, rounded to f32 where the kernel holds it
EPILOGUE_BARRIER = 1  # named barrier of the correction warpgroup (0 is the CTA's)


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
    """One work unit: head bh, query tile qt (of a head's tiles, the longest first: causal tiles read more keys),
    its key-tile count n_kv, the CTA's unit count i and its first key tile `base`."""

    def __init__(self, k: Ctx, u, i, base):
        c, cfg = k.c, k.cfg
        self.i, self.base = i, base
        self.bh = arith.divui(u, c(cfg.q_tiles))
        self.qt = arith.subi(c(cfg.q_tiles - 1), arith.remui(u, c(cfg.q_tiles)))
        self.q0 = arith.muli(self.qt, c(BLOCK_M))
        group = cfg.heads // cfg.kv_heads  # (b * heads + h) / group = b * kv_heads + h / group
        self.kvh = arith.divui(self.bh, c(group)) if group > 1 else self.bh
        # key tiles: all, or (causal, key k <= query q) those up to the query tile's last row
        self.n_kv = c(cfg.kv_tiles) if not cfg.causal else arith.minui(c(cfg.kv_tiles), arith.addi(self.qt, c(1)))

    def g(self, j):
        return arith.addi(self.base, j)


def load(k: Ctx, sq, sk, sv, Q, K, V):
    """Thread 0: per unit the Q tile once the previous unit's S MMAs have read it (q_empty), then K_j, V_j into ring
    stage g % stages once the MMAs of its last use are done (kv_empty); a 128 x head_dim tile is head_dim / 64 TMA
    boxes of 128B-swizzled rows, each at its region of the buffer."""
    c, d, b = k.c, k.cfg.head_dim, k.bars

    def load_tile(dst, glob, row_bh, row0, bar):
        for a in range(d // ATOM):
            src = tb.subview(glob, [row_bh, row0, c(a * ATOM)], static_offsets=[-1, -1, -1], sizes=[1, 128, ATOM])
            tb.copy_async(dst, src, bar, dst_region=[(0, 1), (0, 128), (a * ATOM, (a + 1) * ATOM)])

    with k.units() as w:
        tb.mbarrier_wait_parity(b.q_empty, arith.xori(w.i, c(1)))  # (a fresh barrier passes parity 1)
        tb.mbarrier_arrive_expect_tx(b.q_full, k.cfg.tile_bytes)
        load_tile(sq, Q, w.bh, w.q0, b.q_full)
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
    """Thread 32, per unit: S_0, then per key tile j: S_{j+1} = Q K_{j+1}^T into S[(g + 1) % 2] (its last reader,
    the softmax of tile g - 1, said so on p_full, waited for at tile g - 1) and a commit to its s_full (after the
    unit's last S MMA also to q_empty); once P_j is in tensor memory (p_full) and O is ready (j > 0: rescaled by
    alpha_j, o_ready; j = 0: the previous unit's O read by the epilogue, o_empty), O (+)= P_j V_j (.ts: A = P in
    tensor memory, B = V_j^T MN-major); commits to kv_empty of stage g and to o_done."""
    c, b, tm = k.c, k.bars, k.tm
    false = arith.constant(ir.IntegerType.get_signless(1), 0)

    def s_mma(g):
        s = k.stage(g)
        tb.mbarrier_wait_parity(k.ring(s, b.kv_full), k.parity(g))
        buf = arith.andi(g, c(1))
        tb.gemm_async(k.ring(buf, tm["s"]), sq, k.ring(s, sk), false)
        tb.commit(k.ring(buf, b.s_full), 1)

    with k.units() as w:
        tb.mbarrier_wait_parity(b.q_full, w.i)
        s_mma(w.base)
        with tb.loop(c(0), w.n_kv, c(1)) as j:
            g = w.g(j)
            nxt = arith.addi(j, c(1))
            with tb.when(cmp("ult", nxt, w.n_kv)) as more:
                s_mma(arith.addi(g, c(1)))
            with more.otherwise():
                tb.commit(b.q_empty, 1)  # the unit's S MMAs are issued: Q is free once they complete
            tb.mbarrier_wait_parity(b.p_full, g)
            later = cmp("ugt", j, c(0))
            with tb.when(later) as rescaled:
                tb.mbarrier_wait_parity(b.o_ready, arith.subi(arith.subi(g, w.i), c(1)))
            with rescaled.otherwise():
                tb.mbarrier_wait_parity(b.o_empty, arith.xori(w.i, c(1)))
            s = k.stage(g)
            tb.gemm_async(tm["o"], tm["p"], k.ring(s, svb), later)
            tb.commit(k.ring(s, b.kv_empty), 1)
            tb.commit(b.o_done, 1)


def softmax(k: Ctx, alpha_s, l_s, m_s=None):
    """Warps 4-7, thread 128 + r on query row r, per unit and key tile j (examples/attention_sm100_model.py computes
    the same in numpy): wait s_full, tcgen05.ld S; -inf at keys past seq_k (the last tile) and, causal, above the
    diagonal (tile j = the query tile); m_new = max(m, rowmax S); p = 2^(S c - m_new c) (c = scale log2 e: one fma.rn
    and ex2.approx each); alpha = 2^(m c - m_new c); l = l alpha + rowsum p; then, once the previous key tile's PV
    MMA is done (o_done: P's columns and alpha_s are free again), j > 0: alpha to shared memory, arrive alpha_full;
    P = bf16|f16(p) by tcgen05.st, arrive p_full. After the unit's last tile: l to l_s[i % 2] (and, for the
    log-sum-exp, m c to m_s[i % 2]), arrive l_full."""
    cfg, c, b, tm = k.cfg, k.c, k.bars, k.tm
    f32, idx = ir.F32Type.get(), ir.IndexType.get()
    lay = lambda cols: rows(cols, SOFTMAX_WARP0)  # noqa: E731
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
        with tb.loop(c(0), w.n_kv, c(1)) as j:
            g = w.g(j)
            buf = arith.andi(g, c(1))
            tb.mbarrier_wait_parity(k.ring(buf, b.s_full), arith.divui(g, c(2)))
            tb.fence("tcgen05_after_sync")
            tb.copy_async(rs, k.ring(buf, tm["s"]), scope="warpgroup")
            if residual < BLOCK_N:
                with tb.when(cmp("eq", j, c(last))):
                    tb.reg_mask(rs, rs, arith.constant(idx, residual), "residual")
            if cfg.causal:  # the diagonal tile: key k0 + col > query q0 + row, q0 = k0
                with tb.when(cmp("eq", j, w.qt)):
                    tb.reg_mask(rs, rs, arith.constant(idx, 0), "causal")
            tb.reg_reduce(m_new, rs, kind="max", axis=1)
            tb.reg_max(m_new, m_new, m)
            tb.reg_mul(m_c, m_new, c_row)
            tb.reg_exp2(alpha, m, c_log2, m_c)
            tb.reg_exp2(rs, rs, c_log2, m_c)
            tb.reg_reduce(l_tile, rs, kind="sum", axis=1)
            tb.reg_fma(l, l, alpha, l_tile)
            tb.reg_max(m, m_new, m_new)
            with tb.when(cmp("ugt", g, c(0))):
                tb.mbarrier_wait_parity(b.o_done, k.minus1(g))
                tb.fence("tcgen05_after_sync")
            with tb.when(cmp("ugt", j, c(0))):
                tb.copy(alpha_s, alpha, scope="warpgroup")
                tb.mbarrier_arrive(b.alpha_full)
            tb.convert(rp, rs, "rn")
            tb.copy_async(tm["p"], rp, scope="warpgroup")
            tb.fence("tcgen05_before_sync")
            tb.mbarrier_arrive(b.p_full)
        tb.copy(k.ring(arith.andi(w.i, c(1)), l_s), l, scope="warpgroup")
        if m_s is not None:
            tb.copy(k.ring(arith.andi(w.i, c(1)), m_s), m_c, scope="warpgroup")
        tb.mbarrier_arrive(b.l_full)


def correction(k: Ctx, alpha_s, l_s, so, O, tid, m_s=None, lse=None):
    """Warps 8-11, thread 256 + r on query row r, per unit: per key tile j > 0, once alpha_j is in shared memory
    (alpha_full) and O holds the unit's tiles 0..j-1 (o_done), O *= alpha_j (tcgen05.ld 64 columns, mul, tcgen05.st),
    arrive o_ready. After the unit's last tile: l (l_full), O / l (rcp.approx of l), arrive o_empty (O may be
    overwritten), bf16 / f16 into the staging boxes between two named barriers of the warpgroup (the previous
    unit's TMA store has read them; all 128 threads wrote theirs); thread 256 stores each box with TMA (rows past
    seq_q clipped) and waits until the copy engine has read them. With `lse` (the LSE tensor, its staging row): the
    log-sum-exp ln 2 (m c + log2 l) (lg2.approx), stored the same way."""
    cfg, c, b, tm = k.cfg, k.c, k.bars, k.tm
    lay = lambda cols: rows(cols, CORRECTION_WARP0)  # noqa: E731
    ro = tb.alloc_reg(buf_t("reg", (BLOCK_M, ATOM), "f32", lay(ATOM)))
    ra = tb.alloc_reg(buf_t("reg", (BLOCK_M, 1), "f32", lay(1)))
    rout = tb.alloc_reg(buf_t("reg", (BLOCK_M, ATOM), cfg.dtype, lay(ATOM)))
    box_t = buf_t("shared", (BLOCK_M, ATOM), cfg.dtype, f"Swizzle<128B> o S[({BLOCK_M}, {ATOM}) : ({ATOM}, 1)]", 1024)
    boxes = [tb.reinterpret(box, box_t) for box in so]
    chunks = [[(0, BLOCK_M), (a * ATOM, (a + 1) * ATOM)] for a in range(cfg.head_dim // ATOM)]
    leader = cmp("eq", tid, c(32 * CORRECTION_WARP0))
    if lse is not None:
        f32 = ir.F32Type.get()
        rm, rt, ln2 = (tb.alloc_reg(buf_t("reg", (BLOCK_M, 1), "f32", lay(1))) for _ in range(3))
        tb.reg_fill(ln2, arith.constant(f32, float(LN2)))
        lse_row = tb.reinterpret(lse[1], buf_t("shared", (BLOCK_M, 1), "f32", "S[(128, 1) : (1, 1)]", 128))
    with k.units() as w:
        with tb.loop(c(1), w.n_kv, c(1)) as j:
            g = w.g(j)
            tb.mbarrier_wait_parity(b.alpha_full, arith.subi(arith.subi(g, w.i), c(1)))
            tb.mbarrier_wait_parity(b.o_done, k.minus1(g))
            tb.fence("tcgen05_after_sync")
            tb.copy(ra, alpha_s, scope="warpgroup")
            for cols in chunks:
                tb.copy_async(ro, tm["o"], scope="warpgroup", src_region=cols)
                tb.reg_mul(ro, ro, ra)
                tb.copy_async(tm["o"], ro, scope="warpgroup", dst_region=cols)
            tb.fence("tcgen05_before_sync")
            tb.mbarrier_arrive(b.o_ready)
        tb.mbarrier_wait_parity(b.l_full, w.i)
        tb.mbarrier_wait_parity(b.o_done, k.minus1(arith.addi(w.base, w.n_kv)))
        tb.fence("tcgen05_after_sync")
        tb.copy(ra, k.ring(arith.andi(w.i, c(1)), l_s), scope="warpgroup")
        if lse is not None:  # ln 2 (m c + log2 l): the natural log of the sum of exp(score * scale)
            tb.copy(rm, k.ring(arith.andi(w.i, c(1)), m_s), scope="warpgroup")
            tb.reg_lg2(rt, ra)
            tb.reg_add(rt, rt, rm)
            tb.reg_mul(rt, rt, ln2)
        tb.reg_rcp(ra, ra, mode="approx")
        tb.named_barrier_sync(id=EPILOGUE_BARRIER, count=128)  # (thread 256 saw the last store read the boxes)
        for cols, box in zip(chunks, boxes):
            tb.copy_async(ro, tm["o"], scope="warpgroup", src_region=cols)
            tb.reg_mul(ro, ro, ra)
            tb.convert(rout, ro, "rn")
            tb.copy(box, rout, scope="warpgroup")
        if lse is not None:
            tb.copy(lse_row, rt, scope="warpgroup")
        tb.fence("tcgen05_before_sync")  # (the tcgen05.ld waits come before the arrive)
        tb.mbarrier_arrive(b.o_empty)
        tb.fence("proxy_async")  # generic-proxy stores that the copy engine reads
        tb.named_barrier_sync(id=EPILOGUE_BARRIER, count=128)
        with tb.when(leader):
            for a, box in enumerate(so):
                dst = tb.subview(O, [w.bh, w.q0, c(a * ATOM)], static_offsets=[-1, -1, -1], sizes=[1, BLOCK_M, ATOM])
                tb.copy_async(dst, box)
            if lse is not None:
                tb.copy_async(tb.subview(lse[0], [w.bh, w.q0], static_offsets=[-1, -1], sizes=[1, BLOCK_M]), lse[1])
            tb.bulk_wait(0, kind="read")
