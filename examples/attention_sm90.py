#!/usr/bin/env python3
"""FlashAttention-3-style attention forward for Hopper (sm_90a) in the tile dialect, built with the keyword
builders. docs/attention-hopper.md goes through it.

    python examples/attention_sm90.py --dtype bf16 --heads 2 --seq 256 --head-dim 64            # tile IR
    python examples/attention_sm90.py --dtype f16 --heads 4 --kv-heads 2 --seq 200 --causal --run sim
    python examples/attention_sm90.py --dtype bf16 --heads 2 --seq 300 --causal --consumers 3 --run sim

O[b, h] = softmax(Q[b, h] K[b, h / g]^T / sqrt(d)) V[b, h / g] (g = heads / kv_heads, grouped-query heads),
with the log-sum-exp of each row (natural log) as an optional second output. Tensors are [batch * heads,
seq, head_dim] (K, V: batch * kv_heads), fp16 or bf16, the output in the input type.

Persistent (the default): one CTA per SM (at most the work units) walking query tiles of block_m rows of one
head, a head's tiles one after another so that its K and V stay in L2; with the causal mask the unit is a pair
of query tiles, a long one and a short one (q - 1 - p, p), so that the units have (about) the same number of
key tiles (`causal_pairs`). persistent=False: one CTA per tile, grid q tiles x batch * heads, causal: the
longest first. 128 (1 + N) threads, N = `consumers` (2 or 3, block_m = 64 N; by default 3 at head dim 64 but
causal below 4096 queries, else 2: `default_consumers`):
  * warpgroup 0, the producer (setmaxnreg.dec to 24 registers; 32 with 3 consumers): one thread loads the Q
    tile once and the K and V tiles of block_n keys through two rings of `stages` stages by TMA (a box of 64
    columns is one 128-byte swizzle row, so head dim 128 takes two boxes per tile), the keys' tiles last to
    first;
  * warpgroups 1 .. N, the consumers (setmaxnreg.inc to 240; 160 with 3): 64 query rows each, S = Q K^T by
    wgmma from shared memory into registers, the online softmax in those registers, P converted to fp16 /
    bf16 in place and O += P V by wgmma with A from registers (V^T an MN-major view of the V tile), O in
    registers; they issue their products in turn (round robin);
  * the first key tiles visited (the last keys) are the only ones that need a mask: the sequence's residual
    columns (TMA filled them with zeros) in the first and, with the causal mask, the tiles that cross the
    diagonal (`masked_visits`: 1 where block_m = block_n; 2 for 192 rows over 128 keys);
  * epilogue: O / rowsum converted, written to shared memory (the consumer's rows of the Q tile, no longer
    read) and stored by TMA, clipped at the sequence's end; the log-sum-exp the same way.
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))

import numpy as np  # noqa: E402

DTYPES = ("bf16", "f16")
BOX = 64  # columns of a TMA box: one 128-byte swizzle row of 16-bit elements
SMEM_LIMIT = 232448  # bytes of shared memory a CTA may have on sm_90
H100_SMS = 132  # (the H100 and the H200 alike)
# setmaxnreg (producer, consumers) by the count of consumer warpgroups: 128 x 24 + 256 x 240 and
# 128 x 32 + 384 x 160 registers fit the SM's 64K (FlashAttention-3's split for three consumers)
REGS = {2: (24, 240), 3: (32, 160)}
TURN_BARRIER = 1  # named barriers 1 .. N: the N consumers' turns to issue products (0 is the CTA's)
# N + 1 .. 2N: a consumer's threads wrote its rows of O (and the LSE) to shared memory


def default_consumers(head_dim: int, causal: bool, seq_q: int) -> int:
    """Consumer warpgroups unless the config names them: three (192-row query tiles) at head dim 64, except with
    the causal mask below 4096 queries, else two. Measured on an H100 against two (bench/results/
    attention-sm90-2026-12-07-c-h100-consumers.txt, docs/attention-hopper.md §6): three won at every d 64 shape
    but causal 1k (0.61 of cuDNN against 0.97: the pair walk's units are unequal with 192-row query tiles over
    128-key tiles, and a 1k sequence pads to 1152 rows)."""
    return 3 if head_dim == 64 and not (causal and seq_q < 4096) else 2


def default_block_n(head_dim: int, causal: bool, consumers: int) -> int:
    """Keys per K / V tile unless the config names one. Two consumers: 192 for head dim 64 without the causal
    mask (half the products per exponential of d 128: longer key tiles amortise the per-tile work; measured
    in docs/attention-hopper.md), else 128. Three consumers have 160 registers a thread: S, P and O of 128
    keys fit them at head dim 64, at head dim 128 only 64 keys do (ptxas -v: no spills; 96 keys spill)."""
    if consumers == 3:
        return 128 if head_dim == 64 else 64
    return 192 if head_dim == 64 and not causal else 128


@dataclass(frozen=True)
class AttnConfig:
    """One kernel: the problem and the tiling."""
    dtype: str  # bf16 | f16
    batch: int
    heads: int
    seq_q: int
    seq_k: int
    head_dim: int
    kv_heads: int = 0  # 0: heads (no grouping)
    causal: bool = False
    lse: bool = False
    stages: int = 2
    consumers: int = 0  # consumer warpgroups, 64 query rows each (block_m = 64 x consumers): 2 or 3; 0:
    # default_consumers
    block_n: int = 0  # keys per K / V tile; 0: default_block_n
    persistent: bool = True  # one CTA per SM walking the (query tile, head) tiles (with the causal mask pairs of
    # them); False: one CTA per tile (measured slower with and without the mask: docs/attention-hopper.md §6)
    ctas: int = H100_SMS  # persistent: at most this many CTAs

    def __post_init__(self):
        if not self.kv_heads:
            object.__setattr__(self, "kv_heads", self.heads)
        if not self.consumers:
            object.__setattr__(self, "consumers", default_consumers(self.head_dim, self.causal, self.seq_q))
        if not self.block_n:
            object.__setattr__(self, "block_n", default_block_n(self.head_dim, self.causal, self.consumers))
        if self.consumers not in REGS:
            raise ValueError(f"consumers must be one of {', '.join(map(str, REGS))}, got {self.consumers}")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if self.head_dim not in (64, 128):
            raise ValueError(f"head_dim must be 64 or 128, got {self.head_dim}")
        if min(self.batch, self.heads, self.kv_heads, self.seq_q, self.seq_k) < 1:
            raise ValueError("batch, heads, kv_heads and the sequence lengths must be positive")
        if self.heads % self.kv_heads:
            raise ValueError(f"heads ({self.heads}) must be a multiple of kv_heads ({self.kv_heads})")
        if self.causal and self.seq_q != self.seq_k:
            raise ValueError("the causal mask needs seq_q == seq_k here")
        if self.block_n % 16 or not 16 <= self.block_n <= 256:
            raise ValueError(f"block_n={self.block_n}: a multiple of 16 in 16..256 (wgmma's N, TMA's box)")
        if self.stages < 2 or self.smem_bytes > SMEM_LIMIT:
            raise ValueError(f"{self.stages} stages: at least 2, within {SMEM_LIMIT} bytes of shared memory")

    @property
    def lse_cols(self) -> int:
        """Columns of the LSE tensor [batch * heads, lse_cols]: seq_q rounded up to 4, so that its rows are
        16-byte multiples (TMA's global strides); the columns past seq_q hold the LSE of the query rows TMA
        filled with zeros (ln of their visible keys' count)."""
        return -(-self.seq_q // 4) * 4

    @property
    def causal_pairs(self) -> int:
        """Units of one head's query tiles in the persistent causal walk: pairs of a long and a short tile
        (q - 1 - p, p), of q + 1 key tiles each (q odd: tile q - 1 alone, then pairs of q key tiles)."""
        return -(-self.q_tiles // 2)

    @property
    def grid(self) -> int:
        """CTAs of the persistent kernel: at most one per work unit (a tile, or with the mask a pair)."""
        units = self.causal_pairs if self.causal else self.q_tiles
        return min(self.ctas, units * self.batch * self.heads)

    @property
    def group(self) -> int:
        return self.heads // self.kv_heads

    @property
    def block_m(self) -> int:
        """Query rows of a CTA's tile: 64 per consumer warpgroup."""
        return 64 * self.consumers

    @property
    def threads(self) -> int:
        return 128 * (1 + self.consumers)

    def n_tiles(self, qt: int) -> int:
        """Key tiles query tile qt visits: all, or (causal) those up to its last row's diagonal."""
        if not self.causal:
            return self.k_tiles
        return min(self.k_tiles, -(-(qt + 1) * self.block_m // self.block_n))

    @functools.cached_property
    def masked_visits(self) -> int:
        """The most visits of a query tile that need a mask (they come first: the key tiles last to first): the
        residual key tile, and (causal) the key tiles with a key after the tile's first row."""
        if not self.causal:
            return 1
        bm, bn = self.block_m, self.block_n
        return max(sum((j + 1) * bn - 1 > qt * bm for j in range(self.n_tiles(qt))) for qt in range(self.q_tiles))

    @functools.cached_property
    def floor_max(self) -> bool:
        """(causal) Whether a row of some query tile sees no key of its first visited tile (block_m != block_n):
        its row maximum is then floored at the lowest f32 (attention_sm90_softmax.F32_LOWEST), so that its P
        is 0, not NaN (2^(-inf + inf))."""
        return self.causal and any((self.n_tiles(qt) - 1) * self.block_n > qt * self.block_m
                                   for qt in range(self.q_tiles))

    @property
    def q_tiles(self) -> int:
        return -(-self.seq_q // self.block_m)

    @property
    def k_tiles(self) -> int:
        return -(-self.seq_k // self.block_n)

    @property
    def tile_bytes(self) -> int:
        return self.block_n * self.head_dim * 2

    @property
    def smem_bytes(self) -> int:
        q = self.block_m * self.head_dim * 2
        staging = self.consumers * 64 * self.head_dim * 2 if self.persistent else 0  # (O's own staging tiles)
        lse = self.consumers * 64 * 4 * 4 if self.lse else 0
        return q + 2 * self.stages * self.tile_bytes + staging + lse + 16 * (4 * self.stages + 2) + 1024

    @property
    def scale_log2(self) -> float:
        """softmax's scale 1 / sqrt(d) times log2(e), in f32: the exponent is taken base 2 (ex2)."""
        return float(np.float32(1.0 / math.sqrt(self.head_dim) * math.log2(math.e)))

    @property
    def name(self) -> str:
        g = f"_g{self.group}" if self.group > 1 else ""
        auto = default_block_n(self.head_dim, self.causal, self.consumers)
        tiling = f"_c{self.consumers}" if self.consumers != 2 else ""
        tiling += f"_n{self.block_n}" if self.block_n != auto else ""
        tiling += f"_s{self.stages}" if self.stages != 2 else ""
        tiling += "_persistent" if self.persistent else ""
        return (f"attention_sm90_{self.dtype}_d{self.head_dim}{'_causal' if self.causal else ''}{g}"
                f"{'_lse' if self.lse else ''}{tiling}_{self.seq_q}x{self.seq_k}")

    def flops(self) -> float:
        """4 b h sq sk d (two products), halved by the causal mask (as FlashAttention's benchmarks count)."""
        f = 4.0 * self.batch * self.heads * self.seq_q * self.seq_k * self.head_dim
        return f / 2 if self.causal else f


def acc_layout(n: int, warp0: int) -> str:
    """The wgmma m64nN accumulator fragment (docs/registers.md §1) of the warpgroup whose first warp is warp0;
    a 16-bit tile of the same layout is the A of the next wgmma (docs/gemm.md §3c)."""
    return f"S[(4, 2, 8, {n // 8}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)] + O[{warp0}@warpid]"


def smem_layout(rows: int, cols: int, mn_major: bool = False) -> str:
    """A [rows, cols] tile of 16-bit elements as TMA writes boxes of 64 columns side by side, 128B-swizzled
    (K-major: cols is the K dim); mn_major: its transpose [cols, rows] as the MN-major operand view."""
    if mn_major:  # element (c, r) of the view is element (r, c) of the tile
        return (f"Swizzle<128B> o S[({cols}, {rows}) : (1, {cols})]" if cols <= BOX else
                f"Swizzle<128B> o S[({cols // BOX}, {BOX}, {rows}) : ({BOX * rows}, 1, {BOX})]")
    return (f"Swizzle<128B> o S[({rows}, {cols}) : ({cols}, 1)]" if cols <= BOX else
            f"Swizzle<128B> o S[({rows}, {cols // BOX}, {BOX}) : ({BOX}, {BOX * rows}, 1)]")


# ------------------------------------------------------------------------------------------ building
class _B:
    """The builders plus i32 arithmetic."""

    def __init__(self):
        from tile_mlir.dialect import builders as tb
        from tile_mlir.mlir import arith, ir, scf
        self.tb, self.arith, self.ir, self.scf = tb, arith, ir, scf
        self.i32 = ir.IntegerType.get_signless(32)
        self.i1 = ir.IntegerType.get_signless(1)

    def c(self, v: int):
        return self.arith.ConstantOp(self.i32, v).result

    def flag(self, v: bool):
        return self.arith.ConstantOp(self.i1, int(v)).result

    def op(self, name: str, a, b):
        return getattr(self.arith, name)(a, b).result

    def cmp(self, pred: str, a, b):
        return self.arith.CmpIOp(getattr(self.arith.CmpIPredicate, pred), a, b).result


def build(cfg: AttnConfig, softmax: bool = True):
    """The tile IR module of cfg's kernel. softmax=False leaves out the softmax (P = S, O = sum_j S_j V_j, not
    normalised): the data movement and both products alone, for tests."""
    from tile_mlir.frontend.context import make_context
    from tile_mlir.mlir import ir

    ctx = make_context()
    with ctx, ir.Location.unknown(ctx):
        b = _B()
        module = ir.Module.create()
        _kernel(b, module, cfg, softmax)
    return module


def _kernel(b: _B, module, cfg: AttnConfig, softmax: bool) -> None:
    tb = b.tb
    el, d, bm, bn, st = cfg.dtype, cfg.head_dim, cfg.block_m, cfg.block_n, cfg.stages
    bh, bhk = cfg.batch * cfg.heads, cfg.batch * cfg.kv_heads
    q_t = tb.buffer_t("global", (bh, cfg.seq_q, d), el)
    kv_t = tb.buffer_t("global", (bhk, cfg.seq_k, d), el)
    params = {"Q": q_t, "K": kv_t, "V": kv_t, "O": q_t}
    if cfg.lse:
        params["LSE"] = tb.buffer_t("global", (bh, cfg.lse_cols), "f32")
    grid = (cfg.grid, 1, 1) if cfg.persistent else (cfg.q_tiles, bh, 1)
    with tb.kernel(module, cfg.name, params, block=(cfg.threads, 1, 1), grid=grid) as (_, args):
        k = SimpleNamespace(q=args[0], k=args[1], v=args[2], o=args[3], lse=args[4] if cfg.lse else None)
        for g, rows in ((k.q, bm), (k.k, bn), (k.v, bn)):
            tb.tensor_map(g, [1, rows, BOX], swizzle="128B")
        tb.tensor_map(k.o, [1, 64, BOX], swizzle="128B")
        if cfg.lse:
            tb.tensor_map(k.lse, [1, 64])
        tile_t = lambda rows: tb.buffer_t("shared", (rows, d), el, smem_layout(rows, d), align=1024)  # noqa: E731
        k.sq_t, k.skv_t, k.bar_t = tile_t(bm), tile_t(bn), tb.buffer_t("shared", (1,), "i64")
        k.vt_t = tb.buffer_t("shared", (d, bn), el, smem_layout(bn, d, mn_major=True), align=1024)
        k.sq = tb.alloc_shared(k.sq_t)
        k.sk = [tb.alloc_shared(k.skv_t) for _ in range(st)]
        k.sv = [tb.alloc_shared(k.skv_t) for _ in range(st)]
        # O's staging: the consumer's rows of the Q tile (read for the last time by then), or, persistent, a
        # tile of its own (the producer loads the next Q meanwhile)
        nc = cfg.consumers
        k.so = [tb.alloc_shared(tile_t(64)) for _ in range(nc)] if cfg.persistent else None
        slse_t = tb.buffer_t("shared", (64, 4), "f32", "S[(64, 4) : (1, 64)]", align=128)
        k.slse = [tb.alloc_shared(slse_t) for _ in range(nc)] if cfg.lse else None
        k.q_full, k.q_empty = tb.alloc_shared(k.bar_t), tb.alloc_shared(k.bar_t)
        k.k_full, k.k_empty, k.v_full, k.v_empty = ([tb.alloc_shared(k.bar_t) for _ in range(st)] for _ in range(4))
        k.tid = tb.thread_id()
        with tb.when(b.cmp("eq", k.tid, b.c(0))):
            tb.mbarrier_init(k.q_full, 1)
            tb.mbarrier_init(k.q_empty, nc)  # the consumers' leaders, after their tile's last S
            for s in range(st):
                for bar in (k.k_full[s], k.v_full[s]):
                    tb.mbarrier_init(bar, 1)
                for bar in (k.k_empty[s], k.v_empty[s]):
                    tb.mbarrier_init(bar, nc)
        tb.barrier()
        k.ring = lambda i, bufs, t: tb.ring_stage(b.op("RemUIOp", i, b.c(st)), bufs, result_type=t)  # noqa: E731
        k.parity = lambda i: b.op("DivUIOp", i, b.c(st))  # noqa: E731  (wait_parity reads bit 0)
        wg = b.op("DivUIOp", tb.warp_id(), b.c(4))
        producer_regs, consumer_regs = REGS[nc]
        with tb.when(b.cmp("eq", wg, b.c(0))):
            tb.setmaxnreg("dec", producer_regs)
            with tb.when(b.cmp("eq", k.tid, b.c(0))):
                _producer(b, cfg, k)
        with tb.when(b.cmp("ne", wg, b.c(0))):
            tb.setmaxnreg("inc", consumer_regs)
        for c in range(1, nc + 1):
            with tb.when(b.cmp("eq", wg, b.c(c))):
                _consumer(b, cfg, k, c, softmax)
        tb.ret()


@contextmanager
def _tiles(b, cfg):
    """The CTA's work tiles: yields (it, qt, head, kv_head, m0, n_tiles, g0) inside the loop body: the tile's
    count among the CTA's (q_full's parity), its query tile and head, the key tiles it visits and the ring
    position of its first. One tile from the block ids (causal: the longest query tiles first); persistent,
    with g and the count carried from tile to tile (scf.for iter_args): without the mask tiles t = bid,
    bid + grid, ..., a head's query tiles one after another; with it, the pair units of `causal_units`."""
    tb = b.tb
    if not cfg.persistent:
        w = _tile(b, cfg, b.c(0), b.c(0), tb.block_id("x"), tb.block_id("y"))
        yield w
        return
    bid = tb.block_id("x")
    if not cfg.causal:  # a head's query tiles one after another (its K and V stay in L2)
        loop = b.scf.ForOp(bid, b.c(cfg.q_tiles * cfg.batch * cfg.heads), b.c(cfg.grid), [b.c(0), b.c(0)])
        with b.ir.InsertionPoint(loop.body):
            t, g0, it = loop.induction_variable, *loop.inner_iter_args
            w = _tile(b, cfg, it, g0, b.op("RemUIOp", t, b.c(cfg.q_tiles)), b.op("DivUIOp", t, b.c(cfg.q_tiles)))
            yield w
            b.scf.YieldOp([b.op("AddIOp", g0, w.n_tiles), b.op("AddIOp", it, b.c(1))])
        return
    # causal: units u = bid, bid + grid, ...; unit u is pair p of head u / pairs: query tiles q - 1 - p and p
    # (q even; q odd: q - 1 alone for p = 0, else q - 1 - p and p - 1), each unit q + 1 (q) key tiles in all
    pairs = cfg.causal_pairs
    outer = b.scf.ForOp(bid, b.c(cfg.batch * cfg.heads * pairs), b.c(cfg.grid), [b.c(0), b.c(0)])
    with b.ir.InsertionPoint(outer.body):
        u, g_u, it_u = outer.induction_variable, *outer.inner_iter_args
        head, p = b.op("DivUIOp", u, b.c(pairs)), b.op("RemUIOp", u, b.c(pairs))
        hi = b.op("SubIOp", b.c(cfg.q_tiles - 1), p)
        odd = cfg.q_tiles % 2
        lo = b.op("SubIOp", p, b.c(odd))
        count = b.op("AddIOp", b.c(1), b.op("MinUIOp", p, b.c(1))) if odd else b.c(2)  # (q odd, p = 0: 1 tile)
        inner = b.scf.ForOp(b.c(0), count, b.c(1), [g_u, it_u])
        with b.ir.InsertionPoint(inner.body):
            j, g0, it = inner.induction_variable, *inner.inner_iter_args
            qt = b.op("SubIOp", hi, b.op("MulIOp", j, b.op("SubIOp", hi, lo)))  # j = 0: hi, 1: lo
            w = _tile(b, cfg, it, g0, qt, head, reversed_qt=False)
            yield w
            b.scf.YieldOp([b.op("AddIOp", g0, w.n_tiles), b.op("AddIOp", it, b.c(1))])
        b.scf.YieldOp(list(inner.results))


def _tile(b, cfg, it, g0, qt, head, reversed_qt=True):
    """The work of query tile qt (causal and reversed_qt: q_tiles - 1 - qt, the longest first) of head."""
    if cfg.causal and reversed_qt:
        qt = b.op("SubIOp", b.c(cfg.q_tiles - 1), qt)
    m0 = b.op("MulIOp", qt, b.c(cfg.block_m))
    kv_head = head
    if cfg.group > 1:  # batch * kv_heads + head / g
        kv_head = b.op("AddIOp", b.op("MulIOp", b.op("DivUIOp", head, b.c(cfg.heads)), b.c(cfg.kv_heads)),
                       b.op("DivUIOp", b.op("RemUIOp", head, b.c(cfg.heads)), b.c(cfg.group)))
    # key tiles (AttnConfig.n_tiles): all, or (causal) those up to the diagonal of the tile's last row: 0 .. qt
    # (block_m = block_n), else 0 .. ceil((m0 + block_m) / block_n) - 1
    n_tiles = b.c(cfg.k_tiles)
    if cfg.causal:
        last = (b.op("AddIOp", qt, b.c(1)) if cfg.block_m == cfg.block_n else
                b.op("DivUIOp", b.op("AddIOp", m0, b.c(cfg.block_m + cfg.block_n - 1)), b.c(cfg.block_n)))
        n_tiles = b.op("MinUIOp", n_tiles, last)
    return SimpleNamespace(it=it, qt=qt, head=head, kv_head=kv_head, m0=m0, n_tiles=n_tiles, g0=g0)


def _producer(b, cfg, k):
    """One thread, per tile: the Q tile (once the consumers have read the previous one), then key tiles
    n - 1 .. 0 into the K and V rings (the g-th load: stage g % S, once every consumer released it)."""
    tb, d, bn = b.tb, cfg.head_dim, cfg.block_n
    with _tiles(b, cfg) as w:
        def load(dst, src, row0, rows, bar):  # a [rows, d] tile as d / 64 boxes of [rows, 64]
            for h in range(d // BOX):
                win = tb.subview(src, [w.head if src is k.q else w.kv_head, row0], static_offsets=[-1, -1, h * BOX],
                                 sizes=[1, rows, BOX])
                tb.copy_async(dst, win, bar, dst_region=[(0, rows), (h * BOX, (h + 1) * BOX)])
        if cfg.persistent:
            tb.mbarrier_wait_parity(k.q_empty, b.op("XOrIOp", w.it, b.c(1)))
        tb.mbarrier_arrive_expect_tx(k.q_full, cfg.block_m * d * 2)
        load(k.sq, k.q, w.m0, cfg.block_m, k.q_full)
        with tb.loop(b.c(0), w.n_tiles, b.c(1)) as i:
            g = b.op("AddIOp", w.g0, i)
            n0 = b.op("MulIOp", b.op("SubIOp", b.op("SubIOp", w.n_tiles, i), b.c(1)), b.c(bn))
            for full, empty, bufs, src in ((k.k_full, k.k_empty, k.sk, k.k), (k.v_full, k.v_empty, k.sv, k.v)):
                tb.mbarrier_wait_parity(k.ring(g, empty, k.bar_t), b.op("XOrIOp", k.parity(g), b.c(1)))
                bar = k.ring(g, full, k.bar_t)
                tb.mbarrier_arrive_expect_tx(bar, cfg.tile_bytes)
                load(k.ring(g, bufs, k.skv_t), src, n0, bn, bar)


def _consumer(b, cfg, k, c, softmax):
    """Consumer warpgroup c (rows r0 .. r0 + 63 of each tile). Visit i takes key tile n - 1 - i from ring
    position g = g0 + i. Per visit i >= 1 (FlashAttention-3's intra-warpgroup overlap): S_i = Q K_i^T and
    O += P_{i-1} V_{i-1} are issued together, the first waited for (wgmma groups complete in order), S_i's
    softmax runs while the tensor cores do P V, then O is rescaled and P_i converted. Between the N
    warpgroups (pingpong, round robin), a warpgroup issues its products only after the previous one (c - 1,
    for 1: N) issued its own (named barrier c, bar.arrive by the previous), so one's softmax runs under the
    others' products. The first cfg.masked_visits visits are masked (those key tiles may cross the diagonal),
    the rest are not: two loops of the same body."""
    tb, d, bn, el, nc = b.tb, cfg.head_dim, cfg.block_n, cfg.dtype, cfg.consumers
    r0 = 64 * (c - 1)  # this warpgroup's rows of the tile
    s_t = tb.buffer_t("reg", (64, bn), "f32", acc_layout(bn, 4 * c))
    p_t = tb.buffer_t("reg", (64, bn), el, acc_layout(bn, 4 * c))
    o_t = tb.buffer_t("reg", (64, d), "f32", acc_layout(d, 4 * c))
    out_t = tb.buffer_t("reg", (64, d), el, acc_layout(d, 4 * c))
    s, p, o, out = tb.alloc_reg(s_t), tb.alloc_reg(p_t), tb.alloc_reg(o_t), tb.alloc_reg(out_t)
    leader = b.cmp("eq", k.tid, b.c(128 * c))
    from attention_sm90_softmax import OnlineSoftmax
    sm = OnlineSoftmax(b, cfg, c, s, o) if softmax else None

    def my_turn():  # wait until the previous warpgroup has issued its products
        tb.named_barrier_sync(id=TURN_BARRIER + c - 1, count=256)

    def your_turn():  # the next one's turn
        tb.named_barrier_arrive(id=TURN_BARRIER + c % nc, count=256)

    def release(g, empty):
        with tb.when(leader):
            tb.mbarrier_arrive(k.ring(g, empty, k.bar_t))
    if c == nc:  # warpgroup 1 issues first
        your_turn()
    with _tiles(b, cfg) as w:
        def qk(g):
            tb.mbarrier_wait_parity(k.ring(g, k.k_full, k.bar_t), k.parity(g))
            tb.gemm_async(s, k.sq, k.ring(g, k.sk, k.skv_t), b.flag(False), scope="warpgroup",
                          a_region=[(r0, r0 + 64), (0, d)])

        def pv(g, accumulate):
            tb.mbarrier_wait_parity(k.ring(g, k.v_full, k.bar_t), k.parity(g))
            tb.gemm_async(o, p, tb.reinterpret(k.ring(g, k.sv, k.skv_t), k.vt_t), accumulate, scope="warpgroup")
        tb.mbarrier_wait_parity(k.q_full, w.it)
        my_turn()
        qk(w.g0)
        your_turn()
        tb.gemm_wait(0)
        release(w.g0, k.k_empty)
        if sm is not None:
            sm.first(w.n_tiles, w.m0, r0)
        tb.convert(p, s, "rn")

        def visit(i, masked):
            g = b.op("AddIOp", w.g0, i)
            prev = b.op("SubIOp", g, b.c(1))
            my_turn()
            qk(g)
            pv(prev, b.cmp("ugt", i, b.c(1)))
            your_turn()
            tb.gemm_wait(1)  # S_i is done (P V still running)
            release(g, k.k_empty)
            if sm is not None:
                if masked:  # key tile n - 1 - i
                    sm.mask(b.op("SubIOp", b.op("SubIOp", w.n_tiles, i), b.c(1)), w.m0, r0)
                sm.step()
            tb.gemm_wait(0)
            release(prev, k.v_empty)
            if sm is not None:
                sm.rescale()
            tb.convert(p, s, "rn")
        start = b.c(1)
        if cfg.masked_visits > 1 and sm is not None:
            start = b.op("MinUIOp", w.n_tiles, b.c(cfg.masked_visits))
            with tb.loop(b.c(1), start, b.c(1)) as i:
                visit(i, True)
        with tb.loop(start, w.n_tiles, b.c(1)) as i:
            visit(i, False)
        if cfg.persistent:  # the tile's last S is done: the producer may load the next Q
            with tb.when(leader):
                tb.mbarrier_arrive(k.q_empty)
        last = b.op("SubIOp", b.op("AddIOp", w.g0, w.n_tiles), b.c(1))
        my_turn()
        pv(last, b.cmp("ugt", w.n_tiles, b.c(1)))
        your_turn()
        tb.gemm_wait(0)
        release(last, k.v_empty)
        if sm is not None:
            sm.finish()
        tb.convert(out, o, "rn")
        _epilogue(b, cfg, k, c, out, leader, w.head, w.m0, r0, sm)
    if c == 1:  # the arrival warpgroup 2 made after its last products
        my_turn()
    with tb.when(leader):
        tb.bulk_wait(0, kind="read")  # the stores read shared memory: the CTA stays until they have


def _epilogue(b, cfg, k, c, out, leader, head, m0, r0, sm):
    """O's 64 rows (and the LSE) into shared memory, then the leader's TMA stores (d / 64 boxes of [64, 64]),
    clipped at the sequence's end. The staging is the consumer's rows of the Q tile (its last product has read
    them) or, persistent, its own tile, free once the previous tile's stores have read it."""
    tb, d = b.tb, cfg.head_dim
    bar = dict(id=TURN_BARRIER + cfg.consumers + c - 1, count=128)  # this warpgroup's threads
    if cfg.persistent:
        with tb.when(leader):
            tb.bulk_wait(0, kind="read")
        tb.named_barrier_sync(**bar)
        stage, rows = k.so[c - 1], (0, 64)
    else:
        stage, rows = k.sq, (r0, r0 + 64)
    tb.copy(stage, out, "warpgroup", dst_region=[rows, (0, d)])
    lse = sm is not None and cfg.lse
    if lse:
        sm.stage_lse(k.slse[c - 1])
    tb.fence("proxy_async")  # (generic-proxy stores that the copy engine reads)
    tb.named_barrier_sync(**bar)
    with tb.when(leader):
        row = b.op("AddIOp", m0, b.c(r0))
        for h in range(d // BOX):
            win = tb.subview(k.o, [head, row], static_offsets=[-1, -1, h * BOX], sizes=[1, 64, BOX])
            tb.copy_async(win, stage, src_region=[rows, (h * BOX, (h + 1) * BOX)])
        if lse:
            win = tb.subview(k.lse, [head, row], static_offsets=[-1, -1], sizes=[1, 64])
            col0 = tb.reinterpret(k.slse[c - 1], tb.buffer_t("shared", (64, 1), "f32", "S[(64, 1) : (1, 1)]",
                                                             align=128))
            tb.copy_async(win, col0)


# ------------------------------------------------------------------------------------------ running
def random_inputs(cfg: AttnConfig, seed: int = 0):
    import ml_dtypes
    rng = np.random.default_rng(seed)
    t = ml_dtypes.bfloat16 if cfg.dtype == "bf16" else np.float16
    bh, bhk = cfg.batch * cfg.heads, cfg.batch * cfg.kv_heads
    q = rng.standard_normal((bh, cfg.seq_q, cfg.head_dim)).astype(t)
    k = rng.standard_normal((bhk, cfg.seq_k, cfg.head_dim)).astype(t)
    v = rng.standard_normal((bhk, cfg.seq_k, cfg.head_dim)).astype(t)
    return q, k, v


def run(cfg: AttnConfig, seed: int = 0, backend: str = "sim", softmax: bool = True):
    """(O, LSE or None, Q, K, V) of cfg's kernel on random inputs through tile_mlir.jit."""
    import tile_mlir

    q, k, v = random_inputs(cfg, seed)
    o = np.zeros(q.shape, q.dtype)
    args = [q, k, v, o]
    lse = None
    if cfg.lse:
        lse = np.zeros((q.shape[0], cfg.lse_cols), np.float32)
        args.append(lse)
    tile_mlir.jit(build(cfg, softmax), arch="sm_90a", backend=backend)(*args)
    return o, lse, q, k, v


def main(argv=None) -> int:
    from example_cli import run_main

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=DTYPES, default="bf16")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--kv-heads", type=int, default=0)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--head-dim", type=int, choices=(64, 128), default=64)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--lse", action="store_true")
    p.add_argument("--consumers", type=int, choices=(2, 3), default=0,
                   help="consumer warpgroups of 64 query rows each (default: by head dim and length)")
    p.add_argument("--ptx", action="store_true", help="print the PTX instead of the tile IR")
    p.add_argument("--run", choices=("sim", "gpu"), help="run on random inputs and compare with the model")
    args = p.parse_args(argv)
    return run_main(p, lambda: _main(p, args))


def _main(p, args) -> int:
    try:
        cfg = AttnConfig(args.dtype, args.batch, args.heads, args.seq, args.seq, args.head_dim,
                         kv_heads=args.kv_heads, causal=args.causal, lse=args.lse, consumers=args.consumers)
    except ValueError as e:
        p.error(str(e))
    if args.run:
        import attention_reference as ref
        o, lse, q, k, v = run(cfg, backend=args.run)
        return ref.report(cfg, o, lse, q, k, v)
    from gemm_reference import module_text
    print(module_text(build(cfg), "sm_90a", cfg.name, args.ptx))
    return 0


if __name__ == "__main__":
    sys.exit(main())
