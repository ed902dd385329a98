#!/usr/bin/env python3
"""Build the sm_90a artifacts that the H200 runs (bench/gpu_run.sh): global -> shared -> global tile
round trips through copy_async (cp.async, then ld.shared/st.global) at every issuing scope, for several
element types and shared-memory swizzles, and a 6-bit round trip through a .b6x16_p32 shared tile
(tile.copy expanding and re-packing 12-byte groups). Each is also run here on tile-sim, which must give the same
bytes as the expected output (the input) before the artifact is written. Then the gemm_async -> wgmma kernels
of wgmma_artifacts.py, whose expected D is MMA-Sim's Hopper model (tile-sim must agree bit for bit).

TMA_CASES: TMA loads and stores through tensor maps, which the runtime encodes on the device.

    .venv/bin/python bench/gpu/make_hopper_artifacts.py [OUT_DIR]   (default bench/gpu/artifacts)
"""
import os
import sys

import numpy as np

from provenance import ROOT, source_hashes

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(ROOT, "bench")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, BENCH)

from kernels import fp6_round_trip_kernel, global_shared_global_kernel, tma_kernel  # noqa: E402
from wgmma_artifacts import KERNELS_SOURCE, wgmma_cases  # noqa: E402

from tile_mlir.driver.compiler import compile  # noqa: E402
from tile_mlir.runtime import jit  # noqa: E402
from tile_mlir.runtime.dtypes import BIT_PATTERNS  # noqa: E402
from tile_mlir.sim import run_ptx  # noqa: E402

CASES = [  # (scope, element type, numpy dtype, swizzle)
    ("cta", "f32", np.float32, "128B"),
    ("warpgroup", "bf16", np.uint16, "64B"),
    ("warp", "ui8", np.uint8, None),
    ("thread", "f16", np.float16, "32B"),
    ("cta", "i32", np.int32, None),
]


# TMA (docs/tma.md): (name, element type, numpy dtype, tensor shape, box, box offset, swizzle, readback).
# "tma": loaded and stored back by TMA; "copy": loaded by TMA, then read out of shared memory by ld.shared
# through the buffer's swizzled layout, so the bytes TMA placed are checked against our swizzle model and
# the box past the tensor's edge must read as zeros. On the device the runtime encodes the tensor maps
# (cuTensorMapEncodeTiled); here tile-sim takes their parameters.
TMA_CASES = [
    ("hopper_tma_roundtrip_bf16_128B", "bf16", np.uint16, (128, 192), (64, 64), (32, 64), "128B", "tma"),
    ("hopper_tma_roundtrip_f32_3d_64B", "f32", np.float32, (4, 24, 40), (2, 8, 16), (1, 8, 16), "64B", "tma"),
    ("hopper_tma_swizzle_f16_32B_copy", "f16", np.float16, (48, 64), (32, 16), (8, 32), "32B", "copy"),
    ("hopper_tma_edge_ui8_oob_zero_fill", "ui8", np.uint8, (100, 80), (64, 64), (64, 32), "128B", "copy"),
]


def _tma_expected(a, box, offset, readback):
    """The region stored back in place ("tma"), or the box with zeros past the tensor's edge ("copy")."""
    region = tuple(slice(o, o + b) for o, b in zip(offset, box))
    if readback == "tma":
        out = np.zeros_like(a)
        out[region] = a[region]
        return out
    out = np.zeros(box, a.dtype)
    got = a[region]
    out[tuple(slice(0, n) for n in got.shape)] = got
    return out


def _tma_artifacts(out_dir) -> int:
    """TMA_CASES: tile-sim must give the numpy expectation before the artifact is written."""
    failed = 0
    rng = np.random.default_rng(11)
    for name, elem, dt, shape, box, offset, swz, readback in TMA_CASES:
        art = compile(tma_kernel(name, elem=elem, shape=shape, box=box, offset=offset, swizzle=swz,
                                 readback=readback), arch="sm_90a", filename=f"{name}.mlir")
        a = rng.integers(1, 2**15, size=shape).astype(np.uint16)
        a = a.view(np.float16).astype(dt) if dt == np.float32 else a.astype(dt)
        want = _tma_expected(a, box, offset, readback)
        out = np.zeros(art.params[1].shape, dt)
        jit(art, backend="sim")(a.copy(), out)
        same = np.array_equal(out.view(np.uint8), want.view(np.uint8))
        failed += not same
        print(f"{'match' if same else 'MISMATCH'} on tile-sim  {name} (PTX {len(art.ptx)} B, cubin {len(art.cubin)} B)")
        art.meta["sources"] = source_hashes(__file__, os.path.join(BENCH, "kernels.py"))
        art.save(out_dir)
        np.savez(os.path.join(out_dir, f"{name}.inputs.npz"), **{art.params[0].name: a})
        np.savez(os.path.join(out_dir, f"{name}.expected.npz"), **{art.params[1].name: want})
    return failed


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "artifacts")
    rng = np.random.default_rng(2026)
    failed = 0
    kernels = []  # (name, numpy dtype of the data, tile IR)
    for scope, elem, dt, swz in CASES:
        name = f"hopper_roundtrip_{scope}_{elem}_{swz or 'noswz'}"
        kernels.append((name, dt, global_shared_global_kernel(name, scope, elem=elem, swizzle=swz)))
    name = "hopper_roundtrip_cta_f6E3M2FN_b6x16_p32_128B"  # packed 6-bit bytes travel as uint8
    kernels.append((name, np.uint8, fp6_round_trip_kernel(name)))
    for name, dt, text in kernels:
        art = compile(text, arch="sm_90a", filename=f"{name}.mlir")
        shape = art.params[0].packed_shape  # the bytes of packed 6-bit data
        a = rng.integers(0, 2**15, size=shape).astype(dt) if dt != np.float32 else rng.standard_normal(shape).astype(dt)
        out = np.zeros(shape, dt)
        run_ptx(art.ptx, art.kernel_name, [a.copy(), out], block=art.block)
        same = np.array_equal(out.view(np.uint8), a.view(np.uint8))
        failed += not same
        print(f"{'match' if same else 'MISMATCH'} on tile-sim  {name} (PTX {len(art.ptx)} B, cubin {len(art.cubin)} B)")
        art.meta["sources"] = source_hashes(__file__, os.path.join(BENCH, "kernels.py"))
        art.save(out_dir)
        np.savez(os.path.join(out_dir, f"{name}.inputs.npz"), **{art.params[0].name: a})
        np.savez(os.path.join(out_dir, f"{name}.expected.npz"), **{art.params[1].name: a})
    failed += _tma_artifacts(out_dir)
    failed += _wgmma_artifacts(out_dir)
    return 1 if failed else 0


def _wgmma_artifacts(out_dir) -> int:
    """gemm_async -> wgmma kernels (wgmma_artifacts.py): tile-sim must give MMA-Sim's D bit for bit."""
    failed = 0
    for name, text, inputs, expected in wgmma_cases(np.random.default_rng(13)):
        art = compile(text, arch="sm_90a", filename=f"{name}.mlir")
        a, b, c = (_as_param(art, k, inputs[k]) for k in "ABC")
        d = np.zeros_like(c)
        run_ptx(art.ptx, art.kernel_name, [a, b, c, d], block=art.block, dynamic_smem=art.dynamic_smem)
        same = np.array_equal(d.view(np.uint32), expected)
        failed += not same
        print(f"{'match' if same else 'MISMATCH'} on tile-sim (= MMA-Sim)  {name} (PTX {len(art.ptx)} B, "
              f"cubin {len(art.cubin)} B)")
        art.meta["sources"] = source_hashes(__file__, os.path.join(HERE, "wgmma_artifacts.py"), KERNELS_SOURCE)
        art.save(out_dir)
        np.savez(os.path.join(out_dir, f"{name}.inputs.npz"), A=a, B=b, C=c)
        np.savez(os.path.join(out_dir, f"{name}.expected.npz"), D=_as_param(art, "D", expected))
    return failed


def _as_param(art, name, bits):
    """Bit patterns as the dtype of parameter ``name`` where numpy has it (f16, f32); the narrow floats
    only ml_dtypes defines (bf16, f8) stay their unsigned bit patterns, which the runtime takes for them."""
    dtype = next(p.dtype for p in art.params if p.name == name)
    return bits if dtype in BIT_PATTERNS else bits.view(dtype)


if __name__ == "__main__":
    sys.exit(main())
