"""The CuTe DSL examples of the foreign corpus that make_corpus.py compiles through their own host
entry point (cute_generic.py): ampere/, hopper/ and blackwell/ kernels taking static tensors,
raw pointers and scalars. Each case: the example file, the arch, the buffers (inputs small
integers where the kernel allows, so its arithmetic is exact), the numpy reference from the
inputs, and for approximate math the tolerance with the reason it is that wide.
"""
from __future__ import annotations

import numpy as np

import cute_generic

F16_ULP = 2.0 ** -10  # one unit in the last place of an f16 in [1, 2)
#: rsqrt.approx.f32: the PTX ISA gives its maximum relative error as 2^-22.9 (ex2.approx.f32 and
#: rcp.approx.f32 are within 2 ulp): a norm of exact integer sums is then within this of the
#: reference, relative, after the few f32 roundings of x * r * w
NORM_RTOL = 2.0 ** -20


def _dt(cutlass, a):
    return {"float16": cutlass.Float16, "float32": cutlass.Float32, "bfloat16": cutlass.BFloat16,
            "int8": cutlass.Int8, "int32": cutlass.Int32, "int64": cutlass.Int64}[str(a.dtype)]


def fake(cute, cutlass, arr, shape=None, order=None):
    """A static fake tensor over ``arr`` (C order unless ``order``: the stride rank of each mode
    of ``shape``, 0 the contiguous one)."""
    from cutlass.cute.runtime import make_fake_compact_tensor
    shape = tuple(shape or arr.shape)
    order = tuple(order or range(len(shape) - 1, -1, -1))
    return make_fake_compact_tensor(_dt(cutlass, arr), shape, stride_order=order,
                                    assumed_align=16)


def stream():
    from cutlass.runtime import make_fake_stream
    return make_fake_stream()


def case(name, example, arch, shape, build, setup, inputs, outputs, reference, tolerance=None):
    return dict(name=name, example=example, arch=arch, shape=shape, build=build, setup=setup,
                inputs=inputs, outputs=outputs, reference=reference, tolerance=tolerance,
                compile=cute_generic.compile_generic)


EXACT = "numpy float64 of integer inputs (exact)"


# ----------------------------------------------------------------------------- ampere
def ew_add_build(M, N):
    """The buffers of an elementwise f16 C = A + B of small integers (the sums exact)."""
    def build(rng):
        a = rng.integers(-64, 65, (M, N)).astype(np.float16)
        b = rng.integers(-64, 65, (M, N)).astype(np.float16)
        return [("a", a), ("b", b), ("c", np.zeros((M, N), np.float16))], {"c": a + b}
    return build


def ew_add(M, N):
    build = ew_add_build(M, N)

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, a) for _, a in bufs]
        return mod.elementwise_add, fk, [("ptr", n) for n, _ in bufs]
    return case("ampere_elementwise_add", "ampere/kernel/elementwise/elementwise_add.py", "sm_80",
                dict(M=M, N=N), build, setup, ["a", "b"], ["c"], EXACT)


def ew_apply(op, M, N):
    """elementwise_apply with ``operator.mul`` of two f32 inputs, or the example's leaky_relu
    (alpha 0.01) of one: each output one f32 operation, rounded as numpy's float32 rounds it."""
    def build(rng):
        a = (rng.integers(-8, 9, (M, N)) / 4).astype(np.float32)
        b = (rng.integers(-8, 9, (M, N)) / 4).astype(np.float32)
        if op == "mul":
            return [("a", a), ("b", b), ("c", np.zeros_like(a))], {"c": a * b}
        ref = np.where(a > 0, a, np.float32(0.01) * a).astype(np.float32)
        return [("a", a), ("c", np.zeros_like(a))], {"c": ref}

    def setup(mod, cute, cutlass, bufs):
        import functools
        import operator
        fn = operator.mul if op == "mul" else functools.partial(mod.leaky_relu, alpha=0.01)
        fk = [fake(cute, cutlass, a) for _, a in bufs]
        return (mod.elementwise_apply, [fn, fk[:-1], fk[-1], stream()],
                [("ptr", n) for n, _ in bufs] + [("stream",)])
    ins = ["a", "b"] if op == "mul" else ["a"]
    return case(f"ampere_elementwise_apply_{op}", "ampere/kernel/elementwise/elementwise_apply.py",
                "sm_80", dict(M=M, N=N), build, setup, ins, ["c"],
                "numpy float32 of the same one operation (exact)")


def gemm_ref(a, b, dtype):
    return (a.astype(np.float64) @ b.astype(np.float64).T).astype(dtype)


def sgemm(M, N, K):
    def build(rng):
        a = rng.integers(-5, 5, (M, K)).astype(np.float32)
        b = rng.integers(-5, 5, (N, K)).astype(np.float32)
        return ([("a", a), ("b", b), ("c", np.zeros((M, N), np.float32))],
                {"c": gemm_ref(a, b, np.float32)})

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, a) for _, a in bufs]
        return (mod.SGemm(), fk + [lambda x: x, stream()],
                [("ptr", n) for n, _ in bufs] + [("stream",)])
    return case("ampere_sgemm", "ampere/kernel/dense_gemm/sgemm.py", "sm_80",
                dict(M=M, N=N, K=K), build, setup, ["a", "b"], ["c"], EXACT)


def tensorop_gemm(M, N, K):
    """A (M, K, 1), B (N, K, 1), C (M, N, 1), K- and N-major, f16 -> f32 accumulate -> f16."""
    def build(rng):
        a = rng.integers(-2, 3, (M, K)).astype(np.float16)
        b = rng.integers(-2, 3, (N, K)).astype(np.float16)
        return ([("a", a), ("b", b), ("c", np.zeros((M, N), np.float16))],
                {"c": gemm_ref(a, b, np.float16)})

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, a, a.shape + (1,), (1, 0, 2)) for _, a in bufs]
        k = mod.TensorOpGemm(cutlass.Float16, cutlass.Float16, cutlass.Float32, (2, 2, 1))
        return k, fk + [stream()], [("ptr", n) for n, _ in bufs] + [("stream",)]
    return case("ampere_tensorop_gemm", "ampere/kernel/dense_gemm/tensorop_gemm.py", "sm_80",
                dict(M=M, N=N, K=K), build, setup, ["a", "b"], ["c"], EXACT)


def attention_ref(q, k, v, scale, causal=False):
    """O[b, s, h] = softmax(scale Q K^T) V per (batch, head), float64; Q/K/V (B, S, H, D)."""
    s = np.einsum("bqhd,bkhd->bhqk", q.astype(np.float64), k.astype(np.float64)) * scale
    if causal:
        sq, sk = s.shape[-2:]
        s = np.where(np.arange(sk)[None, :] <= np.arange(sq)[:, None] + sk - sq, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bhqk,bkhd->bqhd", p, v.astype(np.float64))


#: attention with f16 P and O: P is rounded to f16 before the P V MMA (relative 2^-11 each,
#: weights summing to 1: at most 2^-11 max|V|), O to f16 at the end (2^-11 |O|), the running
#: max/sum rescaling and ex2.approx / rcp.approx add f32 roundings far below these
def attention_tol(v):
    return float(4 * 2.0 ** -11 * np.abs(v.astype(np.float64)).max())


def fa2(B, S, H, D, causal):
    scale = 0.125

    def build(rng):
        q, k, v = (rng.integers(-2, 2, (B, S, H, D)).astype(np.float16) for _ in range(3))
        o = attention_ref(q, k, v, scale, causal).astype(np.float16)
        return ([("q", q), ("k", k), ("v", v), ("o", np.zeros_like(q))], {"o": o})

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, a) for _, a in bufs]
        k = mod.FlashAttentionForwardAmpere(D, 128, 128, 128, causal)
        return (k, fk + [cutlass.Float32(scale), stream()],
                [("ptr", n) for n, _ in bufs] + [("f32", scale), ("stream",)])
    c = case("ampere_flash_attention_v2" + ("_causal" if causal else ""),
             "ampere/kernel/attention/flash_attention_v2.py", "sm_80",
             dict(B=B, S=S, H=H, D=D), build, setup, ["q", "k", "v"], ["o"],
             "numpy float64 softmax(scale Q K^T) V of integer inputs")
    c["tolerance"] = dict(atol_from="v", atol=4 * 2.0 ** -11, rtol=0.0,
                          why="P rounded to f16 before P V (2^-11 max|V|), O rounded to f16 "
                              "(2^-11 |O|), exp2/rcp approximations and rescaling far below")
    return c


def hstu(B, S, H, D, causal):
    """HSTU attention: O = (silu(Q K^T + RAB), lower-triangular if causal) V, unnormalised, per
    (batch, head); Q/K/V/O (B, S, H, D), RAB (B, H, S, S); f16 inputs in {-1, 0, 1} (RAB
    {-2..2}), so S = Q K^T + RAB is exact."""
    c = None

    def build(rng):
        q, k, v = (rng.integers(-1, 2, (B, S, H, D)).astype(np.float16) for _ in range(3))
        rab = rng.integers(-2, 3, (B, H, S, S)).astype(np.float16)
        s = np.einsum("bqhd,bkhd->bhqk", q.astype(np.float64), k.astype(np.float64)) + rab
        p = s / (1.0 + np.exp(-s))
        if causal:
            p = np.where(np.arange(S)[None, :] <= np.arange(S)[:, None], p, 0.0)
        o = np.einsum("bhqk,bkhd->bqhd", p, v.astype(np.float64))
        # P rounded to f16 before P V: 2^-11 of sum_k |p v| per output, doubled for the silu's
        # ex2.approx and division; O rounded to f16: 2^-11 relative
        mag = np.einsum("bhqk,bkhd->bqhd", np.abs(p), np.abs(v.astype(np.float64)))
        c["tolerance"] = dict(atol=float(2.0 ** -10 * mag.max()), rtol=2.0 ** -10,
                              why="P rounded to f16 before P V (2^-11 of the largest sum_k "
                                  "|silu(s)| |v|, doubled for ex2.approx and the division in "
                                  "silu), O rounded to f16 (2^-11, doubled)")
        bufs = [("q", q), ("k", k), ("v", v), ("o", np.zeros_like(q)), ("rab", rab)]
        return bufs, {"o": o.astype(np.float16)}

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, a) for _, a in bufs]
        k = mod.HSTUAttentionForwardAmpere(cutlass.Float16, B, S, S, H, D, is_causal=causal)
        return k, fk + [stream()], [("ptr", n) for n, _ in bufs] + [("stream",)]
    c = case("ampere_hstu_attention" + ("_causal" if causal else ""),
             "ampere/kernel/attention/hstu_attention.py", "sm_80", dict(B=B, S=S, H=H, D=D),
             build, setup, ["q", "k", "v", "rab"], ["o"],
             "numpy float64 (silu(Q K^T + RAB), masked) V of integer inputs")
    return c


def hopper_fmha(S, D, causal=False):
    """Q/K/V/O stored (B, S, H, D) (H = 1, B = 1), the kernel's view (S, D, H_r, H_k, B) as the
    example permutes them; LSE (S, 1, H_r, H_k, B) f32: the natural-log sum of exp of the row."""
    scale = 1.0 / np.sqrt(D)
    log2e = 1.4426950408889634074

    def build(rng):
        q, k, v = (rng.integers(-2, 2, (1, S, 1, 1, D)).astype(np.float16) for _ in range(3))
        r = lambda a: a.reshape(1, S, 1, D)
        o = attention_ref(r(q), r(k), r(v), scale, causal).reshape(1, S, 1, 1, D)
        s = np.einsum("qd,kd->qk", q[0, :, 0, 0].astype(np.float64),
                      k[0, :, 0, 0].astype(np.float64)) * scale
        if causal:
            s = np.where(np.arange(S)[None, :] <= np.arange(S)[:, None], s, -np.inf)
        lse = (np.log(np.exp(s - s.max(1, keepdims=True)).sum(1)) + s.max(1)).reshape(1, S, 1, 1, 1)
        bufs = [("q", q), ("k", k), ("v", v), ("o", np.zeros_like(q)),
                ("lse", np.zeros((1, S, 1, 1, 1), np.float32))]
        return bufs, {"o": o.astype(np.float16), "lse": lse.astype(np.float32)}

    def setup(mod, cute, cutlass, bufs):
        from helpers import fmha_helpers as fmha_utils
        view = lambda a: fake(cute, cutlass, a, (S, a.shape[-1], 1, 1, 1), (3, 0, 1, 2, 4))
        mask = fmha_utils.MaskEnum.WINDOW_MASK
        k = mod.HopperFusedMultiHeadAttentionForward(cutlass.Float32, cutlass.Float32,
                                                     (64, 128, D), False, mask)
        args = [view(a) for _, a in bufs] + [cutlass.Float32(scale * log2e),
                                              cutlass.Float32(scale), cutlass.Float32(1.0),
                                              None, cutlass.Int32(0) if causal else None, stream()]
        rt = ([("ptr", n) for n, _ in bufs] + [("f32", scale * log2e), ("f32", scale),
                                                ("f32", 1.0)] + ([("i32", 0)] if causal else [])
              + [("stream",)])
        return k, args, rt
    c = case("hopper_fmha" + ("_causal" if causal else ""), "hopper/kernel/attention/fmha.py",
             "sm_90a", dict(S=S, D=D), build, setup, ["q", "k", "v"], ["o", "lse"],
             "numpy float64 softmax(Q K^T / sqrt(D)) V and its log-sum-exp")
    c["tolerance"] = dict(atol_from="v", atol=4 * 2.0 ** -11, rtol=2.0 ** -18,
                          why="O: P rounded to f16 before P V (2^-11 max|V|), O rounded to f16; "
                              "LSE: ex2/lg2 approximations and f32 sums")
    return c


def blackwell_fmha(S, D, causal=False):
    """Q/K/V/O (B, S, H_k, H_r, D) and LSE (B, S, H_k, H_r) as the example makes them (B = H = 1),
    the problem size (b, s_q, s_lse, s_k, h_q, h_k, d, dv) passed at run time."""
    scale = 1.0 / np.sqrt(D)
    log2e = float(np.log2(np.e))

    def build(rng):
        q, k, v = (rng.integers(-2, 3, (1, S, 1, 1, D)).astype(np.float16) for _ in range(3))
        r = lambda a: a.reshape(1, S, 1, D)
        o = attention_ref(r(q), r(k), r(v), scale, causal).reshape(1, S, 1, 1, D)
        s = np.einsum("qd,kd->qk", q[0, :, 0, 0].astype(np.float64),
                      k[0, :, 0, 0].astype(np.float64)) * scale
        if causal:
            s = np.where(np.arange(S)[None, :] <= np.arange(S)[:, None], s, -np.inf)
        # the example stores the log-sum-exp in log2 units ("consistent with flashinfer")
        lse = (np.log(np.exp(s - s.max(1, keepdims=True)).sum(1)) + s.max(1)).reshape(1, S, 1, 1)
        lse = lse * log2e
        bufs = [("q", q), ("k", k), ("v", v), ("o", np.zeros_like(q)),
                ("lse", np.zeros((1, S, 1, 1), np.float32))]
        return bufs, {"o": o.astype(np.float16), "lse": lse.astype(np.float32)}

    def setup(mod, cute, cutlass, bufs):
        from helpers import fmha_helpers as fmha_utils
        fk = {n: fake(cute, cutlass, a) for n, a in bufs}
        k = mod.BlackwellFusedMultiHeadAttentionForward(
            cutlass.Float32, cutlass.Float32, (128, 128), D, False,
            fmha_utils.MaskEnum.WINDOW_MASK, False, False, True)
        ps = (1, S, S, S, 1, 1, D, D)
        args = [fk["q"], fk["k"], fk["v"], fk["o"], tuple(cutlass.Int32(x) for x in ps), None,
                None, fk["lse"], None, cutlass.Float32(scale * log2e), cutlass.Float32(scale),
                cutlass.Float32(1.0), None, None, cutlass.Int32(0) if causal else None, None,
                None, stream(), False]
        rt = ([("ptr", n) for n in "qkvo"] + [("i32", x) for x in ps] + [("ptr", "lse")]
              + [("f32", scale * log2e), ("f32", scale), ("f32", 1.0)]
              + ([("i32", 0)] if causal else []) + [("stream",), ("i1", False)])
        return k, args, rt
    c = case("bw_fmha" + ("_causal" if causal else ""),
             "blackwell/kernel/attention/fmha/fmha.py", "sm_100a", dict(S=S, D=D), build, setup,
             ["q", "k", "v"], ["o", "lse"],
             "numpy float64 softmax(Q K^T / sqrt(D)) V and its log-sum-exp in log2 units")
    c["tolerance"] = dict(atol_from="v", atol=4 * 2.0 ** -11, rtol=2.0 ** -18,
                          why="O: P rounded to f16 before P V (2^-11 max|V|), O rounded to f16; "
                              "LSE: ex2/lg2 approximations and f32 sums")
    # the views the example's host code makes from the problem size (b, s, h_k, h_r, d contiguous,
    # K and V broadcast over h_r): (s, d, ((h_r, h_k), b)) for Q and O, V transposed
    row, batch = D, S * D
    qo = ((S, D, ((1, 1), 1)), (row, 1, ((D, D), batch)))
    c["layouts"] = {"q": qo, "o": qo, "k": ((S, D, ((1, 1), 1)), (row, 1, ((0, D), batch))),
                    "v": ((D, S, ((1, 1), 1)), (1, row, ((0, D), batch)))}
    return c


# ----------------------------------------------------------------------------- norms
def cta_norm(norm, M, N):
    def build(rng):
        x = rng.integers(-8, 9, (M, N)).astype(np.float32)
        w = rng.integers(-3, 4, (N,)).astype(np.float32)
        b = rng.integers(-3, 4, (N,)).astype(np.float32)
        xd = x.astype(np.float64)
        if norm == "layer":
            mu = xd.mean(1, keepdims=True)
            y = (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(1, keepdims=True) + 1e-6) * w + b
        else:
            y = xd / np.sqrt((xd ** 2).mean(1, keepdims=True) + 1e-6) * w
        bufs = [("y", np.zeros((M, N), np.float32)), ("x", x), ("w", w)]
        return bufs + ([("b", b)] if norm == "layer" else []), {"y": y.astype(np.float32)}

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, a) for _, a in bufs]
        k = mod.CtaNorm(N, norm, 128)
        args = fk + ([None] if norm != "layer" else [])
        return (k, args + [cutlass.Float32(1e-6)],
                [("ptr", n) for n, _ in bufs] + [("f32", 1e-6)])
    ins = ["x", "w"] + (["b"] if norm == "layer" else [])
    c = case(f"hopper_cta_norm_{norm}", "hopper/kernel/cta_norm/cta_norm.py", "sm_90a",
             dict(M=M, N=N), build, setup, ins, ["y"],
             "numpy float64 norm of integer inputs")
    c["tolerance"] = dict(rtol=NORM_RTOL, atol=0.0, why="rsqrt.approx.f32 (2^-22.9 relative) and "
                          "the f32 roundings of the normalised product")
    if norm == "layer":  # x_hat w + b cancels: the bound is relative to |x_hat w| + |b| <= 16
        c["tolerance"].update(atol=16 * NORM_RTOL, why=c["tolerance"]["why"] + "; y = x_hat w + b "
                              "cancels, so also 2^-20 of |x_hat w| + |b| <= 16, absolute")
    return c


def rmsnorm(arch, M, N):
    def build(rng):
        x = rng.integers(-8, 9, (M, N)).astype(np.float32)
        w = rng.integers(-3, 4, (N,)).astype(np.float32)
        xd = x.astype(np.float64)
        y = xd / np.sqrt((xd ** 2).mean(1, keepdims=True) + 1e-6) * w
        return [("x", x), ("w", w), ("o", np.zeros((M, N), np.float32))], {"o": y.astype(np.float32)}

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_ptr
        ptrs = [make_ptr(cutlass.Float32, 0, cute.AddressSpace.gmem, assumed_align=16)
                for _ in bufs]
        k = mod.RMSNormKernel(cutlass.Float32, N, True)
        return (k, ptrs + [cutlass.Int32(M), cutlass.Float32(1e-6), stream()],
                [("ptr", n) for n, _ in bufs] + [("i32", M), ("f32", 1e-6), ("stream",)])
    c = case(f"rmsnorm_{arch[3:5]}", "blackwell/kernel/rmsnorm/rmsnorm.py", arch,
             dict(M=M, N=N), build, setup, ["x", "w"], ["o"], "numpy float64 RMSNorm of integers")
    c["tolerance"] = dict(rtol=NORM_RTOL, atol=0.0, why="rsqrt.approx.f32 (2^-22.9 relative) and "
                          "the f32 roundings of x * r * w")
    return c


# ----------------------------------------------------------------------------- GEMMs, copies
def gemm(name, example, arch, M, N, K, make, ab="float16", c="float16", l_mode=False,
         extra=lambda cutlass: [], stream_arg=True):
    """C (M, N) = A (M, K) B (N, K)^T, K-major A and B, N-major C (with a trailing L = 1 mode for
    the kernels that take (M, K, L)): inputs in {-1, 0, 1} (exact in f32 accumulation, and few
    distinct values keep the compressed fixtures small)."""
    def build(rng):
        a = rng.integers(-1, 2, (M, K)).astype(ab)
        b = rng.integers(-1, 2, (N, K)).astype(ab)
        return [("a", a), ("b", b), ("c", np.zeros((M, N), c))], {"c": gemm_ref(a, b, c)}

    def setup(mod, cute, cutlass, bufs):
        if l_mode:
            fk = [fake(cute, cutlass, a, a.shape + (1,), (1, 0, 2)) for _, a in bufs]
        else:
            fk = [fake(cute, cutlass, a) for _, a in bufs]
        st = [stream()] if stream_arg else []
        return (make(mod, cutlass), fk + extra(cutlass) + st,
                [("ptr", n) for n, _ in bufs] + [("stream",)] * len(st))
    return case(name, example, arch, dict(M=M, N=N, K=K), build, setup, ["a", "b"], ["c"], EXACT)


def alpha_beta(M, N, K, alpha=2.0, beta=0.5):
    """D = alpha A B^T + beta C (f16 in, f32 C and D), alpha and beta run-time f32 scalars."""
    def build(rng):
        a = rng.integers(-1, 2, (M, K)).astype(np.float16)
        b = rng.integers(-1, 2, (N, K)).astype(np.float16)
        c = rng.integers(-4, 5, (M, N)).astype(np.float32)
        d = alpha * (a.astype(np.float64) @ b.astype(np.float64).T) + beta * c
        return ([("a", a), ("b", b), ("c", c), ("d", np.zeros((M, N), np.float32))],
                {"d": d.astype(np.float32)})

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, x, x.shape + (1,), (1, 0, 2)) for _, x in bufs]
        k = mod.SM100PersistentDenseGemmAlphaBetaKernel(cutlass.Float32, cutlass.Float32, False,
                                                        (128, 128), (1, 1))
        return (k, fk + [cutlass.Float32(alpha), cutlass.Float32(beta), 1, stream()],
                [("ptr", n) for n, _ in bufs] + [("f32", alpha), ("f32", beta), ("stream",)])
    return case("bw_dense_gemm_alpha_beta_persistent",
                "blackwell/kernel/dense_gemm/dense_gemm_alpha_beta_persistent.py", "sm_100a",
                dict(M=M, N=N, K=K), build, setup, ["a", "b", "c"], ["d"],
                "numpy float64 alpha A B^T + beta C of integer inputs (exact)")


def hopper_fp8_2xacc(M, N, K, scale_a=0.5, scale_b=2.0):
    """D (f16) = scale_a scale_b A B^T, A and B e4m3 (stored as their codes) in {-2..2}, the scales
    a one-element f32 tensor each: products and sums exact in f32, the scales powers of two."""
    import blockscaled

    def build(rng):
        av = rng.integers(-2, 3, (M, K))
        bv = rng.integers(-2, 3, (N, K))
        a, b = blockscaled.codes_of("e4m3", av), blockscaled.codes_of("e4m3", bv)
        d = (av.astype(np.float64) @ bv.T.astype(np.float64)) * scale_a * scale_b
        return ([("a", a), ("b", b), ("d", np.zeros((M, N), np.float16)),
                 ("scale_a", np.array([scale_a], np.float32)),
                 ("scale_b", np.array([scale_b], np.float32))], {"d": d.astype(np.float16)})

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_fake_compact_tensor
        fp8 = cutlass.Float8E4M3FN
        fk = [make_fake_compact_tensor(fp8, a.shape + (1,), stride_order=(1, 0, 2),
                                       assumed_align=16) for _, a in bufs[:2]]
        fk.append(fake(cute, cutlass, bufs[2][1], bufs[2][1].shape + (1,), (1, 0, 2)))
        fk += [fake(cute, cutlass, a) for _, a in bufs[3:]]
        k = mod.HopperFP8WarpSpecialized2xAccGemmKernel((128, 128), (1, 1), 1, True, 4)
        return k, fk + [1, stream()], [("ptr", n) for n, _ in bufs] + [("stream",)]
    return case("hopper_dense_gemm_fp8_2xacc", "hopper/kernel/dense_gemm/dense_gemm_fp8_2xacc.py",
                "sm_90a", dict(M=M, N=N, K=K), build, setup, ["a", "b", "scale_a", "scale_b"],
                ["d"], "numpy float64 of the e4m3 inputs' values times the scales (exact)")


def hopper_fp8_gelu(M, N, K, scale=0.25):
    """C (f16) = GELU(scale A B^T) in its erf form, A and B e4m3 (stored as their codes) in
    {-2..2}: the accumulation and the scaling are exact, GELU is evaluated by the kernel's erf."""
    import math

    import blockscaled

    def build(rng):
        av = rng.integers(-2, 3, (M, K))
        bv = rng.integers(-2, 3, (N, K))
        a, b = blockscaled.codes_of("e4m3", av), blockscaled.codes_of("e4m3", bv)
        x = (av.astype(np.float64) @ bv.T.astype(np.float64)) * scale
        erf = np.vectorize(math.erf)
        c = 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
        return ([("a", a), ("b", b), ("c", np.zeros((M, N), np.float16))],
                {"c": c.astype(np.float16)})

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_fake_compact_tensor
        fp8 = cutlass.Float8E4M3FN
        fk = [make_fake_compact_tensor(fp8, a.shape + (1,), stride_order=(1, 0, 2),
                                       assumed_align=16) for _, a in bufs[:2]]
        fk.append(fake(cute, cutlass, bufs[2][1], bufs[2][1].shape + (1,), (1, 0, 2)))
        k = mod.HopperFP8GeluPersistentGemmKernel(cutlass.Float32, (128, 128), (1, 1), 1, True)
        return (k, fk + [cutlass.Float32(scale), True, 1, stream()],
                [("ptr", n) for n, _ in bufs] + [("f32", scale), ("stream",)])
    c = case("hopper_dense_gemm_fp8_gelu_persistent",
             "hopper/kernel/dense_gemm/dense_gemm_fp8_gelu_persistent.py", "sm_90a",
             dict(M=M, N=N, K=K), build, setup, ["a", "b"], ["c"],
             "numpy float64 0.5 x (1 + erf(x / sqrt 2)) of x = scale A B^T (exact x)")
    c["tolerance"] = dict(rtol=2.0 ** -10, atol=2.0 ** -24,
                          why="the f16 rounding of C (2^-11 relative) and the kernel's f32 erf and "
                              "GELU arithmetic (a few f32 ulp); atol: f16's smallest subnormal")
    return c


#: the template tensors' run-time shape and stride fields as the host passes them: (8, 8), row
#: stride 8, batch stride 64
LAYOUT_8x8 = (8, 8, 8, 64)
#: the same with a run-time L mode, as the examples' host makes the templates (cute_tensor_like
#: with is_dynamic_layout: every mode dynamic): shape (8, 8, 1), strides 8 and 64
LAYOUT_8x8x1 = (8, 8, 1, 8, 64)


def grouped_gemm(sizes, mode="SMEM", arch="sm_100a", dynamic_l=False):
    """Blackwell grouped GEMM: C_g (M_g, N_g) f16 = A_g B_g^T per group, K-major A and B, N-major
    C, inputs in {-1, 0, 1} (exact). The kernel finds each group's tensors through a device table
    of their addresses (``ptrs``: a DeviceTable) and rewrites its tensor maps on the device
    (tensormap.replace in shared (SMEM) or global (GMEM) memory, then fence.proxy.tensormap);
    the initial maps are made from 8 x 8 template tensors, as the example's host makes them."""
    G = len(sizes)
    tiles = sum(-(-m // 128) * -(-n // 128) for m, n, _ in sizes)

    def build(rng):
        bufs, ref, table = [], {}, []
        for g, (m, n, k) in enumerate(sizes):
            a = rng.integers(-1, 2, (m, k)).astype(np.float16)
            b = rng.integers(-1, 2, (n, k)).astype(np.float16)
            bufs += [(f"a{g}", a), (f"b{g}", b), (f"c{g}", np.zeros((m, n), np.float16))]
            ref[f"c{g}"] = gemm_ref(a, b, np.float16)
            table += [(24 * g + 8 * i, f"{x}{g}") for i, x in enumerate("abc")]
        c["tables"] = {"ptrs": table}
        c["layouts"] = {n: ((8, 8, 1), (8, 1, 64)) for n in ("init_a", "init_b", "init_c")}
        bufs += [("init_a", np.zeros((8, 8), np.float16)), ("init_b", np.zeros((8, 8), np.float16)),
                 ("init_c", np.zeros((8, 8), np.float16)),
                 ("problem", np.array([[m, n, k, 1] for m, n, k in sizes], np.int32)),
                 ("strides", np.array([[[k, 1], [k, 1], [n, 1]] for m, n, k in sizes], np.int32)),
                 ("ptrs", np.zeros((G, 3), np.int64)),
                 ("tensormaps", np.zeros((tiles, 3, 16), np.int64))]
        return bufs, ref

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.nvgpu import cpasync  # noqa: F401  (the example's own import chain)
        import cutlass.utils as utils
        from cutlass.cute.runtime import make_fake_compact_tensor
        by = dict(bufs)
        # the templates have run-time layouts, as the example's (cute_tensor_like, dynamic): a
        # static one lets the compiler fold every tile coordinate to the template's one tile
        fk = {n: make_fake_compact_tensor(cutlass.Float16, (cute.sym_int(divisibility=8),
                                                            cute.sym_int(),
                                                            cute.sym_int() if dynamic_l else 1),
                                          stride_order=(1, 0, 2), assumed_align=16)
              for n in ("init_a", "init_b", "init_c")}
        dev = {n: fake(cute, cutlass, by[n]) for n in ("problem", "strides", "ptrs", "tensormaps")}
        um = getattr(utils.TensorMapUpdateMode, mode)
        if arch == "sm_100a":
            k = mod.GroupedGemmKernel(cutlass.Float32, False, (128, 128), (1, 1), um)
        else:
            k = mod.HopperGroupedGemmPersistentKernel(cutlass.Float32, (128, 128), (1, 1), 1,
                                                      True, um)
        args = [fk["init_a"], fk["init_b"], fk["init_c"], G, dev["problem"], dev["strides"],
                dev["ptrs"], tiles, dev["tensormaps"], tiles, stream()]
        lay = LAYOUT_8x8x1 if dynamic_l else LAYOUT_8x8
        rt = [("ptr", n, lay) for n in ("init_a", "init_b", "init_c")] + [
            ("ptr", n) for n in ("problem", "strides", "ptrs", "tensormaps")] + [("stream",)]
        return k, args, rt
    outs = [f"c{g}" for g in range(G)]
    ins = [f"{x}{g}" for g in range(G) for x in "ab"] + ["init_a", "init_b", "init_c", "problem",
                                                           "strides", "ptrs", "tensormaps"]
    c = case(("bw" if arch == "sm_100a" else "hopper") + "_grouped_gemm"
             + ("" if mode == "SMEM" else "_gmem"),
             ("blackwell" if arch == "sm_100a" else "hopper") + "/kernel/grouped_gemm/grouped_gemm.py",
             arch,
             dict(groups=[list(x) for x in sizes]), build, setup, ins, outs,
             "numpy float64 A_g B_g^T of integer inputs per group (exact)")
    return c


def copy_case(name, example, make, M, N, transpose):
    def build(rng):
        a = rng.integers(-8, 9, (M, N)).astype(np.float16)
        out = np.ascontiguousarray(a.T) if transpose else a.copy()
        return [("src", a), ("dst", np.zeros_like(out))], {"dst": out}

    def setup(mod, cute, cutlass, bufs):
        return make(mod), [fake(cute, cutlass, a) for _, a in bufs], [("ptr", "src"), ("ptr", "dst")]
    return case(name, example, "sm_100a", dict(M=M, N=N), build, setup, ["src"], ["dst"], EXACT)


TUT = "blackwell/tutorial/tutorial_gemm/"


def tutorial_gemms(s):
    out = []
    for i, extra in (("0", []), ("1", []), ("2", []), ("3", [1]), ("3_1", [1]), ("5", [1])):
        out.append(gemm(f"bw_tutorial_fp16_gemm_{i}", f"{TUT}fp16_gemm_{i}.py", "sm_100a",
                        128 * s if i == "0" else 256 * s, 256, 64,
                        lambda mod, cutlass: mod.host_function,
                        extra=lambda cutlass, e=extra: list(e), stream_arg=False))
    return out


def pending(size):
    """Cases the generator cannot record yet (make_corpus.py --pending tries them): none."""
    return []


def cases(size):
    s = 1 if size == "small" else 4
    return [
        ew_add(64 * s, 256),
        ew_apply("mul", 64 * s, 256),
        ew_apply("leaky_relu", 64 * s, 256),
        sgemm(128 * s, 128, 64),
        tensorop_gemm(128 * s, 128, 64),
        fa2(1, 128 * s, 1, 64, False),
        fa2(1, 128 * s, 1, 64, True),
        hstu(1, 128 * s, 1, 64, False),
        hstu(1, 128 * s, 1, 64, True),
        cta_norm("layer", 4 * s, 1024),
        cta_norm("rms", 4 * s, 1024),
        rmsnorm("sm_100a", 4 * s, 1024),  # x and o: by-value structs of address and row count
        rmsnorm("sm_90a", 4 * s, 1024),
        *tutorial_gemms(s),
        hopper_fmha(128 * s, 64),
        hopper_fmha(128 * s, 64, causal=True),
        blackwell_fmha(128 * s, 64),  # maps over run-time layouts: the case states them
        blackwell_fmha(256 * s, 64, causal=True),  # two Q stages of 128 rows each
        copy_case("bw_tma_v0_copy", "blackwell/tutorial/tutorial_tma/tma_v0.py",
                  lambda mod: mod.Sm100SimpleCopyKernel(), 128, 128 * s, False),
        copy_case("bw_tma_v1_transpose", "blackwell/tutorial/tutorial_tma/tma_v1.py",
                  lambda mod: mod.Sm100MatrixTransposeKernelV1(), 128, 128 * s, True),
        gemm("bw_dense_gemm_software_pipeline",
             "blackwell/kernel/dense_gemm/dense_gemm_software_pipeline.py", "sm_100a",
             128 * s, 128, 128, lambda mod, cutlass: mod.DenseGemmKernel(
                 cutlass.Float32, False, (128, 128), (1, 1), True), c="float32", l_mode=True),
        gemm("bw_dense_gemm_persistent_prefetch",
             "blackwell/kernel/dense_gemm/dense_gemm_persistent_prefetch.py", "sm_100a",
             256 * s, 128, 128, lambda mod, cutlass: mod.PersistentDenseGemmKernel(
                 cutlass.Float32, False, (128, 128), (1, 1), True, 2), c="float32", l_mode=True,
             extra=lambda cutlass: [1]),
        hopper_fp8_2xacc(128 * s, 128, 256),
        hopper_fp8_gelu(256 * s, 128, 128),
        grouped_gemm([(128, 128, 64 * s), (256, 128, 128)]),
        grouped_gemm([(128, 256, 64), (128, 128, 64 * s)], mode="GMEM"),
        alpha_beta(256 * s, 128, 128),
        gemm("bw_dense_gemm_persistent_dynamic",
             "blackwell/kernel/dense_gemm/dense_gemm_persistent_dynamic.py", "sm_100a",
             256 * s, 128, 128, lambda mod, cutlass: mod.PersistentDenseGemmKernel(
                 cutlass.Float32, False, (128, 128), (1, 1), True, 1, "m", 1), c="float32",
             l_mode=True),
        gemm("hopper_dense_gemm_persistent", "hopper/kernel/dense_gemm/dense_gemm_persistent.py",
             "sm_90a", 256 * s, 128, 128, lambda mod, cutlass: mod.HopperWgmmaGemmPersistentKernel(
                 cutlass.Float32, (128, 128), (1, 1), 1, True), c="float16", l_mode=True,
             extra=lambda cutlass: [1]),
        # its loads are NVVM cp.async.bulk.tensor.3d ops with coordinates (k, m, 0): the
        # templates' L mode must be run-time, as the example's host makes it, for the rank-3
        # maps those copies need (with a static L the DSL drops the mode and encodes rank 2)
        grouped_gemm([(128, 128, 64 * s), (256, 128, 128)], arch="sm_90a", dynamic_l=True),
        grouped_gemm([(128, 256, 64), (128, 128, 64 * s)], mode="GMEM", arch="sm_90a",
                     dynamic_l=True),
    ]
