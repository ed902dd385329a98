"""The Blackwell NVFP4 tutorial GEMMs of the foreign corpus (make_corpus.py's driver for them):
``blackwell/tutorial/tutorial_gemm/nvfp4_gemm_{0,1}.py`` (``Sm100BlockScaledDenseGemmKernel``,
imported unchanged, compiled as the tutorials' ``utils.run`` compiles them: five global pointers,
the problem size ``(m, n, k, l)`` as run-time integers, a stream).

C (M, N) f16 = (A * SFA) (B * SFB)^T: A and B e2m1, K-major, packed two per byte (low nibble first),
SFA and SFB e4m3 scales per 16 K in the 32x4x4 scale-factor atom layout (blockscaled.py), C
N-major, stored by the kernel from registers (a by-value struct of its address and run-time shape:
the manifest's ``struct`` kind). ``nvfp4_gemm_0`` is one CTA per 128 x 256 tile; ``nvfp4_gemm_1``
a 2-CTA MMA (256 x 256 per cluster of 2) with TMA multicast.

The contract is read as cute_generic.py reads it (the host function interpreted with the pointers
and the problem size bound); the cuTensorMapEncodeTiled arguments of the four maps are derived
here from the tensors' layouts and asserted against the TMA atoms' box basis and coordinate
tensors in the DSL's IR, as blockscaled.py does for the persistent class.

The reference is exact: A and B hold e2m1 values, the scales are 0.5, 1 or 2 (e4m3 codes), so
every product and partial sum is a dyadic rational exact in the f32 accumulator, and C's one
rounding to f16 (round to nearest even) is numpy's float64 -> float16 conversion of the exact sum.
"""
from __future__ import annotations

import os
import re

import numpy as np

import blockscaled
import cute_generic

TUT = "blackwell/tutorial/tutorial_gemm/"
VEC = 16  # e4m3 scales per 16 K (the tutorials' sf_vec_size)
#: example -> (rows of A's box and of B's box, per CTA of the MMA; tile K; CTAs of the MMA)
TILES = {"nvfp4_gemm_0": (128, 256, 256, 1), "nvfp4_gemm_1": (128, 128, 256, 2)}


def tensor_maps(atoms, M, N, K, tiles):
    """The cuTensorMapEncodeTiled arguments of A, B, SFA, SFB (in the atoms' order), derived from
    the layouts and checked against each atom's box basis and coordinate tensor. ``tiles``: the
    rows of A's and B's box, tile K, and the CTAs of the MMA (a 2-CTA MMA splits B's rows, and
    each CTA of the pair loads SFB for the whole MMA N)."""
    box_a, box_b, tile_k, ctas = tiles
    assert all(at["multicast"] == 1 for at in atoms[:2]), "A and B: one CTA's rows each"
    out = []
    for at, buf, mn, rows in zip(atoms, ("a", "b", "sfa", "sfb"), (M, N, M, N),
                                 (box_a, box_b, box_a, box_b * ctas)):
        t = blockscaled.MAP_TYPE[at["format"]]
        if buf in ("a", "b"):
            assert at["gbasis"] == f"({tile_k},{rows},1):(1@1,1@0,1@2)", at["gbasis"]
            p = dict(data_type=t, global_dim=[K, mn, 1], global_strides=[K // 2, mn * K // 2],
                     box_dim=[tile_k, rows, 1], swizzle="128b")
        else:
            rest_mn, rest_k = -(-mn // 128), -(-(K // VEC) // 4)
            dm, dk, dl = map(int, re.search(r"\(\(\(8@0,2@0\),1@(\d)\),\(\(0,1/2@0\),1@(\d)\),"
                                            r"\(0,1@(\d)\)\)", at["coord"]).groups())
            kb, mb = tile_k // VEC // 4, -(-rows // 128)  # K blocks, MN atoms per tile
            want = {dk: kb, dm: mb, dl: 1}
            assert at["gbasis"].startswith(f"((2,4,32),{want[1]},{want[2]},{want[3]}):"), \
                (at["gbasis"], want)
            dims, strides, box = [256, 0, 0, 0], [0, 0, 0, 0], [256, 1, 1, 1]
            dims[dm], dims[dk], dims[dl] = rest_mn, rest_k, 1
            strides[dm], strides[dk], strides[dl] = 512 * rest_k, 512, 512 * rest_k * rest_mn
            box[dk], box[dm] = kb, mb
            # a multicast atom's basis is the pair's whole tile: each CTA loads 1/n of its
            # outermost dimension of more than one element and multicasts it (make_corpus's
            # tensor_map_args, and the DSL's own inline map of fp16_gemm_5's A)
            n = at["multicast"]
            outer = max(i for i, x in enumerate(box) if x > 1)
            assert box[outer] % n == 0, (box, n)
            box[outer] //= n
            p = dict(data_type=t, global_dim=dims, global_strides=strides[1:], box_dim=box,
                     swizzle="none")
        out.append(dict(kind="tensor_map", buffer=buf, direction=at["kind"],
                        rank=len(p["box_dim"]), element_strides=[1] * len(p["box_dim"]),
                        interleave="none", l2_promotion="none", oob_fill="none", **p))
    return out


def case(example, M, N, K):
    def build(rng):
        vals = [-3, -1.5, -0.5, 0, 0.5, 1, 2, 4]
        a, b = rng.choice(vals, (M, K)), rng.choice(vals, (N, K))
        sa, sb = rng.choice([0.5, 1, 2], (M, K // VEC)), rng.choice([0.5, 1, 2], (N, K // VEC))

        def pack(x):
            c = blockscaled.codes_of("e2m1", x)
            return (c[:, 0::2] | c[:, 1::2] << 4).astype(np.uint8)
        bufs = {"a": pack(a), "b": pack(b),
                "sfa": blockscaled.blocked_scales(blockscaled.codes_of("e4m3", sa), M, K // VEC),
                "sfb": blockscaled.blocked_scales(blockscaled.codes_of("e4m3", sb), N, K // VEC),
                "c": np.zeros((M, N), np.float16)}
        # decoded again from the stored codes, independently of how they were drawn
        ref = blockscaled.reference("nvf4", bufs, M, N, K)
        assert np.array_equal(ref, (a * np.repeat(sa, VEC, 1)) @ (b * np.repeat(sb, VEC, 1)).T)
        return bufs, {"c": ref.astype(np.float16)}
    return dict(name=f"bw_tutorial_{example}", example=f"{TUT}{example}.py", arch="sm_100a",
                compile=compile_nvfp4, build=build, tiles=TILES[example],
                shape=dict(M=M, N=N, K=K), inputs=["a", "b", "sfa", "sfb"], outputs=["c"])


def compile_nvfp4(cutlass_dir, case, cute, cutlass, mc):
    """make_corpus.compile_case for these tutorials (``mc``: the make_corpus module)."""
    from cutlass.cute.runtime import make_ptr
    from cutlass.runtime import make_fake_stream
    M, N, K = case["shape"].values()
    mod, commit = mc.load_example(cutlass_dir, case["example"])
    f4, e4 = cutlass.Float4E2M1FN, cutlass.Float8E4M3FN
    ptrs = [make_ptr(t, 0, cute.AddressSpace.gmem, assumed_align=32)
            for t in (f4, f4, e4, e4, cutlass.Float16)]  # utils.run's alignments
    mc.clear_dump()
    compiled = cute.compile(mod.Sm100BlockScaledDenseGemmKernel(), *ptrs, (M, N, K, 1),
                            make_fake_stream())
    ptx, clean = mc.read_dump()
    lowered = str(compiled.ir_module)
    runtime = [("ptr", n) for n in ("a", "b", "sfa", "sfb", "c")] + [
        ("i32", x) for x in (M, N, K, 1)] + [("stream",)]
    kparams, env = cute_generic.kernel_parameters(lowered, mc, runtime)
    fn = mc.host_function(lowered)
    atoms = blockscaled.atoms_of(clean)
    counts = re.findall(r"make_non_exec_tiled_tma_load\(.*?(?:num_multicast = "
                        r"(\d+)[^\n]*)?tma_gbasis", clean)
    assert len(counts) == len(atoms), (len(counts), len(atoms))
    for at, mcast in zip(atoms, counts):
        at["multicast"] = int(mcast or 1)
    maps = iter(tensor_maps(atoms, M, N, K, case["tiles"]))
    params = []
    for i, (kind, v) in enumerate(kparams):
        p = next(maps) if kind == "tensor_map" else cute_generic.value_param(kind, v)
        params.append(dict(name=f"param_{i}", **p))
    assert next(maps, None) is None, "a TMA atom with no tensor-map parameter"
    _, block, cluster = mc.launch_facts(clean, grid=False)
    grid = cute_generic.launch_grid(fn, env)
    assert all(isinstance(g, int) for g in grid), grid
    rng = np.random.default_rng(20)
    bufs, ref = case["build"](rng)
    entry = re.search(r"\.entry (\w+)\(", ptx).group(1)
    manifest = dict(
        source="bench/foreign/make_corpus.py (bench/foreign/tutorial_nvfp4.py)",
        example=case["example"], cutlass_commit=commit, arch="sm_100a", kernel=entry,
        shape=case["shape"], host_arguments={"problem_mnkl": [M, N, K, 1]},
        params=params, grid=grid, block=block, cluster=cluster,
        dynamic_smem=mc.dynamic_smem(lowered),
        buffers=[dict(name=n, dtype=str(a.dtype), shape=list(a.shape)) for n, a in bufs.items()],
        inputs=case["inputs"], outputs=case["outputs"],
        reference="exact: numpy float64 of the decoded e2m1 values times their e4m3 scales "
                  "(0.5, 1, 2), each product and sum a dyadic rational exact in fp32; C rounded "
                  "once to f16",
        descriptor_words=[[None if w is None else f"0x{w:016x}" for w in ws]
                          for ws in mc.host_descriptors(lowered, env)])
    return case["name"], ptx, manifest, bufs, ref


def cases(size):
    s = 1 if size == "small" else 2
    return [case("nvfp4_gemm_0", 128 * s, 256, 256 * s),
            case("nvfp4_gemm_1", 256 * s, 256, 256 * s)]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(f"run bench/foreign/make_corpus.py; {os.path.basename(__file__)} is its driver")
