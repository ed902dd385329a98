"""Compile the kernels test_providers_sim.py compares, with the provider TILE_MLIR_BINDINGS names, and save
each Artifact (PTX and cubin) under the directory given: python providers_ptx.py OUT_DIR.

Run in a fresh interpreter per provider (mlir.py loads one provider per process)."""
from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, os.pardir, os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, os.path.join(ROOT, "python"))

import gemm_blockscaled as gemm  # noqa: E402

# name: (arch, tile IR); the GEMM sizes are the smallest whole tiles of each kernel
KERNELS = {
    "demo": ("sm_100a", lambda: open(os.path.join(ROOT, "examples", "demo.mlir")).read()),
    "mxfp8": ("sm_100a", lambda: gemm.build(gemm.GemmConfig("sm_100a", "mxfp8", 128, 128, 256))),
    "bf16_twin": ("sm_90a", lambda: gemm.build(gemm.GemmConfig("sm_90a", "bf16", 128, 256, 128))),
}
GEMM_CONFIGS = {"mxfp8": ("sm_100a", "mxfp8", 128, 128, 256), "bf16_twin": ("sm_90a", "bf16", 128, 256, 128)}


def main(out: str) -> int:
    import tile_mlir
    from tile_mlir.mlir import BINDINGS, llvm_version

    for name, (arch, text) in KERNELS.items():
        art = tile_mlir.compile(text(), arch=arch, emit=("ptx", "cubin"))
        art.save(os.path.join(out, name))
    with open(os.path.join(out, "provider.json"), "w") as f:
        json.dump({"provider": BINDINGS, "llvm": llvm_version(), "cutlass_loaded": "cutlass" in sys.modules}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
