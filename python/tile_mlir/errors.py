"""The exceptions tile_mlir raises on purpose, in one hierarchy:

    TileMLIRError                        every one of them (``except tile_mlir.TileMLIRError``)
      ArgumentError (ValueError)         a bad argument to a public function or to a kernel call:
                                         a value out of range, a shape, a missing file, a read-only
                                         output, a malformed manifest
        ArgumentTypeError (TypeError)    an argument of the wrong type: not an array, a dtype the
                                         parameter does not take, a wrong argument count
      TileError                          compiling failed; carries the diagnostics (diagnostics.py)
      TileRuntimeError (RuntimeError)    running failed (runtime/errors.py): CudaError,
                                         IncompatibleDeviceError, BackendUnavailableError,
                                         ContextLostError, ...

Each keeps the builtin base a Python caller expects: a wrong type is a TypeError, a wrong value a
ValueError. The emulator's EmulationError (tile_mlir.sim) stays outside: tile-sim imports nothing
of the compiler's side, and the runtime checks arguments before the emulator sees them.
This module imports nothing, so every part of the package can raise these.
"""
from __future__ import annotations

__all__ = ["TileMLIRError", "ArgumentError", "ArgumentTypeError"]


class TileMLIRError(Exception):
    """Base class of every exception tile_mlir raises on purpose."""


class ArgumentError(TileMLIRError, ValueError):
    """A bad argument to a public function or to a kernel call (the message names it)."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of the wrong type, dtype or count (an ArgumentError and a TypeError)."""
