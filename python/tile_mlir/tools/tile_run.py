"""Console script ``tile-run`` (see tile_mlir.runtime.tile_run)."""
import sys

from tile_mlir.runtime.tile_run import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
