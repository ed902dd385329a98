#!/usr/bin/env python3
"""FlashAttention forward for Blackwell (sm_100a) in the tile dialect, FlashAttention-4 style: two query tiles a
CTA, each with its softmax warpgroup, S = Q K^T in tensor memory, P written back over S's columns and consumed from
there by the TS form of tcgen05.mma (O += P V), O accumulated in tensor memory and rescaled there by a correction
warpgroup. docs/attention-walkthrough.md goes through it.

    python examples/attention_sm100.py --seq-q 300 --seq-k 300 --heads 4 --kv-heads 2          # tile IR
    python examples/attention_sm100.py --seq-q 300 --seq-k 300 --causal --lse --ctas 2 --run sim  # vs the model
    python examples/attention_sm100.py --ptx

O[b, h] = softmax(Q[b, h] K[b, g]^T * scale (+ causal mask)) V[b, g] with g = h / (heads / kv_heads) (grouped-query
heads), Q, K, V and O in bf16 or fp16 as (batch * heads, seq, head_dim) row-major tensors; --lse also writes the
log-sum-exp of each query row, (batch * heads, seq_q) in f32. Persistent: grid = min(ctas, work units), a unit
being two 128-row query tiles (Q0, Q1) of one head, which share every K/V tile; CTA b walks units b, b + grid, ...
Warp roles (512 threads, setmaxnreg per warpgroup; docs/attention-walkthrough.md §2 draws the barriers;
examples/attention_sm100_roles.py holds them):
  * warp 0 (thread 0): TMA loads of Q0, Q1 and of K, V tiles of 128 keys through a ring of `stages` stages;
  * warp 1 (thread 32): the MMA issuer, per key tile j alternating the query tiles: O_0 += P_0 V_j, S_0 = Q_0
    K_{j+1}^T, O_1 += P_1 V_j, S_1 = Q_1 K_{j+1}^T, so that one tile's softmax runs under the other's MMAs;
  * warps 4-7 and 8-11, softmax warpgroup s for Q_s (thread r of it owns row r, tensor-memory lane r): tcgen05.ld
    of S_s, the row's online softmax, P_s over S_s's columns by tcgen05.st, the row's rescale factor to the
    correction;
  * warps 12-15, the correction warpgroup (thread 384 + r on row r of both tiles): O_s *= alpha_j in tensor memory
    (tcgen05.ld, multiply, tcgen05.st) between the PV MMAs of tiles j - 1 and j, off the softmaxes' path; at the
    end O_s / l to bf16/fp16 through a swizzled shared box and TMA stores.
Sequences of any length: TMA fills rows past a tensor's sequence with zeros, the length mask sets the scores of
keys past seq_k to -inf, the TMA store writes only the rows below seq_q.
Only the builder's own integers reach the IR (no user strings).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))

import numpy as np  # noqa: E402

from tile_mlir.dialect import builders as tb  # noqa: E402
import attention_sm100_roles as roles  # noqa: E402
from tile_mlir.mlir import arith, ir  # noqa: E402

DTYPES = {"bf16": "bf16", "f16": "f16"}  # the option's name -> the buffers' element type
BLOCK_M = 128  # query rows of a tile: one TMEM lane each (the M = 128 data path, PTX ISA 9.7.16.10.5.4)
Q_TILES = roles.Q_TILES  # query tiles of a unit: Q0, Q1
BLOCK_N = 128  # keys of a K/V tile: S's columns, P's K
ATOM = 64  # elements of a 128-byte swizzle row (16-bit): a TMA box's inner extent
SMEM_LIMIT = 227 * 1024
B200_SMS = 148


@dataclass(frozen=True)
class AttentionConfig:
    """One kernel: the problem and the schedule."""
    dtype: str = "bf16"
    batch: int = 1
    heads: int = 1
    kv_heads: int = 1
    seq_q: int = 128
    seq_k: int = 128
    head_dim: int = 128
    causal: bool = False
    stages: int = 2  # K/V ring stages
    ctas: int = B200_SMS  # at most this many CTAs, each walking work units (query tiles of a head)
    lse: bool = False  # also write the log-sum-exp of each query row's scaled scores, (batch * heads, seq_q) f32

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if min(self.batch, self.heads, self.kv_heads, self.seq_q, self.seq_k) < 1:
            raise ValueError("batch, heads, kv_heads, seq_q and seq_k must be positive")
        if self.heads % self.kv_heads:
            raise ValueError(f"heads={self.heads} must be a multiple of kv_heads={self.kv_heads} (grouped-query "
                             "heads share a K/V head)")
        if self.head_dim not in (64, 128):
            raise ValueError(f"head_dim={self.head_dim}: 64 or 128")
        if self.ctas < 1:
            raise ValueError("ctas must be positive")
        if self.stages < 2:
            raise ValueError(f"stages={self.stages}: the K/V ring needs at least 2 stages (the MMA thread issues "
                             "S_{j+1} = Q K_{j+1}^T before O += P_j V_j frees stage j)")
        if self.smem_bytes > SMEM_LIMIT:
            raise ValueError(f"{self.stages} stages need {self.smem_bytes} bytes of shared memory, more than a "
                             f"CTA's {SMEM_LIMIT}: use fewer stages")

    @property
    def scale(self) -> float:
        """The softmax scale 1/sqrt(head_dim)."""
        return 1.0 / math.sqrt(self.head_dim)

    @property
    def q_tiles(self) -> int:
        return -(-self.seq_q // BLOCK_M)

    @property
    def kv_tiles(self) -> int:
        return -(-self.seq_k // BLOCK_N)

    @property
    def q_pairs(self) -> int:
        """A head's units: pairs of query tiles (the last one's Q1 past seq_q when q_tiles is odd)."""
        return -(-self.q_tiles // Q_TILES)

    @property
    def units(self) -> int:
        """Work units: the query-tile pairs of every head."""
        return self.q_pairs * self.batch * self.heads

    @property
    def grid(self) -> tuple[int, int, int]:
        return (min(self.ctas, self.units), 1, 1)

    @property
    def tile_bytes(self) -> int:
        """One 128-row tile of Q, K or V."""
        return 128 * self.head_dim * 2

    @property
    def smem_bytes(self) -> int:
        """Q0, Q1, the K/V ring, the epilogue's staging box (128 x 64), alpha, l and m c of both tiles, the
        log-sum-exp row, barriers; an upper bound (+ alignment)."""
        return (self.tile_bytes * (Q_TILES + 2 * self.stages) + BLOCK_M * ATOM * 2 + 11 * 512
                + 8 * (2 * self.stages + 13) + 4 + 1024)

    # tensor memory, per query tile s: S_s (128 f32 columns; P_s, two 16-bit values a column, over its first 64),
    # O_s (head_dim columns): S_0 0, S_1 128, O_0 256, O_1 256 + head_dim -- all 512 columns at head_dim 128
    def s_col(self, s: int) -> int:
        return s * BLOCK_N

    def p_col(self, s: int) -> int:
        return self.s_col(s)

    def o_col(self, s: int) -> int:
        return Q_TILES * BLOCK_N + s * self.head_dim

    @property
    def tmem_cols(self) -> int:
        used = self.o_col(Q_TILES - 1) + self.head_dim
        return 1 << max(5, (used - 1).bit_length())

    @property
    def name(self) -> str:
        return (f"attention_sm100_{self.dtype}_d{self.head_dim}_{self.seq_q}x{self.seq_k}"
                + ("_causal" if self.causal else "") + ("_lse" if self.lse else ""))


# ------------------------------------------------------------------------------------------ building
def build(cfg: AttentionConfig, context=None):
    """The tile IR module of cfg's kernel (in `context`, default a new tile_mlir context)."""
    from tile_mlir.frontend.context import make_context

    ctx = context or make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        _kernel(module, cfg)
    return module


def _buf(scope: str, shape, elem: str, layout: str | None = None, align: int | None = None):
    return tb.buffer_t(scope, shape, elem, layout, align=align)


def _cmp(pred: str, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def _tile_smem(cfg: AttentionConfig):
    """A 128-row tile of Q, K or V as TMA writes it: head_dim / 64 boxes of 128 rows x 128 bytes (128B swizzle),
    box a at byte a * 16384; the leading 1 is the (batch * heads) dim of the tensor's box."""
    d, atoms = cfg.head_dim, cfg.head_dim // ATOM
    inner = (f"S[(1, 128, {atoms}, {ATOM}) : ({128 * d}, {ATOM}, {128 * ATOM}, 1)]" if atoms > 1
             else f"S[(1, 128, {ATOM}) : ({128 * ATOM}, {ATOM}, 1)]")
    return _buf("shared", (1, 128, d), cfg.dtype, "Swizzle<128B> o " + inner, 1024)


def _v_as_b(cfg: AttentionConfig):
    """The same bytes as _tile_smem, viewed as the B operand of O += P V: B[n, k] = V[key k, dim n], N = head_dim
    by K = 128 keys, MN-major (contiguous along the head dim) -- 64 dims a swizzle row, 8192 elements between the
    boxes of 64 dims (the descriptor's LBO), 64 elements between keys."""
    d, atoms = cfg.head_dim, cfg.head_dim // ATOM
    inner = (f"S[({atoms}, {ATOM}, 128) : ({128 * ATOM}, 1, {ATOM})]" if atoms > 1
             else f"S[({ATOM}, 128) : (1, {ATOM})]")
    return _buf("shared", (d, 128), cfg.dtype, "Swizzle<128B> o " + inner, 1024)


THREADS = 512  # warps 0-3: load (warp 0), MMA (warp 1); 4-7 softmax of Q0, 8-11 of Q1; 12-15 correction, epilogue
# setmaxnreg a thread, by warpgroup (load / MMA, softmax 0, softmax 1, correction): 128 x (56 + 2 x 200 + 56) = 64K,
# a CTA's register file (each starts at 65536 / 512 = 128). Measured with ptxas 13 (sm_100a): the softmax spills at
# 192 (S, P and the row's state live at once), the load / MMA warps at 48 with --lse; none spills at these counts
OTHER_REGS, SOFTMAX_REGS, CORRECTION_REGS = 56, 200, 56


class _Bars:
    """The mbarriers between the roles (docs/attention-walkthrough.md §2), each with its arrival count."""

    def __init__(self, st: int, bar_t):
        one = lambda: tb.alloc_shared(bar_t)  # noqa: E731
        two = lambda: [one() for _ in range(Q_TILES)]  # noqa: E731  (one a query tile)
        self.q_full, self.q_empty = two(), one()  # TMA bytes of Q_s; commit after a unit's last S MMA
        self.kv_full = [one() for _ in range(st)]  # TMA bytes of K_j and V_j
        self.kv_empty = [one() for _ in range(st)]  # commit: the MMAs reading the stage are done
        self.s_full, self.o_done = two(), two()  # commit: S_s is in tensor memory; commit after O_s += P_s V
        # 256 arrivals: P_s in tensor memory (its softmax) and O_s ready for the PV MMA (the correction)
        self.p_full = two()
        # 128 arrivals of a softmax warpgroup: alpha, l in shared memory
        self.alpha_full, self.l_full = two(), two()

    def counts(self):
        ones = [*self.q_full, self.q_empty, *self.kv_full, *self.kv_empty, *self.s_full, *self.o_done]
        return ([(b, 1) for b in ones] + [(b, 256) for b in self.p_full]
                + [(b, 128) for b in (*self.alpha_full, *self.l_full)])


def _kernel(module, cfg: AttentionConfig) -> None:
    d, st, el = cfg.head_dim, cfg.stages, cfg.dtype
    bh_q, bh_kv = cfg.batch * cfg.heads, cfg.batch * cfg.kv_heads
    params = {"Q": _buf("global", (bh_q, cfg.seq_q, d), el), "K": _buf("global", (bh_kv, cfg.seq_k, d), el),
              "V": _buf("global", (bh_kv, cfg.seq_k, d), el), "O": _buf("global", (bh_q, cfg.seq_q, d), el)}
    if cfg.lse:
        params["LSE"] = _buf("global", (bh_q, cfg.seq_q), "f32")
    tile_t, vb_t = _tile_smem(cfg), _v_as_b(cfg)
    stage_t = _buf("shared", (1, 128, ATOM), el, f"Swizzle<128B> o S[(1, 128, {ATOM}) : ({128 * ATOM}, {ATOM}, 1)]",
                   1024)  # the epilogue's staging box: 128 rows x 64 columns of O
    row_smem_t = _buf("shared", (BLOCK_M, 1), "f32", "S[(128, 1) : (1, 1)]", 16)
    s_t = _buf("tmem", (BLOCK_M, BLOCK_N), "f32", f"S[({BLOCK_M}, {BLOCK_N}) : (1@TLane, 1@TCol)]")
    o_t = _buf("tmem", (BLOCK_M, d), "f32", f"S[({BLOCK_M}, {d}) : (1@TLane, 1@TCol)]")
    p_t = _buf("tmem", (BLOCK_M, BLOCK_N), el, f"S[({BLOCK_M}, {BLOCK_N}) : (1@TLane, 1@TCol)]")
    with tb.kernel(module, cfg.name, params, block=(THREADS, 1, 1), grid=cfg.grid) as (kern, args):
        Q, K, V, O = args[:4]
        c = tb.Constants(kern.regions[0].blocks[0])
        for buf in (Q, K, V, O):
            tb.tensor_map(buf, (1, 128, ATOM), swizzle="128B")
        lse = None
        if cfg.lse:  # (the log-sum-exp: one row of 128 f32 a unit, stored from its staging buffer by TMA)
            tb.tensor_map(args[4], (1, BLOCK_M))
            lse = (args[4], tb.alloc_shared(_buf("shared", (1, BLOCK_M), "f32", "S[(1, 128) : (128, 1)]", 128)))
        sq = [tb.alloc_shared(tile_t) for _ in range(Q_TILES)]
        sk = [tb.alloc_shared(tile_t) for _ in range(st)]
        sv = [tb.alloc_shared(tile_t) for _ in range(st)]
        svb = [tb.reinterpret(s, vb_t) for s in sv]
        so = tb.alloc_shared(stage_t)
        # softmax s -> correction: a row's rescale factor; its l and scaled maximum m c (by unit parity)
        alpha_s = [tb.alloc_shared(row_smem_t) for _ in range(Q_TILES)]
        l_s = [[tb.alloc_shared(row_smem_t) for _ in range(2)] for _ in range(Q_TILES)]
        m_s = [[tb.alloc_shared(row_smem_t) for _ in range(2)] for _ in range(Q_TILES)] if cfg.lse else None
        bars = _Bars(st, _buf("shared", (1,), "i64"))
        slot = tb.alloc_shared(_buf("shared", (1,), "i32"))
        tid, warp = tb.thread_id(), tb.warp_id()
        is_mma_warp = _cmp("eq", warp, c(1))
        # set-up: warp 1 allocates tensor memory, thread 0 initialises the barriers; the CTA meets between the
        # fences that order the allocation for every tcgen05 op
        with tb.when(is_mma_warp):
            tb.tmem_alloc(slot, cfg.tmem_cols, 1)
        with tb.when(_cmp("eq", tid, c(0))):
            for bar, count in bars.counts():
                tb.mbarrier_init(bar, count)
        tb.fence("tcgen05_before_sync")
        tb.barrier()
        tb.fence("tcgen05_after_sync")
        tm = {key: [tb.tmem_buffer(slot, t, col_offset=col(s)) for s in range(Q_TILES)]
              for key, t, col in (("s", s_t, cfg.s_col), ("p", p_t, cfg.p_col), ("o", o_t, cfg.o_col))}
        k = roles.Ctx(cfg, c, bars, tm)
        wg = arith.divui(warp, c(4))
        with tb.when(_cmp("eq", wg, c(0))):
            tb.setmaxnreg("dec", OTHER_REGS)
            with tb.when(_cmp("eq", tid, c(0))):
                roles.load(k, sq, sk, sv, Q, K, V)
            with tb.when(_cmp("eq", tid, c(32))):
                roles.mma(k, sq, sk, svb)
        with tb.when(_cmp("eq", wg, c(roles.CORRECTION_WARP0 // 4))):
            tb.setmaxnreg("dec", CORRECTION_REGS)
            roles.correction(k, alpha_s, l_s, so, O, tid, m_s, lse)
        for s in range(Q_TILES):
            with tb.when(_cmp("eq", wg, c(roles.SOFTMAX_WARP0[s] // 4))):
                tb.setmaxnreg("inc", SOFTMAX_REGS)
                roles.softmax(k, s, alpha_s, l_s, m_s)
        tb.fence("tcgen05_before_sync")
        tb.barrier()
        with tb.when(is_mma_warp):  # every MMA completed (the correction warpgroup saw the last o_done)
            tb.fence("tcgen05_after_sync")
            tb.tmem_relinquish(1)
            tb.tmem_dealloc(slot, cfg.tmem_cols, 1)
        tb.ret()


# ------------------------------------------------------------------------------------------ checking
def operands(cfg: AttentionConfig, seed: int = 0) -> dict:
    """Random Q, K, V (normal, in the kernel's element type) by parameter name."""
    import ml_dtypes

    rng = np.random.default_rng(seed)
    dt = ml_dtypes.bfloat16 if cfg.dtype == "bf16" else np.float16
    shape_q = (cfg.batch * cfg.heads, cfg.seq_q, cfg.head_dim)
    shape_kv = (cfg.batch * cfg.kv_heads, cfg.seq_k, cfg.head_dim)
    return {"Q": rng.standard_normal(shape_q).astype(dt), "K": rng.standard_normal(shape_kv).astype(dt),
            "V": rng.standard_normal(shape_kv).astype(dt)}


def run(cfg: AttentionConfig, seed: int = 0, backend: str = "sim", args: dict | None = None):
    """(O, the operands) of cfg's kernel through tile_mlir.jit; with cfg.lse the log-sum-exp is the operands'
    "LSE"."""
    import tile_mlir

    args = args or operands(cfg, seed)
    o = np.zeros((cfg.batch * cfg.heads, cfg.seq_q, cfg.head_dim), args["Q"].dtype)
    outs = [o] + ([np.zeros((cfg.batch * cfg.heads, cfg.seq_q), np.float32)] if cfg.lse else [])
    tile_mlir.jit(build(cfg), arch="sm_100a", backend=backend)(args["Q"], args["K"], args["V"], *outs)
    if cfg.lse:
        args = {**args, "LSE": outs[1]}
    return o, args


def main(argv=None) -> int:
    from example_cli import int_in, run_main

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    p.add_argument("--batch", type=int_in(1, 65535), default=1)
    p.add_argument("--heads", type=int_in(1, 65535), default=1)
    p.add_argument("--kv-heads", type=int_in(1, 65535), default=None, help="K/V heads (default: --heads)")
    p.add_argument("--seq-q", type=int_in(1, 1 << 31), default=256)
    p.add_argument("--seq-k", type=int_in(1, 1 << 31), default=256)
    p.add_argument("--head-dim", type=int, choices=(64, 128), default=128)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--lse", action="store_true", help="also write the log-sum-exp (batch * heads, seq_q) in f32")
    p.add_argument("--stages", type=int_in(0, 8), default=2)
    p.add_argument("--ctas", type=int_in(1, 65535), default=B200_SMS, help="at most this many CTAs (the GPU's SMs)")
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX instead of the tile IR")
    p.add_argument("--run", choices=("sim",), help="run on tile-sim with random operands; compare O bit for bit "
                   "with the model and with float64 within the stated tolerance")
    args = p.parse_args(argv)
    return run_main(p, lambda: _main(p, args))


def _main(p, args) -> int:
    from attention_sm100_model import LSE_TOLERANCE, TOLERANCE, model, reference

    try:
        cfg = AttentionConfig(args.dtype, args.batch, args.heads, args.kv_heads or args.heads, args.seq_q, args.seq_k,
                              args.head_dim, args.causal, args.stages, args.ctas, args.lse)
    except ValueError as e:
        p.error(str(e))
    if args.run:
        o, ops = run(cfg, backend=args.run)
        kw = {"heads": cfg.heads, "kv_heads": cfg.kv_heads, "causal": cfg.causal, "lse": cfg.lse}
        want, ref = (f(ops["Q"], ops["K"], ops["V"], **kw) for f in (model, reference))
        ok = True
        if cfg.lse:
            (want, want_lse), (ref, ref_lse) = want, ref
            lse_differ = int((ops["LSE"].view(np.uint32) != want_lse.view(np.uint32)).sum())
            lse_err = float(np.abs(ops["LSE"] - ref_lse).max())
            ok = lse_differ == 0 and lse_err <= LSE_TOLERANCE
            print(f"log-sum-exp: {lse_differ} of {ops['LSE'].size} differ from the model; max |LSE - float64| = "
                  f"{lse_err:.3g} (tolerance {LSE_TOLERANCE:g})")
        differ = int((o.view(np.uint16) != want.view(np.uint16)).sum())
        err = float(np.abs(o.astype(np.float64) - ref).max())
        ok = ok and differ == 0 and err <= TOLERANCE[cfg.dtype]
        print(f"{cfg.name} ({cfg.grid[0]} CTAs, {cfg.units} units) on tile-sim: {differ} of {o.size} elements differ from "
              f"the model; max |O - float64| = {err:.3g} (tolerance {TOLERANCE[cfg.dtype]:g}): "
              f"{'ok' if ok else 'FAILED'}")
        return 0 if ok else 1
    import tile_mlir

    module = build(cfg)
    print(tile_mlir.compile(module, arch="sm_100a").ptx if args.ptx else module)
    return 0


if __name__ == "__main__":
    sys.exit(main())
