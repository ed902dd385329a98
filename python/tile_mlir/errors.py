"""The exceptions tile_mlir raises on purpose, in one hierarchy with one root:

    TileMLIRError                        every one of them (``except tile_mlir.TileMLIRError``)
      UsageError                         a command line that cannot run (tile-opt, tile-run, the
                                         layout viewer, the examples): one line, exit status 1
      ArgumentError (ValueError)         a bad argument to a public function or to a kernel call:
                                         a value out of range, a shape, a missing file, a read-only
                                         output, a malformed manifest
        ArgumentTypeError (TypeError)    an argument of the wrong type: not an array, a dtype the
                                         parameter does not take, a wrong argument count
      SourceError (MLIRError)            parse: text refused before the parser sees it (context.py)
      TypeParseError, IRDLError          parse: a malformed tile type; an IRDL file (dialect/)
      LayoutError (ValueError)           a layout the algebra cannot build (layout/)
      DispatchError                      dispatch: no variant takes the op; carries the table
      TileError                          compiling failed (verify, dispatch, lowering); carries the
                                         diagnostics (diagnostics.py)
      PipelineError (ValueError)         a pipeline or pass option that cannot run (pass_base.py)
      EmulationError                     emulation: tile-sim met illegal, undefined or unsupported
                                         behaviour of the PTX (sim/errors.py)
      TileRuntimeError (RuntimeError)    running failed (runtime/errors.py): CudaError,
                                         IncompatibleDeviceError, BackendUnavailableError,
                                         ContextLostError, ...
        SimRunError                      a run on the emulator failed (a race, a deadlock, ...):
                                         carries tile-sim's EmulationError, its findings and the
                                         PTX line

Each keeps the builtin base a Python caller expects: a wrong type is a TypeError, a wrong value a
ValueError, a refused source an MLIRError as the parser's own. Exceptions that never leave the package
(a variant's Decline, a reader's truncation signal) are listed, with the reason, in
test/python/project/test_error_tree.py, which fails on any other exception class outside this tree.
This module imports nothing, so every part of the package (tile-sim too) can raise these.
"""
from __future__ import annotations

__all__ = ["TileMLIRError", "UsageError", "ArgumentError", "ArgumentTypeError"]


class TileMLIRError(Exception):
    """Base class of every exception tile_mlir raises on purpose."""


class UsageError(TileMLIRError):
    """A command line that cannot run: the message is the one line the tool prints after its name."""


class ArgumentError(TileMLIRError, ValueError):
    """A bad argument to a public function or to a kernel call (the message names it)."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of the wrong type, dtype or count (an ArgumentError and a TypeError)."""
