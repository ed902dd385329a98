"""The block-scaled GEMMs of the foreign corpus that take cute.Tensors (make_corpus.py's driver for
them): ``blockscaled_gemm/dense_blockscaled_gemm_persistent_prefetch.py`` and ``..._amax.py``,
the persistent MXFP8 GEMM of blockscaled.py with TMA prefetch, and with the absolute maximum of C
reduced into a one-element f32 tensor by a global atomic max. Their classes take A, B, C (and
amax) as tensors and SFA / SFB as tensors whose address alone they use (the scale-factor layout is
rebuilt from A's and B's shapes, as in the pointer-based class), compiled with the options the
examples' run() passes.

A (M, K, 1) and B (N, K, 1) K-major e4m3, C (M, N, 1) N-major f32, static fake tensors (the
compiler then drops the unit L mode: A, B and C maps are rank 2, the scale-factor maps rank 3);
SFA / SFB e8m0 in the 32x4x4 atom layout (blockscaled.blocked_scales). Inputs, scales and the
exact reference are blockscaled.py's (mxf8); the contract is read as cute_generic.py reads it and
the maps derived here from the layouts, each checked against its atom's box basis.
"""
from __future__ import annotations

import os
import re

import numpy as np

import blockscaled
import cute_generic

DIR = "blackwell/kernel/blockscaled_gemm/"
TILE_K = 128  # MXFP8: 4 MMAs of K 32 per tile


def tensor_maps(atoms, M, N, K):
    """cuTensorMapEncodeTiled arguments of A, B, SFA, SFB, C, in the atoms' order."""
    out = []
    for at in atoms:
        if at["format"] == "U16":  # a scale-factor map: ((256), MN atoms, K atoms)
            buf = "sfa" if not any(o["buffer"] == "sfa" for o in out) else "sfb"
            mn = M if buf == "sfa" else N
            dm, dk = map(int, re.search(r"\(\(\(8@0,2@0\),1@(\d)\),\(\(0,1/2@0\),1@(\d)\),"
                                        r"\(0,0\)\)", at["coord"]).groups())
            assert at["gbasis"].startswith("((2,4,32),1,1):"), at["gbasis"]
            rest_mn, rest_k = -(-mn // 128), -(-(K // 32) // 4)
            dims, strides = [256, 0, 0], [0, 0, 0]
            dims[dm], dims[dk] = rest_mn, rest_k
            strides[dm], strides[dk] = 512 * rest_k, 512
            p = dict(data_type="uint16", global_dim=dims, global_strides=strides[1:],
                     box_dim=[256, 1, 1], swizzle="none")
        elif at["kind"] == "store":
            buf = "c"
            assert at["gbasis"] == "(32,128):(1@1,1@0)", at["gbasis"]
            p = dict(data_type="float32", global_dim=[N, M], global_strides=[N * 4],
                     box_dim=[32, 128], swizzle="128b")
        else:
            buf = "a" if not any(o["buffer"] == "a" for o in out) else "b"
            assert at["gbasis"] == f"({TILE_K},128):(1@1,1@0)", at["gbasis"]
            p = dict(data_type="uint8", global_dim=[K, M if buf == "a" else N],
                     global_strides=[K], box_dim=[TILE_K, 128], swizzle="128b")
        out.append(dict(kind="tensor_map", buffer=buf, direction=at["kind"],
                        rank=len(p["box_dim"]), element_strides=[1] * len(p["box_dim"]),
                        interleave="none", l2_promotion="none", oob_fill="none", **p))
    return out


def case(name, example, M, N, K, amax=False):
    base = blockscaled.case(name, "mxf8", M, N, K)

    def build(rng):
        bufs, ref = base["build"](rng)
        if amax:  # initialised to -inf as the example's run() does; the kernel max-reduces |C|
            bufs["amax"] = np.full((1,), -np.inf, np.float32)
            ref["amax"] = np.abs(ref["c"]).max(keepdims=True).reshape(1).astype(np.float32)
        return bufs, ref
    return dict(name=name, arch="sm_100a", compile=compile_tensors, build=build,
                example=DIR + example, amax=amax, shape=dict(M=M, N=N, K=K),
                inputs=["a", "b", "sfa", "sfb"] + (["amax"] if amax else []),
                outputs=["c"] + (["amax"] if amax else []))


def compile_tensors(cutlass_dir, case, cute, cutlass, mc):
    from cutlass.cute.runtime import make_fake_compact_tensor
    from cutlass.runtime import make_fake_stream
    M, N, K = case["shape"].values()
    mod, commit = mc.load_example(cutlass_dir, case["example"])
    fake = lambda dt, shape, order: make_fake_compact_tensor(dt, shape, stride_order=order,
                                                             assumed_align=16)
    e4, e8 = cutlass.Float8E4M3FN, cutlass.Float8E8M0FNU
    args = [fake(e4, (M, K, 1), (1, 0, 2)), fake(e4, (N, K, 1), (1, 0, 2)),
            fake(e8, (M * K // 32,), (0,)), fake(e8, (N * K // 32,), (0,)),
            fake(cutlass.Float32, (M, N, 1), (1, 0, 2))]
    names = ["a", "b", "sfa", "sfb", "c"]
    if case["amax"]:
        args.append(fake(cutlass.Float32, (1, 1, 1), (2, 1, 0)))
        names.append("amax")
    kernel = mod.Sm100BlockScaledPersistentDenseGemmKernel(32, (128, 128), (1, 1))
    mc.clear_dump()
    compiled = cute.compile(kernel, *args, 1, make_fake_stream(), options="--opt-level 2")
    ptx, clean = mc.read_dump()
    lowered = str(compiled.ir_module)
    runtime = [("ptr", n) for n in names] + [("stream",)]
    kparams, env = cute_generic.kernel_parameters(lowered, mc, runtime)
    maps = iter(tensor_maps(blockscaled.atoms_of(clean), M, N, K))
    params = []
    for i, (kind, v) in enumerate(kparams):
        p = next(maps) if kind == "tensor_map" else cute_generic.value_param(kind, v)
        params.append(dict(name=f"param_{i}", **p))
    assert next(maps, None) is None, "a TMA atom with no tensor-map parameter"
    grid, block, cluster = mc.launch_facts(clean, grid="exact_grid_dim" in clean)
    if grid is None:
        grid = cute_generic.launch_grid(mc.host_function(lowered), env)
    rng = np.random.default_rng(20)
    bufs, ref = case["build"](rng)
    entry = re.search(r"\.entry (\w+)\(", ptx).group(1)
    manifest = dict(
        source="bench/foreign/make_corpus.py (bench/foreign/blockscaled_tensors.py)",
        example=case["example"], cutlass_commit=commit, arch="sm_100a", kernel=entry,
        shape=case["shape"], host_arguments={"sf_vec_size": 32, "mma_tiler_mn": [128, 128],
                                             "cluster_shape_mn": [1, 1], "ab": "e4m3",
                                             "sf": "e8m0", "c": "f32", "majors": "A K, B K, C N"},
        params=params, grid=grid, block=block, cluster=cluster,
        dynamic_smem=mc.dynamic_smem(lowered),
        buffers=[dict(name=n, dtype=str(a.dtype), shape=list(a.shape)) for n, a in bufs.items()],
        inputs=case["inputs"], outputs=case["outputs"],
        reference="exact: numpy float64 of the decoded e4m3 values times their e8m0 scales "
                  "(0.5, 1, 2), each product and sum a dyadic rational exact in fp32"
                  + ("; amax: the largest |C|" if case["amax"] else ""),
        descriptor_words=[[None if w is None else f"0x{w:016x}" for w in ws]
                          for ws in mc.host_descriptors(lowered, env)])
    return case["name"], ptx, manifest, bufs, ref


def cases(size):
    s = 1 if size == "small" else 2
    return [case("bw_blockscaled_mxf8_prefetch", "dense_blockscaled_gemm_persistent_prefetch.py",
                 256 * s, 256, 256),
            case("bw_blockscaled_mxf8_amax", "dense_blockscaled_gemm_persistent_amax.py",
                 256 * s, 256, 256, amax=True)]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(f"run bench/foreign/make_corpus.py; {os.path.basename(__file__)} is its driver")
