"""The online softmax of examples/attention_sm90.py's consumer warpgroups, on the tile.reg ops
(docs/registers.md §8-§9; docs/attention-hopper.md §3-§4): per visit of a key tile, the row maximum, the
rescale factor, P = 2^(S scale_log2 - m scale_log2), the row sum; at the end O / l and the log-sum-exp.
examples/attention_reference.py models each step in the same order."""
from __future__ import annotations

import math

import numpy as np

LN2 = float(np.float32(math.log(2.0)))
F32_LOWEST = float(np.finfo(np.float32).min)  # the floor of a row maximum whose first visit masks it whole


class OnlineSoftmax:
    """The online softmax of one consumer warpgroup on its S tile (64 x block_n f32 in the wgmma accumulator
    layout, rows spread over 4 lanes each): row values [64, 1] replicated over those lanes. m: the running
    row maximum; ms = m * scale_log2; l: the running row sum; alpha: O's rescale factor of the visit."""

    def __init__(self, b, cfg, c, s, o):
        tb = b.tb
        self.b, self.cfg, self.c, self.s, self.o = b, cfg, c, s, o
        row_t = tb.buffer_t("reg", (64, 1), "f32", f"S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)] + "
                            f"R[4 : 1@laneid] + O[{4 * c}@warpid]")
        self.m, self.ms, self.l, self.mt, self.alpha, self.sc = (tb.alloc_reg(row_t) for _ in range(6))
        self.scale = b.arith.ConstantOp(b.ir.F32Type.get(), cfg.scale_log2).result
        tb.reg_fill(self.sc, self.scale)

    def mask(self, j, m0, r0, residual=False):
        """-inf in S where key n0 + col (n0 = j block_n, key tile j) is after query m0 + r0 + row (causal) or
        (residual) past the sequence's end (TMA's zeros)."""
        b, tb, cfg, s = self.b, self.b.tb, self.cfg, self.s
        n0 = b.op("MulIOp", j, b.c(cfg.block_n))
        index = lambda v: b.arith.IndexCastOp(b.ir.IndexType.get(), v).result  # noqa: E731
        if residual and cfg.seq_k % cfg.block_n:
            tb.reg_mask(s, s, index(b.op("SubIOp", b.c(cfg.seq_k), n0)), "residual")
        if cfg.causal:
            tb.reg_mask(s, s, index(b.op("SubIOp", b.op("AddIOp", m0, b.c(r0)), n0)), "causal")

    def first(self, n_tiles, m0, r0):
        """The first visit (key tile n - 1, the only one with keys past the sequence): mask, m, P, l. A row
        that sees none of its keys (cfg.floor_max) gets m = F32_LOWEST: P = 0 and l = 0, and the next visit's
        alpha = 2^((F32_LOWEST - m_new) scale_log2) = 0."""
        b, tb, cfg, s = self.b, self.b.tb, self.cfg, self.s
        self.mask(b.op("SubIOp", n_tiles, b.c(1)), m0, r0, residual=True)
        tb.reg_reduce(self.m, s, kind="max", axis=1)
        if cfg.floor_max:
            tb.reg_fill(self.mt, b.arith.ConstantOp(b.ir.F32Type.get(), F32_LOWEST).result)
            tb.reg_max(self.m, self.m, self.mt)
        tb.reg_mul(self.ms, self.m, self.sc)
        tb.reg_exp2(s, s, self.scale, self.ms)
        tb.reg_reduce(self.l, s, kind="sum", axis=1)

    def step(self):
        """A later visit: the new maximum, alpha = 2^((m_old - m_new) scale_log2), P, l = l alpha + sum P."""
        tb, s = self.b.tb, self.s
        tb.reg_reduce(self.mt, s, kind="max", axis=1)
        tb.reg_max(self.mt, self.m, self.mt)  # m_new
        tb.reg_sub(self.alpha, self.m, self.mt)
        tb.reg_exp2(self.alpha, self.alpha, self.scale)
        tb.reg_max(self.m, self.m, self.mt)
        tb.reg_mul(self.ms, self.m, self.sc)
        tb.reg_exp2(s, s, self.scale, self.ms)
        tb.reg_reduce(self.mt, s, kind="sum", axis=1)
        tb.reg_fma(self.l, self.l, self.alpha, self.mt)

    def rescale(self):
        """O *= alpha (after the previous P V has completed)."""
        self.b.tb.reg_mul(self.o, self.o, self.alpha)

    def finish(self):
        """O *= rcp(l) (rcp.rn.f32); with the LSE, l becomes lse = (ms + lg2(l)) ln 2 (natural log)."""
        tb = self.b.tb
        tb.reg_rcp(self.mt, self.l)
        tb.reg_mul(self.o, self.o, self.mt)
        if self.cfg.lse:
            tb.reg_lg2(self.l, self.l)
            tb.reg_add(self.l, self.l, self.ms)
            tb.reg_fill(self.mt, self.b.arith.ConstantOp(self.b.ir.F32Type.get(), LN2).result)
            tb.reg_mul(self.l, self.l, self.mt)

    def stage_lse(self, slse):
        """The 64 rows' LSE into the column-major [64, 4] staging tile: each of a row's 4 lanes writes its copy
        into its own column (a register tile copy needs every thread to hold the same slots), so column 0 is
        the 64 contiguous f32 the TMA store reads."""
        tb = self.b.tb
        quad_t = tb.buffer_t("reg", (64, 4), "f32", f"S[(4, 2, 8, 4) : (1@warpid, 1@reg, 4@laneid, 1@laneid)] + "
                             f"O[{4 * self.c}@warpid]")
        lse = tb.alloc_reg(quad_t)
        tb.reg_max(lse, self.l, self.l)  # (max(x, x) = x: l broadcast along the 4 columns)
        tb.copy(slse, lse, "warpgroup")
