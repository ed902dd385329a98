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
    return [fmha_bwd(128 * s, 64), preferred_cluster_gemm(256 * s, 1024, 64)]


def preferred_cluster_gemm(M, N, K):
    """The tutorial GEMM launched with a preferred and a fallback cluster (fp16_gemm_4)."""
    c = cute_cases.gemm("bw_tutorial_fp16_gemm_4", f"{cute_cases.TUT}fp16_gemm_4.py", "sm_100a",
                        M, N, K, lambda mod, cutlass: mod.host_function,
                        extra=lambda cutlass: [1, 1], stream_arg=False)
    c["compile"] = launch_seq.compile_sequence
    return c
