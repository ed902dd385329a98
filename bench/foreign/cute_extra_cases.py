"""More CuTe DSL examples of the foreign corpus, driven as cute_cases.py drives its own (through
cute_generic.py: static fake tensors, pointers and scalars; each case its buffers, its numpy
reference from the inputs and, for approximate math, its tolerance and why)."""
from __future__ import annotations

import numpy as np

from cute_cases import EXACT, case, ew_add_build, fake, stream


def ew_add_autotune(M, N, copy_bits=128):
    """ampere/tutorial/elementwise_add_autotune.py's ``ElementwiseAddWrapper`` (the class its
    tuner compiles) at one of the tuner's candidates: C = A + B in f16, M and N not multiples of
    the (16, 256) tile, so the predicates on the coordinate tensor decide the edge tiles; inputs
    small integers (the sums exact)."""
    build = ew_add_build(M, N)

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, a) for _, a in bufs]
        return (mod.ElementwiseAddWrapper(copy_bits), fk + [M, N],
                [("ptr", n) for n, _ in bufs] + [("i32", M), ("i32", N)])
    return case("ampere_elementwise_add_autotune",
                "ampere/tutorial/elementwise_add_autotune.py", "sm_80", dict(M=M, N=N,
                                                                              copy_bits=copy_bits),
                build, setup, ["a", "b"], ["c"], "numpy float16 A + B of integer inputs (exact)")


EFC = "blackwell/efc/"
#: the compiler options custom_epilogue_dense_gemm.py's run() passes (the others pass none)
EFC_OPTIONS = "--opt-level=3 --enable-assertions --generate-line-info"


def efc_setup(make, supp):
    """cute_generic's setup of a DenseGemmEFC example: A, B and the epilogue's tensors (M, N, 1)
    static fakes, ``supp`` the epilogue's arguments in order (("ptr", buffer) or ("f32", value)),
    compiled as DenseGemmEFC.compile compiles (the EFC analysed, its arguments packed)."""
    def setup(mod, cute, cutlass, bufs):
        fk = {n: fake(cute, cutlass, a, a.shape + (1,), (1, 0, 2)) for n, a in bufs}
        g = make(mod, cutlass)
        args = tuple(fk[v] if k == "ptr" else v for k, v in supp)
        g.efc.compile(args)
        return (g, [fk["a"], fk["b"], 1, stream(), g.efc.jit.pack_arguments(*args)],
                [("ptr", "a"), ("ptr", "b"), ("stream",)] + list(supp))
    return setup


def efc_alpha_beta(M, N, K, alpha=2.0, beta=0.5, x_factor=3.0):
    """blackwell/efc/custom_epilogue_dense_gemm.py: the persistent dense GEMM with the epilogue
    its run() configures, Y = A B^T and D = relu(alpha A B^T + beta C) + x_factor X (f16 A and B,
    f32 C, D, X, Y, f32 epilogue math, all (M, N, 1) N-major). Inputs small integers and the
    factors dyadic, so every value is exact in f32 and D and Y must match bit for bit."""
    def epilogue(efc_config, C, D, alpha, beta, X, x_factor, Y):  # as run() writes it
        Y.store(efc_config.accum())
        result = (efc_config.relu(efc_config.accum() * alpha + C.load() * beta)
                  + X.load() * x_factor)
        D.store(result)

    def build(rng):
        a = rng.integers(-1, 2, (M, K)).astype(np.float16)
        b = rng.integers(-1, 2, (N, K)).astype(np.float16)
        c = rng.integers(-4, 5, (M, N)).astype(np.float32)
        x = rng.integers(-4, 5, (M, N)).astype(np.float32)
        acc = a.astype(np.float64) @ b.astype(np.float64).T
        d = np.maximum(alpha * acc + beta * c, 0.0) + x_factor * x
        z = lambda: np.zeros((M, N), np.float32)
        return ([("a", a), ("b", b), ("c", c), ("d", z()), ("x", x), ("y", z())],
                {"d": d.astype(np.float32), "y": acc.astype(np.float32)})

    supp = [("ptr", "c"), ("ptr", "d"), ("f32", alpha), ("f32", beta), ("ptr", "x"),
            ("f32", x_factor), ("ptr", "y")]
    setup = efc_setup(lambda mod, cutlass: mod.DenseGemmAlphaBeta(
        cutlass.Float32, cutlass.Float32, False, (128, 128), (1, 1), epilogue), supp)
    c = case("bw_efc_custom_epilogue_dense_gemm", f"{EFC}custom_epilogue_dense_gemm.py",
             "sm_100a", dict(M=M, N=N, K=K), build, setup, ["a", "b", "c", "x"], ["d", "y"],
             "numpy float64 Y = A B^T, D = relu(alpha Y + beta C) + x_factor X of integer "
             "inputs (exact)")
    c["compile_kwargs"] = dict(options=EFC_OPTIONS)
    return c


def efc_activation(M, N, K, activation, alpha=0.5, beta=2.0, bias=0.5, scale_a=0.5,
                   scale_b=2.0, scale_c=0.25, leaky=0.01):
    """blackwell/efc/activation_custom_epilogue_dense_gemm.py with the epilogue its
    create_epilogue_function makes: Aux = (alpha scale_a scale_b) A B^T + (beta scale_c) C + bias,
    D = activation(Aux) (f16 A and B, f32 C, Aux, D and epilogue math). Inputs small integers and
    the factors dyadic: Aux is exact in f32; relu (the example's default) is exact too."""
    c = None

    def build(rng):
        a = rng.integers(-1, 2, (M, K)).astype(np.float16)
        b = rng.integers(-1, 2, (N, K)).astype(np.float16)
        src = rng.integers(-4, 5, (M, N)).astype(np.float32)
        acc = a.astype(np.float64) @ b.astype(np.float64).T
        aux = alpha * scale_a * scale_b * acc + beta * scale_c * src + bias
        if activation == "relu":
            d = np.maximum(aux, 0.0)
        else:  # sigmoid
            d = 1.0 / (1.0 + np.exp(-aux))
            # ex2.approx.ftz.f32 (2^-22 relative, tile-sim's model of it) of the f32 product
            # -x log2 e, whose rounding is |x| 2^-24 relative in exp(-x); the f32 add and the
            # rcp.rn.f32 the kernel divides by round within 2^-24 relative each: through
            # sigmoid's slope (at most 1/4) and its value (at most 1), under
            # (|x|max 2^-24 + 2^-22) / 4 + 2^-22
            bound = (np.abs(aux).max() * 2.0 ** -24 + 2.0 ** -22) / 4 + 2.0 ** -22
            c["tolerance"] = dict(atol=float(2 * bound), rtol=0.0,
                                  why="ex2.approx.ftz.f32 of the rounded -x log2 e (2^-22 and "
                                      "|x| 2^-24 relative in exp(-x)), the f32 add and rcp.rn "
                                      "(2^-24 each), through sigmoid's slope <= 1/4; doubled")
        z = lambda: np.zeros((M, N), np.float32)
        return ([("a", a), ("b", b), ("c", src), ("aux", z()), ("d", z())],
                {"aux": aux.astype(np.float32), "d": d.astype(np.float32)})

    supp = [("ptr", "c"), ("ptr", "aux"), ("f32", alpha), ("f32", beta), ("f32", bias),
            ("f32", scale_a), ("f32", scale_b), ("f32", scale_c), ("ptr", "d"), ("f32", leaky)]
    setup = efc_setup(lambda mod, cutlass: mod.DenseGemmActivation(
        cutlass.Float32, cutlass.Float32, False, (128, 128), (1, 1),
        mod.create_epilogue_function(activation), activation), supp)
    c = case(f"bw_efc_activation_{activation}", f"{EFC}activation_custom_epilogue_dense_gemm.py",
             "sm_100a", dict(M=M, N=N, K=K, activation=activation), build, setup,
             ["a", "b", "c"], ["aux", "d"],
             f"numpy float64 Aux = alpha scale_a scale_b A B^T + beta scale_c C + bias, "
             f"D = {activation}(Aux) of integer inputs")
    return c


def efc_synthetic(M, N, K, reads=2, writes=3, alpha=2.0, beta=1.0):
    """blackwell/efc/synthetic_custom_epilogue_dense_gemm.py with its run()'s synthetic epilogue
    (the example's documented command line: 2 read and 3 written f32 tensors, alpha 2, beta 1):
    r = beta + alpha sum_i R_i, doubled where r >= 1; t = A B^T; per written tensor W_j,
    t = alpha t + r + 5000, W_j = t. Inputs small integers: every value an integer under 2^24,
    exact in f32."""
    def meta_epilogue(common_efc):  # run()'s meta_epilogue(reads, writes), as it writes it
        names = (["efc_config", "alpha", "beta"] + [f"read_t{i}" for i in range(reads)]
                 + [f"written_t{i}" for i in range(writes)])

        def computation_impl(efc_config, alpha, beta, *tensors):
            read = beta
            for tensor in tensors[:reads]:
                read += tensor.load() * alpha
            if reads > 0:
                read = efc_config.where(read < 1, read, read * efc_config.full_like(read, 2))
            t = efc_config.accum()
            for tensor in tensors[reads:]:
                t = t * alpha + read + 5000
                tensor.store(t)
        return common_efc.create_named_epilogue(names, computation_impl)

    def build(rng):
        a = rng.integers(-1, 2, (M, K)).astype(np.float16)
        b = rng.integers(-1, 2, (N, K)).astype(np.float16)
        rs = [rng.integers(-4, 5, (M, N)).astype(np.float32) for _ in range(reads)]
        r = beta + sum(alpha * x.astype(np.float64) for x in rs)
        r = np.where(r < 1, r, 2 * r)
        t, ref = a.astype(np.float64) @ b.astype(np.float64).T, {}
        for j in range(writes):
            t = alpha * t + r + 5000
            ref[f"w{j}"] = t.astype(np.float32)
        z = lambda: np.zeros((M, N), np.float32)
        return ([("a", a), ("b", b)] + [(f"r{i}", x) for i, x in enumerate(rs)]
                + [(f"w{j}", z()) for j in range(writes)]), ref

    supp = ([("f32", alpha), ("f32", beta)] + [("ptr", f"r{i}") for i in range(reads)]
            + [("ptr", f"w{j}") for j in range(writes)])

    def make(mod, cutlass):
        import common_efc  # the example's sibling, as it imports it
        return mod.DenseGemmEFC(cutlass.Float32, cutlass.Float32, False, (128, 128), (1, 1),
                                meta_epilogue(common_efc))
    return case("bw_efc_synthetic_epilogue_dense_gemm",
                f"{EFC}synthetic_custom_epilogue_dense_gemm.py", "sm_100a",
                dict(M=M, N=N, K=K, read_tensors=reads, written_tensors=writes), build,
                efc_setup(make, supp), ["a", "b"] + [f"r{i}" for i in range(reads)],
                [f"w{j}" for j in range(writes)],
                "numpy float64 of the synthetic epilogue of integer inputs (exact)")


def _pack_int4(x):
    """Signed 4-bit values two per byte along the last axis, the low nibble first."""
    return ((x[..., 0::2] & 15) | (x[..., 1::2] & 15) << 4).astype(np.uint8)


def _shuffle_a(mod, cutlass, at, K, gk):
    """(whether the mixed-input examples' run() shuffles A, the toolchain's CUDA version), decided
    as run() decides it: the example's own rule, and only from CUDA 13.1 on."""
    shuffle = mod.mixed_input_utils.is_shuffle_a("m", K, at, cutlass.Float16, gk)
    ver = getattr(cutlass, "CUDA_VERSION", None)
    return shuffle and ver is not None and (ver.major, ver.minor) >= (13, 1), ver


#: mixed_input_gemm.py's two documented configurations: A's type, scale granularity (m, k), MMA
#: tile, cluster, 2-CTA MMA, TMA store
MIXED = {"i8": ("Int8", (0, 0), (128, 128, 64), (1, 1), False, False),
         "i4": ("Int4", (1, 256), (256, 128, 128), (2, 1), True, True)}


def mixed_input(kind, M, N, K):
    """blackwell/kernel/mixed_input_gemm/mixed_input_gemm.py in one of its two documented
    configurations (MIXED), with f16 for B and C (the example takes f16 or bf16; the corpus's numpy
    has no bf16). ``i8``: convert-only, C = cvt(A) B^T; ``i4``: convert-scale, C = (cvt(A) S) B^T,
    S (M, K/256, 1) f16 M-major, one scale per row and 256 K. A (M, K, 1) M-major (the example's
    default: buffer ``a`` is K rows of M, int4 packed two per byte, low nibble first), B (N, K, 1)
    K-major, C N-major. Inputs small integers (A in {-2..2} and S in {-2, -1, 1, 2} for int4, A in
    {-1, 0, 1} for int8; B in {-1, 0, 1}): every product and sum an integer below 2^11, exact in
    f16 and f32.
    The compiler options and A's shuffle are decided as run() decides them, from the toolchain."""
    a_type, (gm, gk), tiler, cluster, two_cta, tma_store = MIXED[kind]

    def build(rng):
        lo = -2 if kind == "i4" else -1
        a = rng.integers(lo, -lo + 1, (M, K))
        b = rng.integers(-1, 2, (N, K)).astype(np.float16)
        at = a.T  # M-major: K rows of M
        bufs = [("a", at.astype(np.int8) if kind == "i8" else _pack_int4(at))]
        aw = a.astype(np.float64)
        if kind == "i4":
            sc = rng.choice([-2, -1, 1, 2], (M, K // gk)).astype(np.float16)
            aw = aw * np.repeat(sc.astype(np.float64), gk, 1)
            bufs.append(("scale", np.ascontiguousarray(sc.T)))  # M-major
        ref = (aw @ b.astype(np.float64).T).astype(np.float16)
        return bufs + [("b", b), ("c", np.zeros((M, N), np.float16))], {"c": ref}

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_fake_compact_tensor
        by = dict(bufs)
        at = getattr(cutlass, a_type)
        shuffle, ver = _shuffle_a(mod, cutlass, at, K, gk)
        assert not shuffle, "a shuffled A: build() would have to store it shuffled"
        c["compile_kwargs"] = dict(options="--opt-level %d" % (
            3 if ver is None or (ver.major == 13 and ver.minor < 1) else 2))
        k = mod.MixedInputGemmKernel(gm, gk, cutlass.Float32, two_cta, tiler, cluster, tma_store,
                                     shuffle)
        fa = make_fake_compact_tensor(at, (M, K, 1), stride_order=(0, 1, 2), assumed_align=16)
        fs = (fake(cute, cutlass, by["scale"], (M, K // gk, 1), (0, 1, 2)) if kind == "i4"
              else None)
        fk = [fake(cute, cutlass, by["b"], (N, K, 1), (1, 0, 2)),
              fake(cute, cutlass, by["c"], (M, N, 1), (1, 0, 2))]
        return (k, [fa, fs, fk[0], fk[1], 1, stream()],
                [("ptr", "a")] + ([("ptr", "scale")] if kind == "i4" else [])
                + [("ptr", "b"), ("ptr", "c"), ("stream",)])
    c = case(f"bw_mixed_input_gemm_{kind}_f16",
             "blackwell/kernel/mixed_input_gemm/mixed_input_gemm.py", "sm_100a",
             dict(M=M, N=N, K=K, a=a_type, scale_granularity=[gm, gk], mma_tiler=list(tiler),
                  cluster=list(cluster), use_2cta_instrs=two_cta, use_tma_store=tma_store),
             build, setup, ["a", "b"] + (["scale"] if kind == "i4" else []), ["c"], EXACT)
    return c


#: the grouped mixed-input examples' documented configurations: file, class, A's type, scale
#: granularity (m, k), MMA tile, cluster, 2-CTA MMA
GROUPED_MIXED = {
    "i8": ("grouped_mixed_input_gemm", "GroupedMixedInputGemmKernel", "Int8", (0, 0),
           (128, 128, 64), (1, 1), False),
    "i4_acc_scale": ("grouped_mixed_input_gemm_acc_scale", "GroupedMixedInputGemmAccScaleKernel",
                     "Int4", (1, 256), (256, 16, 128), (2, 1), True)}


def grouped_mixed_input(kind, M, groups, K):
    """blackwell/kernel/mixed_input_gemm/grouped_mixed_input_gemm{,_acc_scale}.py in their
    documented configurations (GROUPED_MIXED; f16 B and C here, bf16 there): group g owns columns
    cumsum[g] .. cumsum[g+1] of B (fused N, K) and C (M, fused N), C[:, n] = cvt(A_g) B[n]^T
    (``i8``, convert-only) or S_g (cvt(A_g) B[n]^T) per 256 K (``i4_acc_scale``: the scale applied
    to the accumulator, S (M, K/256, G) f16 M-major), A (M, K, G) M-major (buffer ``a``: G blocks of
    K rows of M, int4 packed two per byte, low nibble first). Groups of 96 and 160 columns (48 and
    80 for the acc-scale kernel, whose 16-wide tiles make the run longer): multiples of the
    8-element alignment, not of the tile. Inputs small integers (A in {-2..2}
    and S in {-2, -1, 1, 2} for int4, A in {-1, 0, 1} for int8, B in {-1, 0, 1}): exact in f16
    and f32."""
    name, cls, a_type, (gm, gk), tiler, cluster, two_cta = GROUPED_MIXED[kind]
    G, fused = len(groups), sum(groups)
    cumsum = np.concatenate([[0], np.cumsum(groups)]).astype(np.int32)
    i4 = a_type == "Int4"
    c = None

    def build(rng):
        lo = -2 if i4 else -1
        a = rng.integers(lo, -lo + 1, (G, M, K))
        b = rng.integers(-1, 2, (fused, K)).astype(np.float16)
        aw = a.astype(np.float64)
        bufs = []
        if i4:
            sc = rng.choice([-2, -1, 1, 2], (G, M, K // gk)).astype(np.float16)
            aw = aw * np.repeat(sc.astype(np.float64), gk, 2)
            bufs.append(("scale", np.ascontiguousarray(sc.transpose(0, 2, 1))))  # M-major
        ref = np.zeros((M, fused))
        for g in range(G):
            cols = slice(cumsum[g], cumsum[g + 1])
            ref[:, cols] = aw[g] @ b[cols].astype(np.float64).T
        at = a.transpose(0, 2, 1)  # G blocks of K rows of M
        a_buf = _pack_int4(at) if i4 else np.ascontiguousarray(at).astype(np.int8)
        return ([("a", a_buf)] + bufs + [("b", b), ("cumsum", cumsum),
                                         ("c", np.zeros((M, fused), np.float16))],
                {"c": ref.astype(np.float16)})

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_fake_compact_tensor
        by = dict(bufs)
        at = getattr(cutlass, a_type)
        shuffle, _ = _shuffle_a(mod, cutlass, at, K, gk)
        assert not shuffle and mod.get_advanced_compiler_control_path() is None, \
            "run() would shuffle A or pass ptxas controls here"
        k = getattr(mod, cls)(gm, gk, cutlass.Float32, two_cta, tiler, cluster, G, shuffle)
        # B and C with a run-time L mode (1), as the example's dynamic layouts keep it: the
        # kernel indexes their third coordinate
        dyn = lambda dt, mn: make_fake_compact_tensor(dt, (mn[0], mn[1], cute.sym_int()),
                                                      stride_order=(1, 0, 2), assumed_align=16)
        c["layouts"] = {"b": ((fused, K, 1), (K, 1, fused * K)),
                        "c": ((M, fused, 1), (fused, 1, M * fused))}
        fa = make_fake_compact_tensor(at, (M, K, G), stride_order=(0, 1, 2), assumed_align=16)
        fs = fake(cute, cutlass, by["scale"], (M, K // gk, G), (0, 1, 2)) if i4 else None
        fk = [dyn(cutlass.Float16, (fused, K)), fake(cute, cutlass, by["cumsum"]),
              dyn(cutlass.Float16, (M, fused))]
        return (k, [fa, fs] + fk + [1, stream()],
                [("ptr", "a")] + ([("ptr", "scale")] if i4 else [])
                + [("ptr", "b", (1,)), ("ptr", "cumsum"), ("ptr", "c", (1,)), ("stream",)])
    c = case(f"bw_grouped_mixed_input_gemm_{kind}_f16",
             f"blackwell/kernel/mixed_input_gemm/{name}.py", "sm_100a",
             dict(M=M, groups=list(groups), K=K, a=a_type, scale_granularity=[gm, gk],
                  mma_tiler=list(tiler), cluster=list(cluster), use_2cta_instrs=two_cta),
             build, setup, ["a", "b", "cumsum"] + (["scale"] if i4 else []), ["c"], EXACT)
    return c


def blockwise(M, N, K):
    """blackwell/kernel/blockwise_gemm/blockwise_gemm.py (its documented configuration: e4m3 A and
    B K-major, f32 accumulator and scales, MMA tile 128 x 128; C f16 here, bf16 there: the corpus's
    numpy has no bf16; cluster 1 x 1): C = sum over 128-wide K blocks kb of (A_kb B_kb^T) SFA[m, kb]
    SFB[n / 128, kb], SFA (M, K/128, 1) M-major and SFB (N/128, K/128, 1) K-major as the example's
    create_tensors makes them. A and B in {-2..2} (stored as e4m3 codes), scales powers of two:
    every product, block sum and scaled sum is exact in f32, C one rounding to f16."""
    import blockscaled

    def build(rng):
        av, bv = rng.integers(-2, 3, (M, K)), rng.integers(-2, 3, (N, K))
        kb = -(-K // 128)
        sfa = rng.choice([0.25, 0.5, 1.0, 2.0], (M, kb)).astype(np.float32)
        sfb = rng.choice([0.25, 0.5, 1.0, 2.0], (-(-N // 128), kb)).astype(np.float32)
        c = _blockwise_ref(av, bv, sfa, sfb)
        return ([("a", blockscaled.codes_of("e4m3", av)), ("b", blockscaled.codes_of("e4m3", bv)),
                 ("c", np.zeros((M, N), np.float16)), ("sfa", np.ascontiguousarray(sfa.T)),
                 ("sfb", sfb)], {"c": c.astype(np.float16)})

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_fake_compact_tensor
        by = dict(bufs)
        fp8 = lambda mn: make_fake_compact_tensor(cutlass.Float8E4M3FN, (mn, K, 1),
                                                  stride_order=(1, 0, 2), assumed_align=16)
        kb = -(-K // 128)
        fk = [fp8(M), fp8(N), fake(cute, cutlass, by["c"], (M, N, 1), (1, 0, 2)),
              fake(cute, cutlass, by["sfa"], (M, kb, 1), (0, 1, 2)),  # buffer: K/128 rows of M
              fake(cute, cutlass, by["sfb"], (-(-N // 128), kb, 1), (1, 0, 2))]
        k = mod.BlockwiseGemmKernel(cutlass.Float32, False, (128, 128), (1, 1))
        return (k, fk + [1, stream()],
                [("ptr", n) for n in ("a", "b", "c", "sfa", "sfb")] + [("stream",)])
    return case("bw_blockwise_gemm", "blackwell/kernel/blockwise_gemm/blockwise_gemm.py",
                "sm_100a", dict(M=M, N=N, K=K), build, setup, ["a", "b", "sfa", "sfb"], ["c"],
                "numpy float64 of the e4m3 values, per 128-wide K block scaled by SFA and SFB "
                "(powers of two; exact), C rounded once to f16")


def _blockwise_ref(av, bv, sfa, sfb):
    """sum over 128-wide K blocks kb of (A_kb B_kb^T) sfa[m, kb] sfb[n / 128, kb], float64."""
    M, N = av.shape[0], bv.shape[0]
    c = np.zeros((M, N))
    for j in range(sfa.shape[1]):
        s = slice(128 * j, 128 * (j + 1))
        blk = av[:, s].astype(np.float64) @ bv[:, s].T.astype(np.float64)
        c += blk * sfa[:, j:j + 1] * np.repeat(sfb[:, j], 128)[None, :N]
    return c


def blockwise_grouped(kind, groups, N, K):
    """blockwise_gemm/{contiguous,masked}_grouped_gemm.py, one B (N, K) and SFB per group g, the
    blockwise scaling of blockwise(): ``contiguous``: A (sum M_g, K, 1) holds the groups' rows one
    after another (M_g multiples of 128), gidx_mapping (sum M_g,) int32 the group of each row;
    ``masked``: A (M, K, G), C (M, N, G), gidx_mapping (G,) int32 the rows M_g < M each group
    computes (the rest of C untouched: zero). Tensors made as the example's create_tensors makes
    them (SFA M-major, SFB K-major, L the group mode); e4m3 A and B in {-2..2}, power-of-two
    scales: exact, C one rounding to f16. Options as run() picks them (the toolchain's
    use_newer_backend_codegen)."""
    import blockscaled
    G, kb, nb = len(groups), -(-K // 128), -(-N // 128)
    cont = kind == "contiguous"
    M = sum(groups) if cont else 512

    def build(rng):
        bv = rng.integers(-2, 3, (G, N, K))
        sfb = rng.choice([0.25, 0.5, 1.0, 2.0], (G, nb, kb)).astype(np.float32)
        if cont:
            av = rng.integers(-2, 3, (M, K))
            sfa = rng.choice([0.25, 0.5, 1.0, 2.0], (M, kb)).astype(np.float32)
            gidx = np.repeat(np.arange(G), groups).astype(np.int32)
            c = np.zeros((M, N))
            for g in range(G):
                r = gidx == g
                c[r] = _blockwise_ref(av[r], bv[g], sfa[r], sfb[g])
            a_buf, sfa_buf = av, np.ascontiguousarray(sfa.T)
        else:
            av = rng.integers(-2, 3, (G, M, K))
            sfa = rng.choice([0.25, 0.5, 1.0, 2.0], (G, M, kb)).astype(np.float32)
            gidx = np.array(groups, np.int32)
            c = np.zeros((G, M, N))
            for g in range(G):
                m = groups[g]
                c[g, :m] = _blockwise_ref(av[g, :m], bv[g], sfa[g, :m], sfb[g])
            a_buf, sfa_buf = av, np.ascontiguousarray(sfa.transpose(0, 2, 1))
        e4m3 = lambda v: blockscaled.codes_of("e4m3", v)
        return ([("a", e4m3(a_buf)), ("b", e4m3(bv)),
                 ("c", np.zeros(c.shape, np.float16)), ("sfa", sfa_buf), ("sfb", sfb),
                 ("gidx_mapping", gidx)], {"c": c.astype(np.float16)})

    def setup(mod, cute, cutlass, bufs):
        from cutlass.cute.runtime import make_fake_compact_tensor
        by = dict(bufs)
        L = 1 if cont else G
        fp8 = lambda shape: make_fake_compact_tensor(cutlass.Float8E4M3FN, shape,
                                                     stride_order=(1, 0, 2), assumed_align=16)
        fk = [fp8((M, K, L)), fp8((N, K, G)), fake(cute, cutlass, by["c"], (M, N, L), (1, 0, 2)),
              fake(cute, cutlass, by["sfa"], (M, kb, L), (0, 1, 2)),  # M-major
              fake(cute, cutlass, by["sfb"], (nb, kb, G), (1, 0, 2)),
              fake(cute, cutlass, by["gidx_mapping"])]
        cls = (mod.BlockwiseContiguousGroupedGemmKernel if cont
               else mod.BlockwiseMaskedGroupedGemmKernel)
        k = cls(cutlass.Float32, False, (128, 128), (1, 1))
        newer = k.use_newer_backend_codegen
        c["compile_kwargs"] = dict(options="--opt-level 2" if newer else (
            "--opt-level 3" if cont else ""))
        return (k, fk + [1, stream()], [("ptr", n) for n in ("a", "b", "c", "sfa", "sfb",
                                                             "gidx_mapping")] + [("stream",)])
    c = case(f"bw_blockwise_{kind}_grouped_gemm",
             f"blackwell/kernel/blockwise_gemm/{kind}_grouped_gemm.py", "sm_100a",
             dict(groups=list(groups), N=N, K=K, **({} if cont else {"M": M})), build, setup,
             ["a", "b", "sfa", "sfb", "gidx_mapping"], ["c"],
             "numpy float64 of the e4m3 values per group, per 128-wide K block scaled by SFA and "
             "SFB (powers of two; exact), C rounded once to f16")
    return c


def cases(size):
    s = 1 if size == "small" else 4
    return [ew_add_autotune(20 * s, 200),
            efc_alpha_beta(256 * s, 128, 128),
            efc_activation(256 * s, 128, 128, "relu"),
            efc_activation(256 * s, 128, 128, "sigmoid"),
            efc_synthetic(256 * s, 128, 128),
            mixed_input("i8", 256 * s, 128, 128),
            mixed_input("i4", 256 * s, 128, 256),
            grouped_mixed_input("i8", 128 * s, [96, 160], 128),
            grouped_mixed_input("i4_acc_scale", 256 * s, [48, 80], 256),
            blockwise(256 * s, 128, 256),
            blockwise_grouped("contiguous", [128, 256 * s], 128, 256)]


def pending(size):
    """Cases the generator records but tile-sim cannot run to the end (make_corpus.py --pending
    writes them; not in the corpus): the masked grouped blockwise GEMM's scheduler warp reads
    gidx_mapping[group] once more after its last tile, with group = G, 4 bytes past the host's
    (G,) tensor, and tile-sim stops at a load outside every allocation (docs/emulator.md 11.1)."""
    s = 1 if size == "small" else 4
    return [blockwise_grouped("masked", [128, 16 * s], 128, 256)]
