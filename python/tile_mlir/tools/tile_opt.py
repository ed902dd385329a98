"""Console entry point of tile-opt (the logic is tile_mlir.opt.TileOptMain)."""
import sys

from tile_mlir.opt import main

if __name__ == "__main__":
    sys.exit(main())
