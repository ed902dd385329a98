"""python -m tile_mlir.layout show LAYOUT [--shape DIMS] [--bits N] (layout/grid.py)."""
import sys

from .grid import main

sys.exit(main(prog="python -m tile_mlir.layout"))
