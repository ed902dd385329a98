"""numpy models of examples/attention_sm90.py: `model` computes what the kernel computes, in its order of
operations (MMA-Sim's Hopper wgmma model for both products, the f32 roundings of each softmax step,
tile-sim's ex2.approx.ftz model, the row reductions' folding order), so the kernel's output must equal it bit
for bit; `reference` is float64 attention, which both must approach within TOLERANCE.

Per consumer warpgroup (64 query rows) and key tile j (last to first, i = 0 .. n - 1 the visit count):
    S    = wgmma(Q, K_j^T)                                  f32, MMA-Sim (zero C)
    S    = mask(S)  (i < cfg.masked_visits)                 -inf where col >= seq_k (i = 0), or (causal) col > row
    mt   = rowmax(S) ; m_new = max(m, mt)                   (max is exact: no order; i = 0 and cfg.floor_max:
                                                             m = max(mt, lowest f32), a row with no key seen)
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
from attention_sm90_softmax import F32_LOWEST

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
    """(O, LSE or None) as the kernel computes them, bit for bit (the LSE with its padding columns)."""
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
            n = cfg.n_tiles(qt)
            for r0 in range(qt * bm, qt * bm + bm, 64):
                o, lse = _rows(cfg, qp[h, r0:r0 + 64], kp[kh], vp[kh], r0, n, atype, softmax)
                o_all[h, r0:r0 + 64] = o.astype(t)
                if lse_all is not None:
                    lse_all[h, r0:r0 + 64] = lse
    o_all = o_all[:, :cfg.seq_q]
    return o_all, (lse_all[:, :cfg.lse_cols] if lse_all is not None else None)


def _rows(cfg, q, k, v, r0, n, atype, softmax):
    """64 query rows from r0 over key tiles n - 1 .. 0: (O f32, normalised with the softmax, LSE or None)."""
    bn, t = cfg.block_n, q.dtype
    tile = lambda x, j: x[j * bn:(j + 1) * bn]  # noqa: E731
    if not softmax:  # P = S: the products alone
        o = None
        for i in range(n):
            s = mma(q, tile(k, n - 1 - i), None, atype)
            o = mma(s.astype(t), tile(v, n - 1 - i).T, o, atype)
        return o, None
    sc = np.float32(cfg.scale_log2)
    # visit 0: key tile n - 1, masked
    s = mask(cfg, mma(q, tile(k, n - 1), None, atype), r0, (n - 1) * bn)
    m = s.max(axis=1, keepdims=True)
    if cfg.floor_max:
        m = np.maximum(m, np.float32(F32_LOWEST))
    ms = m * sc
    p = ex2(fma32(s, sc, -ms))
    l_ = row_sum(p)
    o = None
    for i in range(1, n):
        s = mma(q, tile(k, n - 1 - i), None, atype)
        if i < cfg.masked_visits:  # (the causal part: key tile n - 1 - i is not the residual one)
            s = mask(cfg, s, r0, (n - 1 - i) * bn)
        o = mma(p.astype(t), tile(v, n - i).T, o, atype)  # P_{i-1} V_{i-1}, issued with S_i
        m_new = np.maximum(m, s.max(axis=1, keepdims=True))
        alpha = ex2((m - m_new) * sc)
        m = m_new
        ms = m * sc
        p = ex2(fma32(s, sc, -ms))
        l_ = fma32(l_, alpha, row_sum(p))
        o = o * alpha
    o = mma(p.astype(t), tile(v, 0).T, o, atype)
    o = o * (np.float32(1.0) / l_)
    lse = None
    if cfg.lse:
        lse = ((lg2(l_) + ms) * np.float32(math.log(2.0)))[:, 0]
    return o, lse


def mask(cfg, s, r0, n0):
    """-inf where key n0 + col is past seq_k or (causal) after query r0 + row (r0: the rows' first query)."""
    rows, cols = np.arange(s.shape[0])[:, None], np.arange(s.shape[1])[None, :]
    out = s.copy()
    if cfg.seq_k % cfg.block_n:
        out[np.broadcast_to(cols >= cfg.seq_k - n0, s.shape)] = -np.inf
    if cfg.causal:
        out[np.broadcast_to(cols > rows + (r0 - n0), s.shape)] = -np.inf
    return out


def fma32(a, b, c) -> np.ndarray:
    """fma.rn.f32 elementwise (broadcasting): the exact a * b + c rounded once to f32. The f64 product is exact;
    the f64 sum's rounding error (TwoSum) breaks a tie of the final f32 rounding in the exact value's
    direction, the only case in which rounding twice differs from rounding once."""
    a, b, c = (np.asarray(x, np.float32).astype(np.float64) for x in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):
        p = a * b
        s = p + c
        bb = s - p
        e = (p - (s - bb)) + (c - bb)
        r = np.where(e > 0, np.nextafter(s, np.inf), np.where(e < 0, np.nextafter(s, -np.inf), s))
        r = np.where(np.isfinite(s), r, s)
        return r.astype(np.float32)


def ex2(x) -> np.ndarray:
    """ex2.approx.ftz.f32 as tile-sim executes it."""
    from tile_mlir.sim import ex2_approx_f32
    x = np.ascontiguousarray(x, np.float32)
    return np.asarray(ex2_approx_f32(x.view(np.uint32), True)).astype(np.uint32).view(np.float32).reshape(x.shape)


def lg2(x) -> np.ndarray:
    """lg2.approx.ftz.f32 as tile-sim executes it."""
    from tile_mlir.sim.approx_math import lg2_f32
    x = np.ascontiguousarray(x, np.float32)
    return np.asarray(lg2_f32(x.view(np.uint32), True)).astype(np.uint32).view(np.float32).reshape(x.shape)


def row_sum(p) -> np.ndarray:
    """tile.reg.reduce's sum of a [64, N] wgmma accumulator row (docs/registers.md §9): lane q of the row's
    four holds columns 8 b + 2 q + e in ascending order, folded in halves (v[i] += v[i + h]), then the
    butterfly over lane bit 0, then bit 1."""
    n = p.shape[1]
    parts = []
    for q in range(4):
        cols = sorted(8 * blk + 2 * q + e for blk in range(n // 8) for e in range(2))
        v = [p[:, c] for c in cols]
        while len(v) > 1:
            h = (len(v) + 1) // 2
            v = [v[i] + v[i + h] if i + h < len(v) else v[i] for i in range(h)]
        parts.append(v[0])
    return ((parts[0] + parts[1]) + (parts[2] + parts[3]))[:, None]


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
        lerr = float((np.abs(lse[:, :cfg.seq_q] - ref_lse) / np.maximum(np.abs(ref_lse), 1.0)).max())
        print(f"; LSE rel. error {lerr:.3g} (bound {LSE_TOLERANCE:.3g})", end="")
        ok = ok and lerr <= LSE_TOLERANCE
    print()
    return 0 if ok else 1


def as_dtype(x: np.ndarray, dtype: str) -> np.ndarray:
    return x.astype(ml_dtypes.bfloat16 if dtype == "bf16" else np.float16)
