"""numpy models of examples/attention_sm100.py's kernel: `model` computes what the kernel computes, in its own order
of operations and roundings (tile-sim must match it bit for bit), `reference` the exact attention in float64.

The kernel's arithmetic, per 128-row query tile and per key tile j in order (docs/attention-walkthrough.md §1).
A CTA's two query tiles 2t, 2t + 1 read the same key tiles (causal: up to tile 2t + 1's diagonal), so with the
causal mask tile 2t also reads key tile 2t + 1, masked whole (m stays, p = 0, alpha = ex2(fma(m, c, -(m c))),
O += 0 V), as FlashAttention-4 does:

    S      = Q K_j^T                                 tcgen05.mma kind::f16, fp32 (MMA-Sim's Blackwell model)
    s      = -inf where key k >= seq_k, or (causal) k > query q
    m_new  = max(m, rowmax(s))                       max.f32 (exact, any order)
    neg    = -(m_new * c)                            c = scale * log2(e) rounded to fp32; mul.f32, neg.f32
    p      = ex2.approx.ftz(fma(s, c, neg))          fma.rn.f32, then tile-sim's model of ex2.approx.ftz.f32
    corr   = ex2.approx.ftz(fma(m, c, neg))          (j > 0; m the previous max)
    l      = fma(l, corr, rowsum(p))                 (j = 0: l = rowsum(p)); rowsum: row_sum's order
    O      = O * corr                                (j > 0) mul.f32 on every element, tcgen05.ld / st
    O     += bf16|f16(p) V_j                         cvt.rn, tcgen05.mma .ts, fp32
and at the end out = cvt.rn(O * rcp(l)).

Nothing here imports MLIR: the float64 reference and the model run where numpy runs. The model's tensor-core
arithmetic and ex2 are tile-sim's (tile_mlir.sim.mma_numerics, tile_mlir.sim.approx_math), whose own tests check
them against MMA-Sim and against values measured on an H200.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

BLOCK_M = BLOCK_N = 128
LOG2E = math.log2(math.e)
LN2 = np.float32(math.log(2.0))
# |O - O_float64| allowed for standard-normal Q, K, V: bf16 keeps 8 significant bits (O's rounding and P's, at
# |O| < 4), fp16 11; the largest measured on tile-sim: 7.3e-3 (bf16), 1.5e-4 (f16)
TOLERANCE = {"bf16": 1.6e-2, "f16": 2e-3}
LSE_TOLERANCE = 1e-4  # |LSE - LSE_float64|: scores of fp32 MMAs, lg2.approx (2^-22 absolute), |LSE| < 30 here


def softmax_scale_log2(head_dim: int, scale: float | None = None) -> np.float32:
    """The exponent's factor c = scale * log2(e) as the kernel holds it: one fp32 constant."""
    return np.float32((1.0 / math.sqrt(head_dim) if scale is None else scale) * LOG2E)


# ------------------------------------------------------------------------------------------ fp32 primitives
def fma_f32(a, b, c) -> np.ndarray:
    """fma.rn.f32 elementwise: a * b + c rounded once. a * b is exact in float64 (2 x 24 bits); the float64 sum is
    rounded to odd (its error found by two-sum) and then to fp32, which equals one rounding of the exact sum
    (53 >= 24 + 2 bits). Infinities and NaNs as IEEE."""
    a, b, c = (np.asarray(x, np.float32).astype(np.float64) for x in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):
        p = a * b
        s = p + c
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        bits = s.view(np.int64)
        fix = np.isfinite(s) & (err != 0) & ((bits & 1) == 0)
        toward = np.where((err > 0) == (s > 0), 1, -1)  # away from zero when err has s's sign
        s = np.where(fix, (bits + np.where(s == 0, 0, toward)).view(np.float64), s)
        return s.astype(np.float32)


def ex2_f32(x) -> np.ndarray:
    """ex2.approx.ftz.f32 as tile-sim computes it (tile_mlir.sim.approx_math, its model of the MUFU unit)."""
    from tile_mlir.sim.approx_math import ex2_f32 as sim_ex2

    bits = np.asarray(x, np.float32).view(np.uint32)
    return np.asarray(sim_ex2(bits, True), np.uint32).view(np.float32)


def rcp_f32(x) -> np.ndarray:
    """rcp.approx.ftz.f32 as tile-sim computes it."""
    from tile_mlir.sim.approx_math import rcp_f32 as sim_rcp

    bits = np.asarray(x, np.float32).view(np.uint32)
    return np.asarray(sim_rcp(bits, True), np.uint32).view(np.float32)


def lg2_f32(x) -> np.ndarray:
    """lg2.approx.ftz.f32 as tile-sim computes it."""
    from tile_mlir.sim.approx_math import lg2_f32 as sim_lg2

    bits = np.asarray(x, np.float32).view(np.uint32)
    return np.asarray(sim_lg2(bits, True), np.uint32).view(np.float32)


def row_sum(p: np.ndarray) -> np.ndarray:
    """The in-thread sum of each row as tile.reg.reduce adds (docs/registers.md §9, step A): the values in
    ascending column, folded in halves -- n values, h = ceil(n / 2), v[i] += v[i + h] for i < n - h, until one is
    left (add.rn.f32 in fp32 throughout)."""
    v = np.array(p, np.float32, copy=True)
    n = v.shape[1]
    while n > 1:
        h = (n + 1) // 2
        v[:, :n - h] = v[:, :n - h] + v[:, h:n]
        n = h
    return v[:, 0]


def _bits16(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint16).astype(np.uint32)


def mma(a: np.ndarray, b_t: np.ndarray, c: np.ndarray | None, elem: str) -> np.ndarray:
    """D = A B + C of tcgen05.mma kind::f16 with fp32 D over the whole K of A (M x K) and B^T (K x N): the K steps of
    one or several MMAs onto one D (tile-sim's MMA-Sim arithmetic, mma_numerics.tcgen05_chain)."""
    from tile_mlir.sim import mma_numerics

    c_bits = np.zeros((a.shape[0], b_t.shape[1]), np.uint32) if c is None else c.view(np.uint32)
    d = mma_numerics.tcgen05_chain("f16", "f32", elem, elem, _bits16(a), _bits16(b_t), c_bits)
    return np.asarray(d, np.uint32).view(np.float32)


# ------------------------------------------------------------------------------------------ the kernel's model
def _tile(x: np.ndarray, r0: int, rows: int) -> np.ndarray:
    """Rows r0 .. r0 + rows - 1 of x, zero past its end (TMA's fill)."""
    out = np.zeros((rows,) + x.shape[1:], x.dtype)
    part = x[r0:r0 + rows]
    out[:len(part)] = part
    return out


def model(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, heads: int, kv_heads: int, causal: bool,
          scale: float | None = None, lse: bool = False):
    """O (as q's dtype, shape (batch * heads, seq_q, head_dim)) as the kernel computes it bit for bit;
    q (batch * heads, seq_q, d), k and v (batch * kv_heads, seq_k, d). With `lse`, (O, the log-sum-exp
    (batch * heads, seq_q) f32: ln 2 (m c + lg2.approx(l)), add.rn and mul.rn)."""
    dt = q.dtype
    elem = "bf16" if dt == ml_dtypes.bfloat16 else "f16"
    bh_q, seq_q, d = q.shape
    seq_k = k.shape[1]
    group = heads // kv_heads
    c = softmax_scale_log2(d, scale)
    out = np.zeros_like(q)
    out_lse = np.zeros(q.shape[:2], np.float32)
    kv_tiles = -(-seq_k // BLOCK_N)
    q_tiles = -(-seq_q // BLOCK_M)
    rows = np.arange(q_tiles * BLOCK_M)[:, None]
    for bh in range(bh_q):  # (a head's query tiles at once: every row's arithmetic is its own)
        g = bh // group
        qs = _tile(q[bh], 0, q_tiles * BLOCK_M)
        m = l = o = None
        for j in range(min(kv_tiles, 2 * (-(-q_tiles // 2))) if causal else kv_tiles):
            # the query tiles that read key tile j: all, or (causal) those of the pairs from tile j's on
            sl = slice(2 * (j // 2) * BLOCK_M if causal else 0, None)
            ks, vs = _tile(k[g], j * BLOCK_N, BLOCK_N), _tile(v[g], j * BLOCK_N, BLOCK_N)
            s = mma(qs[sl], ks.T, None, elem)
            cols = np.arange(BLOCK_N)[None, :] + j * BLOCK_N
            masked = cols >= seq_k
            if causal:
                masked = masked | (cols > rows[sl])
            s = np.where(masked, np.float32(-np.inf), s)
            m_new = s.max(axis=1) if m is None else np.maximum(m[sl], s.max(axis=1))
            neg = -(m_new * c)
            p = ex2_f32(fma_f32(s, c, neg[:, None]))
            if m is None:
                l, o = row_sum(p), mma(p.astype(dt), vs, None, elem)
                m = m_new
                continue
            corr = ex2_f32(fma_f32(m[sl], c, neg))
            l[sl] = fma_f32(l[sl], corr, row_sum(p))
            o[sl] = mma(p.astype(dt), vs, o[sl] * corr[:, None], elem)
            m[sl] = m_new
        res = (o * rcp_f32(l)[:, None]).astype(dt)
        out[bh] = res[:seq_q]
        out_lse[bh] = (((m * c) + lg2_f32(l)) * np.float32(LN2))[:seq_q]
    return (out, out_lse) if lse else out


# ------------------------------------------------------------------------------------------ float64 reference
def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, heads: int, kv_heads: int, causal: bool,
              scale: float | None = None, lse: bool = False):
    """softmax(Q K^T scale (+ mask: keys k > query q with causal)) V in float64 from the same fp16/bf16 inputs; with
    `lse`, (that, log(sum_k exp(score * scale)) per query row)."""
    d = q.shape[-1]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    group = heads // kv_heads
    qf, kf, vf = (x.astype(np.float64) for x in (q, k, v))
    kf, vf = np.repeat(kf, group, axis=0), np.repeat(vf, group, axis=0)
    s = np.einsum("bqd,bkd->bqk", qf, kf) * scale
    if causal:
        s = np.where(np.arange(s.shape[2])[None, :] > np.arange(s.shape[1])[:, None], -np.inf, s)
    mx = s.max(axis=2, keepdims=True)
    p = np.exp(s - mx)
    o = np.einsum("bqk,bkd->bqd", p / p.sum(axis=2, keepdims=True), vf)
    return (o, mx[..., 0] + np.log(p.sum(axis=2))) if lse else o
