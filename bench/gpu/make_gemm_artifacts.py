#!/usr/bin/env python3
"""Build the Hopper twin of examples/gemm_blockscaled.py (sm_90a) for the H200, into build/gpu/gemm/ (not
committed: `make gpu-artifacts` makes it here, and the GPU run carries it, so what runs there is always
what today's compiler makes):

* gemm_<dtype>_<S>x<S>x<S> for S in 2048, 4096, 8192 and dtype bf16, e4m3: what bench/gemm.py times against
  cuBLAS (inputs are made on the GPU there; no data shipped);
* check/gemm_<dtype>_256x512x640 (CHECK_CASES): small, with inputs and the expected D from tile-sim, which must
  first equal MMA-Sim's Hopper wgmma model bit for bit here; bench/gpu/run_artifacts.py build/gpu/gemm/check
  then compares the H200's D with it exactly (tile-sim and silicon agree to the bit). The check cases'
  inputs and D that the H200 matched are kept as evidence in test/fixtures/gemm-check (data, not compiled
  code: MMA-Sim's product of seeded inputs), where test_gemm_hopper_sim.py checks them against MMA-Sim.

    .venv/bin/python bench/gpu/make_gemm_artifacts.py [OUT_DIR]   (default build/gpu/gemm)
"""
import os
import sys

import ml_dtypes
import numpy as np

from provenance import ROOT, source_hashes

os.environ.setdefault("TILE_MLIR_SIM_MAX_SECONDS", "900")  # (tile-sim runs these 4-CTA, 384-thread kernels for minutes)

sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import gemm_blockscaled as gemm  # noqa: E402
import gemm_reference as ref  # noqa: E402

from tile_mlir.driver.compiler import compile  # noqa: E402
from tile_mlir.runtime import jit  # noqa: E402

BENCH_SIZES = (2048, 4096, 8192)
DTYPES = {"bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn}
CHECK_CASES = [("bf16", 256, 512, 640), ("e4m3", 256, 512, 640)]  # 2 x 2 CTAs, the ring wraps (10 / 5 K steps)


def _compile(cfg):
    art = compile(gemm.build(cfg), arch="sm_90a", filename=f"{cfg.name}.mlir")
    art.meta["sources"] = source_hashes(__file__, gemm.__file__, ref.__file__)
    art.meta["outputs"] = ["D"]
    return art


def main(out_dir=os.path.join(ROOT, "build", "gpu", "gemm")) -> int:
    check_dir = os.path.join(out_dir, "check")
    os.makedirs(check_dir, exist_ok=True)
    failed = 0
    for dtype, m, n, k in CHECK_CASES:
        cfg = gemm.GemmConfig("sm_90a", dtype, m, n, k)
        art = _compile(cfg)
        a, b = ref.random_dense(DTYPES[dtype], m, n, k, seed=7)
        d = np.zeros((m, n), ml_dtypes.bfloat16)
        jit(art, backend="sim")(a, b, d)
        want = ref.to_bf16(ref.mmasim_wgmma(a, b))
        same = np.array_equal(d.view(np.uint16), want.view(np.uint16))
        failed += not same
        print(f"{cfg.name}: tile-sim {'==' if same else '!='} MMA-Sim bit for bit")
        if same:
            art.save(check_dir)
            bits = np.uint16 if dtype == "bf16" else np.uint8  # (npz keeps no ml_dtypes: bit patterns)
            np.savez(os.path.join(check_dir, f"{cfg.name}.inputs.npz"), A=a.view(bits), B=b.view(bits))
            np.savez(os.path.join(check_dir, f"{cfg.name}.expected.npz"), D=d.view(np.uint16))
    for dtype in DTYPES:
        for size in BENCH_SIZES:
            art = _compile(gemm.GemmConfig("sm_90a", dtype, size, size, size))
            art.save(out_dir)
            print(f"{art.kernel_name}: compiled ({len(art.cubin)} B cubin)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
