"""numpy models of examples/attention_sm90.py: `model` computes what the kernel computes, in its order of
operations (MMA-Sim's Hopper wgmma model for both products, the f32 roundings of each softmax step,
tile-sim's ex2.approx.ftz model, the row reductions' folding order), so the kernel's output must equal it bit
for bit; `reference` is float64 attention, which both must approach within TOLERANCE.

Per consumer warpgroup (64 query rows) and key tile j (last to first, i = 0 .. n - 1 the visit count):
    S    = wgmma(Q, K_j^T)                                  f32, MMA-Sim (zero C)
    S    = mask(S)  (i = 0 only)                            -inf where col >= seq_k, or (causal) col > row
    mt   = rowmax(S) ; m_new = max(m, mt)                   (max is exact: no order)
    ms   = m_new * scale_log2                               mul.rn
    P    = ex2(fma(S, scale_log2, -ms))                     fma.rn, ex2.approx.ftz (tile-sim's model)
    a    = ex2(mul(m - m_new, scale_log2))                  sub.rn, mul.rn, ex2   (i > 0)
    l    = fma(l, a, rowsum_thread(P)) (i > 0; else the sum) each thread's partial sum of its 32 columns
    O    = O * a (i > 0) ; O = wgmma(bf16(P), V_j, O)
and at the end l is summed over the row's 4 lanes (butterfly 1, 2), O * rcp(l), LSE = (ms + lg2(l)) * ln 2.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

#: |O - O_ref| <= TOLERANCE[dtype] * max|V| (row-wise): P rounded to the input type before P V, ex2.approx
#: (2 ulp), f32 sums; measured margins in docs/attention-hopper.md
TOLERANCE = {"bf16": 2.0 ** -7, "f16": 2.0 ** -10}
LSE_TOLERANCE = 2.0 ** -16  # relative


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint16)


def mma(a: np.ndarray, bt: np.ndarray, c: np.ndarray | None, atype: str) -> np.ndarray:
    """wgmma D = A . Bt^T + C as MMA-Sim's Hopper model gives it: a [64 k, K] (16-bit), bt [N, K], c f32
    [M, N] or None (scale-d 0); K in steps of 16 (the chain the kernel issues)."""
    from tile_mlir.sim import mma_numerics

    m, k = a.shape
    n = bt.shape[0]
    cb = np.zeros((m, n), np.uint32) if c is None else np.ascontiguousarray(c, np.float32).view(np.uint32)
    ab, bb = _bits(a).astype(np.uint32), _bits(bt).T.astype(np.uint32)
    step = k if mma_numerics.fast_wgmma(atype) else 16
    for k0 in range(0, k, step):
        cb = mma_numerics.wgmma("f32", atype, atype, ab[:, k0:k0 + step], bb[k0:k0 + step], cb, n=n, k=step)
    return cb.view(np.float32)


def _padded(x: np.ndarray, rows: int) -> np.ndarray:
    """x [.., s, d] with zero rows up to `rows` (TMA's fill past the sequence's end)."""
    out = np.zeros(x.shape[:-2] + (rows, x.shape[-1]), x.dtype)
    out[..., :x.shape[-2], :] = x
    return out


def model(cfg, q, k, v, softmax: bool = True):
    """(O, LSE or None) as the kernel computes them, bit for bit."""
    atype = cfg.dtype
    t = q.dtype
    bn, bm = cfg.block_n, cfg.block_m
    kp, vp = _padded(k, cfg.k_tiles * bn), _padded(v, cfg.k_tiles * bn)
    qp = _padded(q, cfg.q_tiles * bm)
    o_all = np.zeros(qp.shape, t)
    lse_all = np.zeros(qp.shape[:2], np.float32) if cfg.lse else None
    for h in range(cfg.batch * cfg.heads):
        kh = (h // cfg.heads) * cfg.kv_heads + (h % cfg.heads) // cfg.group
        for qt in range(cfg.q_tiles):
            n = min(cfg.k_tiles, qt + 1) if cfg.causal else cfg.k_tiles
            for r0 in range(qt * bm, qt * bm + bm, 64):
                o, lse = _rows(cfg, qp[h, r0:r0 + 64], kp[kh], vp[kh], r0, n, atype, softmax)
                o_all[h, r0:r0 + 64] = o.astype(t)
                if lse_all is not None:
                    lse_all[h, r0:r0 + 64] = lse
    o_all = o_all[:, :cfg.seq_q]
    return o_all, (lse_all[:, :cfg.seq_q] if lse_all is not None else None)


def _rows(cfg, q, k, v, r0, n, atype, softmax):
    """64 query rows from r0 over key tiles n - 1 .. 0: (O f32 normalised, LSE)."""
    bn, t = cfg.block_n, q.dtype
    o = None
    st = _SoftmaxState(cfg, r0) if softmax else None
    for i in range(n):
        j = n - 1 - i
        s = mma(q, k[j * bn:(j + 1) * bn], None, atype)
        if st is not None:
            o, s = st.step(s, o, i, j * bn)
        o = mma(s.astype(t), v[j * bn:(j + 1) * bn].T, o, atype)
    if st is None:
        return o, None
    return st.finish(o)


class _SoftmaxState:
    """The online softmax of 64 rows (filled in with the register-tile ops' semantics)."""

    def __init__(self, cfg, r0):
        raise NotImplementedError


def reference(cfg, q, k, v):
    """float64 attention: (O, LSE natural log) [bh, seq_q, d], [bh, seq_q]."""
    out = np.zeros(q.shape, np.float64)
    lse = np.zeros(q.shape[:2], np.float64)
    scale = 1.0 / math.sqrt(cfg.head_dim)
    for h in range(cfg.batch * cfg.heads):
        kh = (h // cfg.heads) * cfg.kv_heads + (h % cfg.heads) // cfg.group
        s = q[h].astype(np.float64) @ k[kh].astype(np.float64).T * scale
        if cfg.causal:
            s = np.where(np.arange(cfg.seq_k)[None, :] > np.arange(cfg.seq_q)[:, None], -np.inf, s)
        m = s.max(axis=1, keepdims=True)
        p = np.exp(s - m)
        l_ = p.sum(axis=1, keepdims=True)
        out[h] = (p / l_) @ v[kh].astype(np.float64)
        lse[h] = (m + np.log(l_))[:, 0]
    return out, lse


def report(cfg, o, lse, q, k, v) -> int:
    """Print the bit-for-bit comparison with the model and the error against float64; exit status."""
    want, want_lse = model(cfg, q, k, v)
    same = np.array_equal(_bits(o), _bits(want)) and (lse is None or np.array_equal(lse.view(np.uint32),
                                                                                   want_lse.view(np.uint32)))
    ref, ref_lse = reference(cfg, q, k, v)
    err = float(np.abs(o.astype(np.float64) - ref).max())
    bound = TOLERANCE[cfg.dtype] * float(np.abs(v.astype(np.float64)).max())
    print(f"{cfg.name}: {'bit for bit the model' if same else 'DIFFERS from the model'}; max |O - O64| = "
          f"{err:.3g} (bound {bound:.3g})", end="")
    ok = same and err <= bound
    if lse is not None:
        lerr = float((np.abs(lse - ref_lse) / np.maximum(np.abs(ref_lse), 1.0)).max())
        print(f"; LSE rel. error {lerr:.3g} (bound {LSE_TOLERANCE:.3g})", end="")
        ok = ok and lerr <= LSE_TOLERANCE
    print()
    return 0 if ok else 1


def as_dtype(x: np.ndarray, dtype: str) -> np.ndarray:
    return x.astype(ml_dtypes.bfloat16 if dtype == "bf16" else np.float16)
