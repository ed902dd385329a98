"""Instruction handlers of tile-sim, grouped by family.  Each module exposes ``decode_<mnemonic>``
functions, declares the state it keeps (:class:`tile_mlir.sim.state.Kept`, named after the module)
and registers the hooks it needs from its decoders; :mod:`tile_mlir.sim.opcodes` is the one table
that maps mnemonics to the decoders."""
