"""Instruction handlers of tile-sim, grouped by family.  Each module exposes ``decode_<mnemonic>``
functions; :mod:`tile_mlir.sim.opcodes` is the one table that maps mnemonics to them."""
