"""Every test runs tile-sim strict unless it asks otherwise: our own kernels must keep every ISA
rule (run_ptx's default is lenient, for foreign PTX; sim/findings.py)."""
import os

os.environ.setdefault("TILE_MLIR_SIM_STRICT", "1")
