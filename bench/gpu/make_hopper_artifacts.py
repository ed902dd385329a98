#!/usr/bin/env python3
"""Build the sm_90a artifacts that the H200 runs (bench/gpu_run.sh): global -> shared -> global tile
round trips through copy_async (cp.async, then ld.shared/st.global) at every issuing scope, for several
element types and shared-memory swizzles, and a 6-bit round trip through a .b6x16_p32 shared tile
(tile.copy expanding and re-packing 12-byte groups). Each is also run here on tile-sim, which must give the same
bytes as the expected output (the input) before the artifact is written.

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

from kernels import fp6_round_trip_kernel, global_shared_global_kernel  # noqa: E402

from tile_mlir.compiler import compile  # noqa: E402
from tile_mlir.sim import run_ptx  # noqa: E402

CASES = [  # (scope, element type, numpy dtype, swizzle)
    ("cta", "f32", np.float32, "128B"),
    ("warpgroup", "bf16", np.uint16, "64B"),
    ("warp", "ui8", np.uint8, None),
    ("thread", "f16", np.float16, "32B"),
    ("cta", "i32", np.int32, None),
]


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
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
