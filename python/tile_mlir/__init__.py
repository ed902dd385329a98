"""tile_mlir: a tile dialect lowered to tcgen05 for sm_100a, with a PTX emulator and a JIT runner."""
