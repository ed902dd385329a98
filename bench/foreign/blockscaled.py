"""The block-scaled GEMMs of the foreign corpus (make_corpus.py's driver for them): NVIDIA's
``blockscaled_gemm/dense_blockscaled_gemm_persistent.py`` (``Sm100BlockScaledPersistentDenseGemmKernel``,
imported unchanged) compiled for MXFP8 (e4m3 x e4m3, e8m0 scales per 32 K) and NVFP4 (e2m1 x e2m1,
e4m3 scales per 16 K), A and B K-major, C f32 N-major.

That class takes pointers and a run-time problem shape, so unlike the dense GEMMs its tensor maps,
grid and by-value arguments are computed by the host code at launch. The manifest records them for
one shape: the by-value arguments, the grid and the 16 words of each map by interpreting the
lowered host function with the shape bound (host_eval.py); the cuTensorMapEncodeTiled arguments
from the TMA atoms' box basis (``tma_gbasis``) and coordinate tensors in the DSL's IR, asserted
against what this file derives from the tensors' layouts:

* A, B: ``(K, MN, L)``, box ``(tile K, 128, 1)``, 128B swizzle; e4m3 as UINT8, packed e2m1 as
  16U4_ALIGN8B (the DSL's ``tma_format = U4``: 16 elements in 8 bytes, dense in shared memory too).
* SFA, SFB: the 32x4x4 scale-factor atom (``BlockScaledBasicChunk``: 128 MN x 4 scale columns in
  512 bytes, byte ``16 m0 + 4 m1 + k1`` for MN = m0 + 32 m1), atoms K-block-fastest, read as UINT16:
  dims ``(256, rest MN, rest K, L)`` in the order the coordinate tensor gives, box a whole atom
  (times the K blocks of one tile).
* C: ``(N, M, L)``, box ``(32, 128, 1)``, 128B swizzle.

The reference is exact: A and B hold small values their formats represent exactly, scales are
0.5, 1 or 2, so every product and partial sum is a dyadic rational well inside fp32's 24 bits, and
numpy's float64 sum of the decoded values is the answer any correct MMA gives.
"""
from __future__ import annotations

import os
import re

import numpy as np


REL = "blackwell/kernel/blockscaled_gemm/dense_blockscaled_gemm_persistent.py"
#: kind -> (A/B format, scale format, scale vector, K elements per byte, tile K)
KINDS = {"mxf8": ("e4m3", "e8m0", 32, 1, 128), "nvf4": ("e2m1", "e4m3", 16, 2, 256)}
MAP_TYPE = {"U8": "uint8", "U4": "16u4_align8b", "U16": "uint16", "F32_RN": "float32"}


# ----------------------------------------------------------------------------- number formats
def decode(fmt, codes):
    """Values of e4m3 (fn), e2m1 or e8m0 codes, from the formats' definitions."""
    c = np.asarray(codes, dtype=np.int64)
    if fmt == "e8m0":
        return np.exp2(c - 127.0)
    ebits, mbits, bias = {"e4m3": (4, 3, 7), "e2m1": (2, 1, 1)}[fmt]
    s = np.where(c >> (ebits + mbits) & 1, -1.0, 1.0)
    e = c >> mbits & ((1 << ebits) - 1)
    m = c & ((1 << mbits) - 1)
    mag = np.where(e == 0, m * 2.0 ** (1 - bias - mbits),
                   (1 + m / 2 ** mbits) * np.exp2(e - float(bias)))
    return s * mag


def codes_of(fmt, values):
    """The code of each value (each must be exactly representable)."""
    table = {float(v): c for c, v in enumerate(decode(fmt, np.arange(256 if fmt != "e2m1"
                                                                       else 16)))
             if np.isfinite(v) and not (v == 0 and c)}
    return np.vectorize(lambda v: table[float(v)])(values).astype(np.uint8)


def blocked_scales(sf, mn, ksf):
    """Scale factors sf[mn, ksf] in the 32x4x4 atom layout, L = 1 (bytes)."""
    rest_mn, rest_k = -(-mn // 128), -(-ksf // 4)
    out = np.zeros((rest_mn, rest_k, 32, 4, 4), np.uint8)
    for m in range(mn):
        for k in range(ksf):
            out[m // 128, k // 4, m % 32, (m // 32) % 4, k % 4] = sf[m, k]
    return out.reshape(-1)


def unblocked_scales(flat, mn, ksf):
    """The inverse of blocked_scales: sf[mn, ksf] (bytes)."""
    rest_k = -(-ksf // 4)
    atoms = np.asarray(flat).reshape(-1, rest_k, 32, 4, 4)
    m, k = np.arange(mn)[:, None], np.arange(ksf)[None, :]
    return atoms[m // 128, k // 4, m % 32, (m // 32) % 4, k % 4]


def reference(kind, bufs, M, N, K):
    """C of the buffers as stored (codes, packed nibbles low K first, blocked scales), in float64:
    decoding the inputs again, independently of how build() drew them."""
    ab, sf_fmt, vec, per_byte, _ = KINDS[kind]

    def values(x, rows):
        x = np.asarray(x, np.uint8).reshape(rows, K // per_byte)
        if per_byte == 2:
            x = np.stack([x & 15, x >> 4], -1).reshape(rows, K)
        return decode(ab, x)

    def scales(flat, rows):
        return np.repeat(decode(sf_fmt, unblocked_scales(flat, rows, K // vec)), vec, 1)
    a = values(bufs["a"], M) * scales(bufs["sfa"], M)
    b = values(bufs["b"], N) * scales(bufs["sfb"], N)
    return a @ b.T


# ----------------------------------------------------------------------------- the case
def case(name, kind, M, N, K, max_active_clusters=1):
    ab, sf_fmt, vec, per_byte, tile_k = KINDS[kind]

    def build(rng):
        vals = [-2, -1, 0, 1, 2] if kind == "mxf8" else [-3, -1.5, -0.5, 0, 0.5, 1, 2, 4]
        a, b = rng.choice(vals, (M, K)), rng.choice(vals, (N, K))
        sa, sb = rng.choice([0.5, 1, 2], (M, K // vec)), rng.choice([0.5, 1, 2], (N, K // vec))
        ref = ((a * np.repeat(sa, vec, 1)) @ (b * np.repeat(sb, vec, 1)).T).astype(np.float32)

        def pack(x):
            c = codes_of(ab, x)
            return c if per_byte == 1 else (c[:, 0::2] | c[:, 1::2] << 4).astype(np.uint8)
        bufs = {"a": pack(a), "b": pack(b), "sfa": blocked_scales(codes_of(sf_fmt, sa), M, K // vec),
                "sfb": blocked_scales(codes_of(sf_fmt, sb), N, K // vec),
                "c": np.zeros((M, N), np.float32)}
        return bufs, {"c": ref}
    return dict(name=name, arch="sm_100a", compile=compile_blockscaled, build=build, kind=kind,
                shape=dict(M=M, N=N, K=K), mac=max_active_clusters, inputs=["a", "b", "sfa", "sfb"],
                outputs=["c"])


def tensor_maps(atoms, kind, M, N, K):
    """The cuTensorMapEncodeTiled arguments of the five maps (A, B, SFA, SFB, C), derived from the
    layouts and checked against the atoms' box basis and coordinate tensors."""
    _, _, vec, per_byte, tile_k = KINDS[kind]
    out = []
    for at, buf, mn in zip(atoms, ("a", "b", "sfa", "sfb", "c"), (M, N, M, N, M)):
        t = MAP_TYPE[at["format"]]
        if buf in ("a", "b"):
            assert at["gbasis"] == f"({tile_k},128,1):(1@1,1@0,1@2)", at["gbasis"]
            p = dict(data_type=t, global_dim=[K, mn, 1], global_strides=[K // per_byte,
                     mn * K // per_byte], box_dim=[tile_k, 128, 1], swizzle="128b")
        elif buf == "c":
            assert at["gbasis"] == "(32,128,1):(1@1,1@0,1@2)", at["gbasis"]
            p = dict(data_type=t, global_dim=[N, M, 1], global_strides=[N * 4, M * N * 4],
                     box_dim=[32, 128, 1], swizzle="128b")
        else:
            rest_mn, rest_k = -(-mn // 128), -(-(K // vec) // 4)
            dm, dk, dl = map(int, re.search(r"\(\(\(8@0,2@0\),1@(\d)\),\(\(0,1/2@0\),1@(\d)\),"
                                            r"\(0,1@(\d)\)\)", at["coord"]).groups())
            kb = tile_k // vec // 4  # K blocks per tile
            assert at["gbasis"].startswith(f"((2,4,32),{kb if dk == 1 else 1},"), at["gbasis"]
            dims, strides, box = [256, 0, 0, 0], [0, 0, 0, 0], [256, 1, 1, 1]
            dims[dm], dims[dk], dims[dl] = rest_mn, rest_k, 1
            strides[dm], strides[dk], strides[dl] = 512 * rest_k, 512, 512 * rest_k * rest_mn
            box[dk] = kb
            p = dict(data_type=t, global_dim=dims, global_strides=strides[1:], box_dim=box,
                     swizzle="none")
        out.append(dict(kind="tensor_map", buffer=buf, direction=at["kind"], rank=len(p["box_dim"]),
                        element_strides=[1] * len(p["box_dim"]), interleave="none",
                        l2_promotion="none", oob_fill="none", **p))
    return out


def atoms_of(clean):
    """(kind, gbasis, format, coordinate tensor stride) of each TMA atom, in order."""
    return [dict(kind=k, gbasis=g, format=f, coord=c) for k, g, f, c in re.findall(
        r"make_non_exec_tiled_tma_(load|store)\(.*?tma_gbasis = <\"([^\"]+)\">, tma_format = "
        r"(\w+)>, !cute\.coord_tensor<\"[^\"]*\", \"[^\"]*:([^\"]*)\">", clean)]


def launch_grid(lowered, env):
    """The grid the host stores into its launch config (field 0) before cudaLaunchKernelEx."""
    grid = []
    for i in range(3):
        gep = re.search(rf"(%\d+) = llvm\.getelementptr %\d+\[0, 0, {i}\] : \(!llvm\.ptr\) -> "
                        rf"!llvm\.ptr, !llvm\.struct<\(array<3 x i32>, array<3 x i32>, i64",
                        lowered).group(1)
        grid.append(env[re.search(rf"llvm\.store (%\w+), {gep} : i32", lowered).group(1)])
    return grid


def compile_blockscaled(cutlass_dir, case, cute, cutlass, mc):
    """make_corpus.compile_case for this class (``mc``: the make_corpus module)."""
    from cutlass.cute.nvgpu import OperandMajorMode
    from cutlass.cute.runtime import make_ptr
    from cutlass.runtime import make_fake_stream
    from cutlass.utils import LayoutEnum
    import host_eval
    kind, (M, N, K) = case["kind"], case["shape"].values()
    ab, sf, vec, _, _ = KINDS[kind]
    dt = {"e4m3": cutlass.Float8E4M3FN, "e2m1": cutlass.Float4E2M1FN, "e8m0": cutlass.Float8E8M0FNU}
    mod, commit = mc.load_example(cutlass_dir, REL)
    kernel = mod.Sm100BlockScaledPersistentDenseGemmKernel(vec, (128, 128), (1, 1))
    ptrs = [make_ptr(t, 0, cute.AddressSpace.gmem, assumed_align=al) for t, al in
            ((dt[ab], 16), (dt[ab], 16), (dt[sf], 32), (dt[sf], 32), (cutlass.Float32, 16))]
    mc.clear_dump()
    compiled = cute.compile(kernel, *ptrs, (OperandMajorMode.K, OperandMajorMode.K,
                                            LayoutEnum.ROW_MAJOR), (M, N, K, 1), case["mac"],
                            make_fake_stream())
    ptx, clean = mc.read_dump()
    lowered = mc.host_function(str(compiled.ir_module))
    sig = lowered.split("\n", 1)[0]  # the signature line
    shape_args = re.findall(r"(%arg\d+): i32", sig)
    assert len(shape_args) == 4, sig
    bind = dict(zip(shape_args, (M, N, K, 1)))
    env = host_eval.evaluate(lowered, mc._value, args=bind)
    maps = iter(tensor_maps(atoms_of(clean), kind, M, N, K))
    _, block, cluster = mc.launch_facts(clean, grid=False)
    entry = re.search(r"\.entry (\w+)\(", ptx).group(1)
    params = [dict(kind="bytes", value=v.hex()) if v is not None else next(maps)
              for v in mc.host_arguments(lowered, bind)]
    rng = np.random.default_rng(20)
    bufs, ref = case["build"](rng)
    manifest = dict(
        source="bench/foreign/make_corpus.py (bench/foreign/blockscaled.py)", example=REL,
        cutlass_commit=commit, arch="sm_100a", kernel=entry, shape=case["shape"],
        host_arguments={"problem_mnkl": [M, N, K, 1], "max_active_clusters": case["mac"],
                        "a_dtype": ab, "b_dtype": ab, "sf_dtype": sf, "sf_vec_size": vec,
                        "mma_tiler_mn": [128, 128], "cluster_shape_mn": [1, 1],
                        "majors": "A K, B K, C N"},
        params=[dict(name=f"param_{i}", **p) for i, p in enumerate(params)],
        grid=launch_grid(lowered, env), block=block, cluster=cluster,
        dynamic_smem=mc.dynamic_smem(lowered),
        buffers=[dict(name=n, dtype=str(a.dtype), shape=list(a.shape)) for n, a in bufs.items()],
        inputs=case["inputs"], outputs=case["outputs"],
        reference=f"exact: numpy float64 of the decoded {ab} values times their {sf} scales "
                  f"(0.5, 1, 2), each product and sum a dyadic rational exact in fp32",
        descriptor_words=[[None if w is None else f"0x{w:016x}" for w in ws]
                          for ws in mc.host_descriptors(lowered, env)])
    return case["name"], ptx, manifest, bufs, ref


def cases(size):
    s = 1 if size == "small" else 2
    return [case("bw_blockscaled_mxf8", "mxf8", 256 * s, 256 * s, 256 * s),
            case("bw_blockscaled_nvf4", "nvf4", 256 * s, 256 * s, 256 * s)]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(f"run bench/foreign/make_corpus.py; {os.path.basename(__file__)} is its driver")
