#!/usr/bin/env python3
"""Compile today's Hopper twin (examples/gemm_blockscaled.py, one CTA per 128 x 256 tile) at every shape of
bench/gemm.py's SUITE that it takes (whole tiles only), for the baseline column of the suite.

    .venv/bin/python bench/gpu/persistent/make_twin_suite.py OUT_DIR [DTYPE ...]

Not committed: the cubins are rebuilt for a run (26 s each here) and carried to the GPU machine.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "examples"), os.path.join(ROOT, "bench")]

import gemm_blockscaled as twin  # noqa: E402
from gemm import SUITE  # noqa: E402  (bench/gemm.py)
from tile_mlir.driver.compiler import compile  # noqa: E402


def main(out_dir: str, *dtypes: str) -> int:
    os.makedirs(out_dir, exist_ok=True)
    for dtype in dtypes or ("bf16", "e4m3"):
        for m, n, k in SUITE:
            try:
                cfg = twin.GemmConfig("sm_90a", dtype, m, n, k)
            except ValueError as e:
                print(f"{dtype} {m}x{n}x{k}: not built ({e})")
                continue
            if os.path.exists(os.path.join(out_dir, f"{cfg.name}.json")):
                continue
            art = compile(twin.build(cfg), arch="sm_90a", filename=f"{cfg.name}.mlir")
            art.meta["outputs"] = ["D"]
            art.save(out_dir)
            print(f"{cfg.name}: {len(art.cubin)} B cubin", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
