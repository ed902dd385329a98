#!/usr/bin/env python3
"""Compile the persistent Hopper GEMM (examples/gemm_persistent.py) at every shape of bench/gemm.py's SUITE,
for its "persistent" column.

    .venv/bin/python bench/gpu/persistent/make_persistent_suite.py OUT_DIR [tma|registers|tma-mc2|tma-pingpong] [DTYPE ...] [MxNxK ...]

MxNxK arguments replace the suite's shapes (e.g. 1x8x16 100x40x48: tensors smaller than a tile);

tma-mc2: the TMA epilogue with clusters of 2 CTAs along M, each multicasting half of the B tile (cluster_m=2);
tma-pingpong: the TMA epilogue with consumer warpgroups owning alternate 128 x 128 tiles (schedule=pingpong).

Not committed (rebuilt for a run, about 30 s each here, and carried to the GPU machine).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "examples"), os.path.join(ROOT, "bench")]

import gemm_persistent as persistent  # noqa: E402
from gemm import SUITE  # noqa: E402  (bench/gemm.py)
from tile_mlir.driver.compiler import compile  # noqa: E402


def main(out_dir: str, mode: str = "tma", *rest: str) -> int:
    os.makedirs(out_dir, exist_ok=True)
    shapes = [tuple(int(x) for x in a.split("x")) for a in rest if "x" in a] or SUITE
    dtypes = [a for a in rest if "x" not in a]
    epilogue, _, variant = mode.partition("-")
    options = {"": {}, "mc2": {"cluster_m": 2}, "pingpong": {"schedule": "pingpong", "tile_n": 128}}[variant]
    for dtype in dtypes or ("bf16", "e4m3"):
        for m, n, k in shapes:
            try:
                cfg = persistent.PersistentConfig(dtype, m, n, k, epilogue=epilogue, **options)
            except ValueError as e:
                print(f"{dtype} {m}x{n}x{k}: not built ({e})")
                continue
            if os.path.exists(os.path.join(out_dir, f"{cfg.name}.json")):
                continue
            art = compile(persistent.build(cfg), arch="sm_90a", filename=f"{cfg.name}.mlir")
            art.meta["outputs"] = ["D"]
            art.save(out_dir)
            print(f"{cfg.name}: {len(art.cubin)} B cubin", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
