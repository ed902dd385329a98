#!/usr/bin/env python3
"""On a non-Blackwell GPU: the demo's sm_100a cubin must be refused before launch (naming both the
cubin's arch and the device), and backend="auto" must run it on tile-sim instead and say so.
Needs only numpy and cuda-bindings (PYTHONPATH=python)."""
import os
import sys

import numpy as np

from tile_mlir.artifact import Artifact
from tile_mlir.runtime import jit

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    art = Artifact.load(os.path.join(HERE, "blackwell", "demo.json"))
    a = np.random.default_rng(7).integers(0, 256, (32, 16), dtype=np.uint8)
    status = 0
    try:
        jit(art, backend="gpu")(a, np.zeros((128, 16), np.uint8))
        print("NOT refused: an sm_100a cubin launched on this GPU")
        status = 1
    except Exception as e:  # noqa: BLE001
        print(f"refused before launch: {type(e).__name__}: {e}")
    out = np.zeros((128, 16), np.uint8)
    r = jit(art, backend="auto")(a, out)
    ok = np.array_equal(out, np.tile(a, (4, 1)))
    print(f"backend='auto' ran on {r.backend}: {'match' if ok else 'mismatch'}")
    return status or (0 if ok else 1)


if __name__ == "__main__":
    sys.exit(main())
