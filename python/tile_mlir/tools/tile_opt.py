"""Console entry point of tile-opt (the logic is tile_mlir.opt.command.TileOptMain)."""
import sys

from tile_mlir.opt.command import main

if __name__ == "__main__":
    sys.exit(main())
