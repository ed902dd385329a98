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
        SimRunError                      a run on the emulator failed (a race, a deadlock, ...):
                                         carries tile-sim's EmulationError, its findings and the
                                         PTX line

Each keeps the builtin base a Python caller expects: a wrong type is a TypeError, a wrong value a
ValueError. tile_mlir.sim raises its own EmulationError (tile-sim imports nothing of the compiler's
side, and is used on its own on any PTX); a kernel run through jit() or tile-run turns it into a
SimRunError (runtime/emulator.py), so ``except tile_mlir.TileMLIRError`` sees every failure.
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
