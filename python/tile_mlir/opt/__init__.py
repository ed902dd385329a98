"""tile-opt: an mlir-opt for tile IR -- its command line, flags, output, reproducers,
--verify-diagnostics, alias printing and input checks."""
from .command import TileOptMain, main

__all__ = ["TileOptMain", "main"]
