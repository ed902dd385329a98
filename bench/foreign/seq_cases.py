"""The CuTe DSL examples of the foreign corpus whose host function launches several kernels
(bench/foreign/launch_seq.py records them as a sequence of launches over one set of buffers).
Each case as cute_cases.py's: the example, the buffers, the numpy reference from the inputs and
the tolerance derived from the kernel's roundings.
"""
from __future__ import annotations

import numpy as np

import cute_cases
import launch_seq

F16_HALF_ULP = 2.0 ** -11  # the relative error of one rounding to f16


def fmha_bwd(S, D):
    """The Blackwell FMHA backward (blackwell/kernel/attention/fmha/fmha_bwd.py), no mask, B = H = 1:
    three launches (sum_OdO: D = rowsum(O dO) and the LSE scaled to log2 units into the workspace;
    bwd: dK, dV and dQ accumulated in f32 in the workspace by TMA reduce-add; convert: dQ scaled and
    rounded to f16). Q/K/V/O/dO and dQ/dK/dV stored (B, S, H_k, H_r, D) as the example makes them,
    LSE (B, H_k, H_r, S) in natural-log units; the workspace is zero, as the example's host leaves
    it before a checked run. O and LSE are the forward's (float64 attention of the inputs, O
    rounded to f16), so P is a softmax."""
    scale = 1.0 / np.sqrt(D)
    c = None

    def build(rng):
        q, k, v, do = (rng.integers(-2, 3, (1, S, 1, 1, D)).astype(np.float16) for _ in range(4))
        Q, K, V, dO = (x[0, :, 0, 0].astype(np.float64) for x in (q, k, v, do))
        s = Q @ K.T * scale
        lse = np.log(np.exp(s - s.max(1, keepdims=True)).sum(1)) + s.max(1)
        p = np.exp(s - lse[:, None])
        o = (p @ V).astype(np.float16)
        O = o.astype(np.float64)
        dv = p.T @ dO
        dp = dO @ V.T
        ds = p * (dp - (O * dO).sum(1, keepdims=True))
        dk = scale * ds.T @ Q
        dq = scale * ds @ K
        # P (for dV) and dS (for dK, dQ) are rounded to f16 before their MMAs, the outputs to
        # f16 at the end: per element 2^-11 of the sum of |terms| each, 2^-11 of |result|;
        # ex2.approx (2^-22 relative) and the f32 sums of dP - D are far below
        mags = {"dv": np.abs(p).T @ np.abs(dO), "dk": scale * np.abs(ds).T @ np.abs(Q),
                "dq": scale * np.abs(ds) @ np.abs(K)}
        c["tolerance"] = dict(
            why="P rounded to f16 before P^T dO, dS before dS^T Q and dS K (2^-11 of the largest "
                "sum of |terms|, doubled), the outputs rounded to f16 (2^-11 relative, doubled); "
                "ex2.approx and the f32 row sums far below",
            outputs={n: dict(atol=float(2 * F16_HALF_ULP * m.max()), rtol=2 * F16_HALF_ULP)
                     for n, m in mags.items()})
        shaped = lambda x: x.reshape(1, S, 1, 1, D).astype(np.float16)
        ws = 2 * S * 4 + S * D * 4  # sum_OdO, scaled LSE, dQ accumulator (f32, S and D multiples of 8)
        bufs = [("q", q), ("k", k), ("v", v), ("o", shaped(O)), ("dq", np.zeros_like(q)),
                ("dk", np.zeros_like(q)), ("dv", np.zeros_like(q)), ("do", do),
                ("lse", lse.reshape(1, 1, 1, S).astype(np.float32)),
                ("workspace", np.zeros(ws, np.uint8))]
        return bufs, {"dq": shaped(dq), "dk": shaped(dk), "dv": shaped(dv)}

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_fake_compact_tensor
        from helpers import fmha_helpers as fmha_utils
        by = dict(bufs)
        # (s, d, h_r, h_k, b) views of the (b, s, h_k, h_r, d) storage, LSE (s, h_r, h_k, b)
        view = lambda: make_fake_compact_tensor(cutlass.Float16, (S, D, 1, 1, 1),
                                                stride_order=(1, 0, 2, 3, 4), assumed_align=16)
        lse = make_fake_compact_tensor(cutlass.Float32, (S, 1, 1, 1), stride_order=(0, 1, 2, 3),
                                       assumed_align=16)
        ws = make_fake_compact_tensor(cutlass.Uint8, by["workspace"].shape, assumed_align=16)
        k = mod.BlackwellFusedMultiHeadAttentionBackward(
            cutlass.Float16, cutlass.Float32, (128, 128, D), False,
            fmha_utils.MaskEnum.WINDOW_MASK_BWD)
        I32 = cutlass.Int32
        ps = (I32(S), I32(S), I32(D), ((I32(1), I32(1)), I32(1)))
        names = ["q", "k", "v", "o", "dq", "dk", "dv", "do"]
        args = [ps] + [view() for _ in names] + [lse, None, None, cutlass.Float32(scale), None,
                                                 None, ws, cute_cases.stream()]
        rt = ([("i32", x) for x in (S, S, D, 1, 1, 1)] + [("ptr", n) for n in names]
              + [("ptr", "lse"), ("f32", scale), ("ptr", "workspace"), ("stream",)])
        return k, args, rt

    c = dict(name="bw_fmha_bwd", example="blackwell/kernel/attention/fmha/fmha_bwd.py",
             arch="sm_100a", shape=dict(S=S, D=D), build=build, setup=setup,
             inputs=["q", "k", "v", "o", "do", "lse"], outputs=["dq", "dk", "dv"],
             reference="numpy float64 dQ, dK, dV of softmax(Q K^T / sqrt(D)) from integer "
                       "Q, K, V, dO (O and LSE the forward's)",
             compile=launch_seq.compile_sequence)
    # the views the host makes from the problem size: (s, d, ((h_r, h_k), b)), K and V broadcast
    # over h_r; the dQ accumulator (s, d, ((h_r, h_k), b)) f32 at byte 2 S 4 of the workspace
    qo = ((S, D, ((1, 1), 1)), (D, 1, ((D, D), S * D)))
    kv = ((S, D, ((1, 1), 1)), (D, 1, ((0, D), S * D)))
    c["layouts"] = {"q": qo, "do": qo, "k": kv, "v": kv,
                    "workspace": ((S, D, ((1, 1), 1)), (D, 1, ((S * D, S * D), S * D)))}
    c["map_offsets"] = {"workspace": 2 * S * 4}
    return c


def cases(size):
    s = 1 if size == "small" else 2
    return [fmha_bwd(128 * s, 64), preferred_cluster_gemm(256 * s, 1024, 64),
            mla_decode(256 * s, 64, 2), mla_decode(256 * s, 64, 2, fp8=True)]


def preferred_cluster_gemm(M, N, K):
    """The tutorial GEMM launched with a preferred and a fallback cluster (fp16_gemm_4)."""
    c = cute_cases.gemm("bw_tutorial_fp16_gemm_4", f"{cute_cases.TUT}fp16_gemm_4.py", "sm_100a",
                        M, N, K, lambda mod, cutlass: mod.host_function,
                        extra=lambda cutlass: [1, 1], stream_arg=False)
    c["compile"] = launch_seq.compile_sequence
    return c


def O_LAYOUT(H, L):  # noqa: N802  O's run-time shape and stride fields (S_q = B = 1)
    return (1, 1, H * L)  # S_q, B, the batch stride (the others static)


E4M3_HALF_ULP, E4M3_SUB_HALF_STEP = 2.0 ** -4, 2.0 ** -10  # relative (normal), absolute


def e4m3_round(x):
    """The e4m3 codes nearest to ``x`` (ties to the even code, as cvt.rn does), finite values."""
    import blockscaled
    codes = np.array([c for c in range(256) if c & 0x7F != 0x7F and c != 0x80], np.uint8)
    vals = blockscaled.decode("e4m3", codes).astype(np.float64)
    order = np.argsort(vals, kind="stable")
    vals, codes = vals[order], codes[order]
    x = np.asarray(x, np.float64)
    i = np.clip(np.searchsorted(vals, x), 1, len(vals) - 1)
    lo, hi = vals[i - 1], vals[i]
    pick_hi = (hi - x < x - lo) | ((hi - x == x - lo) & (codes[i] % 2 == 0))
    return np.where(pick_hi, codes[i], codes[i - 1]).astype(np.uint8)


def mla_decode(K, page_size, split_kv, H=128, L=512, R=64, fp8=False):
    """The Blackwell MLA decode (blackwell/kernel/attention/mla/mla_decode_fp16.py), B = 1, one
    query: two launches, the split-KV kernel (2-CTA clusters; each split attends to its share of
    the K / V pages, gathered through the page table by TMA, into f32 partials and their LSE in the
    workspace) and the reduction of the partials into O (f16) and the LSE (log2 units). The cache
    is stored as twice the pages the sequence uses, (2 K / page_size, page_size, D), and the page
    table picks half of them out of order: attention is invariant to the order of its keys, so a
    kernel that read the first pages in order, not the table's, would attend to the wrong keys."""
    import blockscaled
    scale = 1.0 / np.sqrt(L + R)
    pages = K // page_size
    cached = 2 * pages
    c = None
    # e4m3 tensors are stored as their codes (the example's int8 torch tensors)
    store = (lambda v: blockscaled.codes_of("e4m3", v)) if fp8 else (lambda v: v.astype(np.float16))
    value = (lambda a: blockscaled.decode("e4m3", a)) if fp8 else (lambda a: a)

    def build(rng):
        ql = store(rng.integers(-2, 3, (1, 1, H, L)))
        qr = store(rng.integers(-2, 3, (1, 1, H, R)))
        cl = store(rng.integers(-2, 3, (cached, page_size, L)))
        cr = store(rng.integers(-2, 3, (cached, page_size, R)))
        table = rng.choice(cached, pages, replace=False).astype(np.int32).reshape(1, pages)
        assert sorted(table[0]) != list(range(pages))
        # the sequence's keys: the pages in page-table order
        kl = value(cl[table[0]]).reshape(K, L).astype(np.float64)
        kr = value(cr[table[0]]).reshape(K, R).astype(np.float64)
        q = np.concatenate([value(ql[0, 0]), value(qr[0, 0])], 1).astype(np.float64)
        s = q @ np.concatenate([kl, kr], 1).T * scale
        m = s.max(1, keepdims=True)
        p = np.exp(s - m)
        o = (p / p.sum(1, keepdims=True)) @ kl
        lse = (m[:, 0] + np.log(p.sum(1))) * np.log2(np.e)
        # P rounded to f16 before P V (2^-11 of sum_j p_j |v_j| <= 2^-11 max|V|, doubled for the
        # two-level split / rescaling), O rounded to f16 (2^-11 |O|, doubled); LSE: ex2 / lg2
        # approximations and f32 sums
        lse_tol = dict(atol=0.0, rtol=2.0 ** -18)
        if fp8:
            # P (unnormalised, <= 1 below its running maximum) rounded to e4m3 before P V: per
            # key at most 2^-4 of p, or half the subnormal step 2^-10, times |v|, over the row
            # sum; doubled for the f32 rounding and approximations; O rounded to e4m3 (2^-4
            # relative, the subnormal half step absolute), doubled
            bound = (np.maximum(E4M3_HALF_ULP * p, E4M3_SUB_HALF_STEP) @ np.abs(kl)
                     / p.sum(1, keepdims=True))
            o_tol = dict(atol=float(2 * bound.max() + 2 * E4M3_SUB_HALF_STEP),
                         rtol=2 * E4M3_HALF_ULP)
            why = ("O: P rounded to e4m3 before P V (per row the sum over keys of max(2^-4 p, "
                   "2^-10) |v| over the row sum, doubled), O rounded to e4m3 (2^-4 relative, "
                   "2^-10 absolute, doubled); LSE: ex2.approx / lg2.approx and f32 sums")
        else:
            o_tol = dict(atol=2 * 2.0 ** -11 * 2, rtol=2 * 2.0 ** -11)
            why = ("O: P rounded to f16 before P V (2 x 2^-11 max|V|), O rounded to f16 (2 x "
                   "2^-11 relative); LSE: ex2.approx / lg2.approx and f32 sums (2^-18 relative)")
        c["tolerance"] = dict(why=why, outputs={"o": o_tol, "lse": lse_tol})
        ws = H * split_kv * (L + 1) * 4
        out_o = np.zeros((1, 1, H, L), np.uint8 if fp8 else np.float16)
        bufs = [("q_latent", ql), ("q_rope", qr), ("c_latent", cl), ("c_rope", cr),
                ("page_table", table), ("o", out_o),
                ("lse", np.zeros((1, 1, H), np.float32)), ("workspace", np.zeros(ws, np.int8)),
                ("cache_seqs", np.array([K], np.int32))]
        ref_o = e4m3_round(o) if fp8 else o.astype(np.float16)
        return bufs, {"o": ref_o.reshape(1, 1, H, L), "lse": lse.reshape(1, 1, H).astype(np.float32)}

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_fake_compact_tensor as fk
        f16 = cutlass.Float8E4M3FN if fp8 else cutlass.Float16
        f32, i32 = cutlass.Float32, cutlass.Int32
        # the example's views: Q / O (H, D, S_q, B), the cache (page_size, D, cached pages), the page
        # table (page_count, B), the LSE (H, S_q, B)
        t = dict(
            q_latent=fk(f16, (H, L, 1, 1), stride_order=(1, 0, 2, 3), assumed_align=16),
            q_rope=fk(f16, (H, R, 1, 1), stride_order=(1, 0, 2, 3), assumed_align=16),
            c_latent=fk(f16, (page_size, L, cached), stride_order=(1, 0, 2), assumed_align=16),
            c_rope=fk(f16, (page_size, R, cached), stride_order=(1, 0, 2), assumed_align=16),
            page_table=fk(i32, (pages, 1), stride_order=(0, 1), assumed_align=16),
            # the scheduler's parameters take the batch and query counts from O at run time
            o=fk(f16, (H, L, cute.sym_int(), cute.sym_int()), stride_order=(1, 0, 2, 3),
                 assumed_align=16),
            lse=fk(f32, (H, 1, 1), stride_order=(0, 1, 2), assumed_align=16),
            workspace=fk(cutlass.Int8, (H * split_kv * (L + 1) * 4,), assumed_align=32),
            cache_seqs=fk(i32, (1,), assumed_align=16))
        cls = (mod.BlackwellMultiHeadLatentAttentionForwardFP8 if fp8 else
               mod.BlackwellMultiHeadLatentAttentionForwardFP16)
        k = cls(
            f32, f32, (128, 128), (128, 256), 1, page_size, 0.0, False, False, False)
        names = ["q_latent", "q_rope", "c_latent", "c_rope", "page_table", "o", "lse", "workspace"]
        args = [t[n] for n in names] + [i32(split_kv), t["cache_seqs"], None, f32(scale), f32(1.0),
                                        cute_cases.stream()]
        rt = ([("ptr", n) if n != "o" else ("ptr", n, O_LAYOUT(H, L)) for n in names]
              + [("i32", split_kv), ("ptr", "cache_seqs"),
                                             ("f32", scale), ("f32", 1.0), ("stream",)])
        return k, args, rt

    name = "fp8" if fp8 else "fp16"
    c = dict(name=f"bw_mla_decode_{name}", example=f"blackwell/kernel/attention/mla/mla_decode_{name}.py",
             arch="sm_100a", shape=dict(H=H, K=K, L=L, R=R, page_size=page_size, split_kv=split_kv),
             build=build, setup=setup,
             inputs=["q_latent", "q_rope", "c_latent", "c_rope", "page_table", "cache_seqs"],
             outputs=["o", "lse"],
             reference="numpy float64 softmax(scale q [K_latent K_rope]^T) K_latent over the pages "
                       "gathered through the page table, and its log2-sum-exp, integer inputs",
             compile=launch_seq.compile_sequence)
    if fp8:  # the buffers of e4m3 codes: corpus.compare decodes them
        c["elements"] = {n: "e4m3" for n in ("q_latent", "q_rope", "c_latent", "c_rope", "o")}
    return c
