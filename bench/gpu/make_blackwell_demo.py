#!/usr/bin/env python3
"""Build bench/gpu/blackwell/demo.*: the seed's demo (examples/demo.mlir) compiled for sm_100a, which
blackwell_on_hopper.py checks a Hopper GPU refuses before launch and backend="auto" runs on tile-sim.

    .venv/bin/python bench/gpu/make_blackwell_demo.py [OUT_DIR]   (default bench/gpu/blackwell)
"""
import os
import sys

from provenance import ROOT, source_hashes

sys.path.insert(0, str(ROOT / "python"))

from tile_mlir.driver.compiler import compile  # noqa: E402

DEMO = ROOT / "examples" / "demo.mlir"


def main() -> int:
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "blackwell")
    art = compile(DEMO.read_text(), arch="sm_100a", filename="examples/demo.mlir")
    art.meta["sources"] = source_hashes(__file__, DEMO)
    print("wrote", art.save(out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
