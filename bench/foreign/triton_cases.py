"""The Triton tutorial kernels of the foreign corpus (triton_corpus.py compiles them): per kernel its
arguments in order (``buf`` a buffer, ``i32`` / ``f32`` a scalar, ``constexpr``), the launch the
tutorial's host code makes, the inputs (small integers where the kernel allows) and the numpy
reference, and for approximate math the tolerance with its reason.
"""
from __future__ import annotations

import numpy as np

from cute_cases import attention_ref

EXACT = "numpy float64 of integer inputs (exact)"
#: the tutorial files' commits in the triton-lang/triton snapshot the sources were read from
COMMITS = {"02-fused-softmax.py": "fd237c7cf9a7262f32fedbaa5027ab2736ead134",
           "03-matrix-multiplication.py": "7649d87cce6c12361bb9da234b9b227b2880b499",
           "05-layer-norm.py": "545699290b851e70231ee3017481851170f1583d",
           "06-fused-attention.py": "dc6ee3ed2cf9b2b436544d6153351f9bc679cc61",
           "gluon/06-tcgen05.py": "4f2ebca71ab1aae908061a05a9a4e2d2b5104318",
           "gluon/04-tma.py": "0c8ca22f3ce3b257c60ed9e847c62beb25bc3501"}


def case(name, file, kernel, args, grid, options, build, inputs, outputs, reference, shape,
         tolerance=None):
    return dict(name=name, file=file, kernel=kernel, args=args, grid=grid, options=options,
                build=build, inputs=inputs, outputs=outputs, reference=reference, shape=shape,
                tolerance=tolerance, commit=COMMITS[file])


def softmax(rows, cols, programs):
    def build(rng):
        x = rng.integers(-8, 9, (rows, cols)).astype(np.float32)
        e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
        return ([("y", np.zeros_like(x)), ("x", x)],
                {"y": (e / e.sum(1, keepdims=True)).astype(np.float32)})
    block = 1 << (cols - 1).bit_length()
    return case("softmax", "02-fused-softmax.py", "softmax_kernel",
                [("output_ptr", "buf", "y"), ("input_ptr", "buf", "x"),
                 ("input_row_stride", "i32", cols), ("output_row_stride", "i32", cols),
                 ("n_rows", "i32", rows), ("n_cols", "i32", cols),
                 ("BLOCK_SIZE", "constexpr", block), ("num_stages", "constexpr", 2)],
                (programs,), dict(num_warps=8), build, ["x"], ["y"],
                "numpy float64 softmax of integer inputs", dict(rows=rows, cols=cols),
                dict(rtol=2.0 ** -16, atol=0.0,
                     why="exp as x * log2(e) rounded to f32 then ex2.approx.ftz.f32 (relative "
                         "2^-22 + |x log2 e| 2^-24 ln 2 for |x| < 24: < 2^-18), the f32 sum of "
                         "up to 256 terms and div.full.f32 (2 ulp)"))


def matmul(M, N, K):
    def build(rng):
        a = rng.integers(-2, 3, (M, K)).astype(np.float16)
        b = rng.integers(-2, 3, (K, N)).astype(np.float16)
        c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
        return [("a", a), ("b", b), ("c", np.zeros((M, N), np.float16))], {"c": c}
    bm, bn, bk = 128, 128, 32  # an entry of the tutorial's CUDA autotune list
    grid = (-(-M // bm)) * (-(-N // bn))
    return case("matmul", "03-matrix-multiplication.py", "matmul_kernel",
                [("a_ptr", "buf", "a"), ("b_ptr", "buf", "b"), ("c_ptr", "buf", "c"),
                 ("M", "i32", M), ("N", "i32", N), ("K", "i32", K),
                 ("stride_am", "i32", K), ("stride_ak", "i32", 1),
                 ("stride_bk", "i32", N), ("stride_bn", "i32", 1),
                 ("stride_cm", "i32", N), ("stride_cn", "i32", 1),
                 ("BLOCK_SIZE_M", "constexpr", bm), ("BLOCK_SIZE_N", "constexpr", bn),
                 ("BLOCK_SIZE_K", "constexpr", bk), ("GROUP_SIZE_M", "constexpr", 8),
                 ("ACTIVATION", "constexpr", "")],
                (grid,), dict(num_warps=4, num_stages=4), build, ["a", "b"], ["c"], EXACT,
                dict(M=M, N=N, K=K))


LN_TOL = dict(rtol=2.0 ** -10, atol=2.0 ** -14,
              why="y rounded to f16 (2^-11 relative), rstd = 1 / sqrt.approx.f32 (2^-22 "
                  "relative) of an exact integer variance; mean and rstd outputs f32")


def ln_stats(x, eps):
    xd = x.astype(np.float64)
    mean = xd.mean(1)
    rstd = 1 / np.sqrt(((xd - mean[:, None]) ** 2).mean(1) + eps)
    return mean, rstd


def layer_norm_fwd(M, N):
    eps = 1e-5

    def build(rng):
        x = rng.integers(-8, 9, (M, N)).astype(np.float16)
        w = rng.integers(-3, 4, (N,)).astype(np.float16)
        b = rng.integers(-3, 4, (N,)).astype(np.float16)
        mean, rstd = ln_stats(x, eps)
        y = (x.astype(np.float64) - mean[:, None]) * rstd[:, None] * w + b
        bufs = [("x", x), ("y", np.zeros_like(x)), ("w", w), ("b", b),
                ("mean", np.zeros(M, np.float32)), ("rstd", np.zeros(M, np.float32))]
        return bufs, {"y": y.astype(np.float16), "mean": mean.astype(np.float32),
                      "rstd": rstd.astype(np.float32)}
    block = 1 << (N - 1).bit_length()
    return case("layer_norm_fwd", "05-layer-norm.py", "_layer_norm_fwd_fused",
                [("X", "buf", "x"), ("Y", "buf", "y"), ("W", "buf", "w"), ("B", "buf", "b"),
                 ("Mean", "buf", "mean"), ("Rstd", "buf", "rstd"), ("stride", "i32", N),
                 ("N", "i32", N), ("eps", "f32", eps), ("BLOCK_SIZE", "constexpr", block)],
                (M,), dict(num_warps=min(max(block // 256, 1), 8)), build, ["x", "w", "b"],
                ["y", "mean", "rstd"], "numpy float64 layer norm of integer inputs",
                dict(M=M, N=N), LN_TOL)


def layer_norm_bwd_dx(M, N):
    """dx, and the per-group partial dw / db (GROUP_SIZE_M = 256 for N <= 1024, one row per
    group here: no accumulation across rows), from x, dy, w and the forward's mean / rstd."""
    group = 256

    def build(rng):
        x = rng.integers(-8, 9, (M, N)).astype(np.float16)
        dy = rng.integers(-4, 5, (M, N)).astype(np.float16)
        w = rng.integers(-3, 4, (N,)).astype(np.float16)
        mean, rstd = ln_stats(x, 1e-5)
        mean, rstd = mean.astype(np.float32), rstd.astype(np.float32)
        xhat = (x.astype(np.float64) - mean[:, None]) * rstd[:, None]
        wdy = w.astype(np.float64) * dy
        c1 = (xhat * wdy).sum(1, keepdims=True) / N
        c2 = wdy.sum(1, keepdims=True) / N
        dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
        dw = np.zeros((group, N)), np.zeros((group, N))
        dw[0][:M], dw[1][:M] = dy * xhat, dy
        bufs = [("dx", np.zeros_like(x)), ("dy", dy), ("dw", np.zeros((group, N), np.float16)),
                ("db", np.zeros((group, N), np.float16)), ("x", x), ("w", w), ("mean", mean),
                ("rstd", rstd), ("lock", np.zeros(2 * group, np.int32))]
        return bufs, {"dx": dx.astype(np.float16), "dw": dw[0].astype(np.float16),
                      "db": dw[1].astype(np.float16)}
    block = 1 << (N - 1).bit_length()
    return case("layer_norm_bwd_dx", "05-layer-norm.py", "_layer_norm_bwd_dx_fused",
                [("DX", "buf", "dx"), ("DY", "buf", "dy"), ("DW", "buf", "dw"),
                 ("DB", "buf", "db"), ("X", "buf", "x"), ("W", "buf", "w"),
                 ("Mean", "buf", "mean"), ("Rstd", "buf", "rstd"), ("Lock", "buf", "lock"),
                 ("stride", "i32", N), ("N", "i32", N), ("GROUP_SIZE_M", "constexpr", group),
                 ("BLOCK_SIZE_N", "constexpr", block)],
                (M,), dict(num_warps=min(max(block // 256, 1), 8)), build,
                ["dy", "x", "w", "mean", "rstd"], ["dx", "dw", "db"],
                "numpy float64 layer-norm gradients from the given mean / rstd",
                dict(M=M, N=N),
                dict(rtol=2.0 ** -10, atol=2.0 ** -9,
                     why="outputs rounded to f16 (2^-11 relative); dx's f32 sums of N products "
                         "cancel, so an absolute bound of a few f16 ulps of 1 as well"))


def layer_norm_dwdb(G, N):
    def build(rng):
        dw = rng.integers(-4, 5, (G, N)).astype(np.float16)
        db = rng.integers(-4, 5, (G, N)).astype(np.float16)
        return ([("dw", dw), ("db", db), ("fdw", np.zeros(N, np.float16)),
                 ("fdb", np.zeros(N, np.float16))],
                {"fdw": dw.astype(np.float64).sum(0).astype(np.float16),
                 "fdb": db.astype(np.float64).sum(0).astype(np.float16)})
    return case("layer_norm_bwd_dwdb", "05-layer-norm.py", "_layer_norm_bwd_dwdb",
                [("DW", "buf", "dw"), ("DB", "buf", "db"), ("FINAL_DW", "buf", "fdw"),
                 ("FINAL_DB", "buf", "fdb"), ("M", "i32", G), ("N", "i32", N),
                 ("BLOCK_SIZE_M", "constexpr", 32), ("BLOCK_SIZE_N", "constexpr", 128)],
                (-(-N // 128),), dict(num_warps=4), build, ["dw", "db"], ["fdw", "fdb"],
                EXACT, dict(G=G, N=N))


def attention_fwd(Z, H, S, D, causal):
    scale = 0.5

    def build(rng):
        q, k, v = (rng.integers(-2, 2, (Z, H, S, D)).astype(np.float16) for _ in range(3))
        t = lambda a: a.transpose(0, 2, 1, 3)  # (Z, S, H, D) for attention_ref
        o = t(attention_ref(t(q), t(k), t(v), scale, causal))
        s = np.einsum("zhqd,zhkd->zhqk", q.astype(np.float64), k.astype(np.float64)) * scale
        if causal:
            s = np.where(np.arange(S)[None, :] <= np.arange(S)[:, None], s, -np.inf)
        lse2 = np.log2(np.exp(s - s.max(-1, keepdims=True)).sum(-1)) + s.max(-1) / np.log(2)
        bufs = [("q", q), ("k", k), ("v", v), ("m", np.zeros((Z * H, S), np.float32)),
                ("o", np.zeros_like(q))]
        return bufs, {"o": o.astype(np.float16), "m": lse2.reshape(Z * H, S).astype(np.float32)}
    st = [S * H * D, S * D, D, 1]
    args = [("Q", "buf", "q"), ("K", "buf", "k"), ("V", "buf", "v"), ("sm_scale", "f32", scale),
            ("M", "buf", "m"), ("Out", "buf", "o")]
    for t, rows, cols in (("q", "m", "k"), ("k", "n", "k"), ("v", "k", "n"), ("o", "m", "n")):
        args += [(f"stride_{t}{x}", "i32", s) for x, s in zip(("z", "h", rows, cols), st)]
    args += [("Z", "i32", Z), ("H", "i32", H), ("N_CTX", "i32", S),
             ("HEAD_DIM", "constexpr", D), ("BLOCK_M", "constexpr", 128),
             ("BLOCK_N", "constexpr", 64), ("STAGE", "constexpr", 3 if causal else 1)]
    c = case("attention_fwd" + ("_causal" if causal else ""), "06-fused-attention.py",
                "_attn_fwd", args, (S // 128, Z * H), dict(num_warps=4, num_stages=3), build,
                ["q", "k", "v"], ["o", "m"], "numpy float64 softmax(scale Q K^T) V",
                dict(Z=Z, H=H, S=S, D=D),
                dict(atol_from="v", atol=4 * 2.0 ** -11, rtol=2.0 ** -18,
                     why="O: P rounded to f16 before P V (2^-11 max|V|), O rounded to f16; M "
                         "(log2 of the row sums): lg2.approx.f32 and ex2.approx.f32, f32 sums"))
    c["triton"] = "3.5.0"  # the stored tutorial's block pointers: removed in triton 3.9
    return c


def gluon_tmem_copy(M, N, warps):
    """Gluon's Blackwell TMEM tutorial kernel: a tile through tensor memory (tcgen05.st, tcgen05.ld)
    and back; its output is its input, bit for bit."""
    def build(rng):
        x = rng.integers(-4, 5, (M, N)).astype(np.float32)
        return [("x", x), ("y", np.zeros_like(x))], {"y": x.copy()}
    c = case(f"gluon_tmem_copy_{M}x{N}_w{warps}", "gluon/06-tcgen05.py", "tmem_example_kernel",
             [("in_ptr", "buf", "x"), ("out_ptr", "buf", "y"), ("M", "constexpr", M),
              ("N", "constexpr", N), ("num_warps", "constexpr", warps)],
             (1,), dict(num_warps=warps), build, ["x"], ["y"], "the input (a copy)",
             dict(M=M, N=N))
    c.update(triton="3.5.0", ccs=(100,))
    return c


def gluon_tma_memcpy(n, xblock):
    """Gluon's TMA tutorial: a 1-D copy through shared memory, TMA both ways, the tensors passed as
    host TensorDescriptors (bench/foreign/triton_desc.py); the output is the input, bit for bit."""
    def build(rng):
        x = (rng.integers(-64, 65, n) / 8).astype(np.float32)
        return [("x", x), ("y", np.zeros_like(x))], {"y": x.copy()}
    c = case(f"gluon_tma_memcpy_{n}", "gluon/04-tma.py", "memcpy_1d_tma_kernel",
             [("in_desc", "desc", ("x", (xblock,))), ("out_desc", "desc", ("y", (xblock,))),
              ("XBLOCK", "constexpr", xblock)],
             (-(-n // xblock),), dict(num_warps=1), build, ["x"], ["y"], "the input (a copy)",
             dict(n=n, XBLOCK=xblock))
    c.update(triton="3.5.0")  # the stored source's API (3.9 renamed its TMA copies)
    return c


def gluon_tma_add(M, N, xblock=32, yblock=64, buffers=2):
    """Gluon's TMA tutorial: the pipelined elementwise add, A, B and C as host TensorDescriptors;
    one f32 addition per element, as numpy's float32 rounds it (exact on these dyadic inputs)."""
    def build(rng):
        a = (rng.integers(-64, 65, (M, N)) / 8).astype(np.float32)
        b = (rng.integers(-64, 65, (M, N)) / 8).astype(np.float32)
        return [("a", a), ("b", b), ("c", np.zeros_like(a))], {"c": a + b}
    blk = (xblock, yblock)
    c = case(f"gluon_tma_add_{M}x{N}", "gluon/04-tma.py", "elementwise_add_tma_kernel",
                [("a_desc", "desc", ("a", blk)), ("b_desc", "desc", ("b", blk)),
                 ("c_desc", "desc", ("c", blk)), ("xnumel", "i32", M), ("ynumel", "i32", N),
                 ("XBLOCK", "constexpr", xblock), ("YBLOCK", "constexpr", yblock),
                 ("num_buffers", "constexpr", buffers)],
                (-(-M // xblock),), dict(num_warps=4), build, ["a", "b"], ["c"],
                "numpy float32 a + b (exact)", dict(M=M, N=N))
    c.update(triton="3.5.0")
    return c


def cases(size):
    s = 1 if size == "small" else 4
    return [softmax(8 * s, 200, 4), matmul(128 * s, 128, 64 * s), layer_norm_fwd(4 * s, 512),
            layer_norm_bwd_dx(4 * s, 512), layer_norm_dwdb(64, 256 * s),
            gluon_tmem_copy(128, 64 * s, 4), gluon_tmem_copy(128, 128 * s, 8),
            attention_fwd(1, 2, 128 * s, 64, False), attention_fwd(1, 2, 128 * s, 64, True),
            gluon_tma_memcpy(500 * s, 64), gluon_tma_add(64 * s, 256)]
