"""Exceptions raised by the tile_mlir runtime (no CUDA or emulator import here); the hierarchy they
belong to is described in tile_mlir/errors.py, whose argument errors are re-exported here."""
from __future__ import annotations

import re

from ..errors import ArgumentError, ArgumentTypeError, TileMLIRError

__all__ = ["TileRuntimeError", "CudaError", "ArgumentError", "ArgumentTypeError",
           "IncompatibleDeviceError", "BackendUnavailableError", "ContextLostError", "SimRunError"]


class TileRuntimeError(TileMLIRError, RuntimeError):
    """Base class of the errors of running a kernel (not of its arguments: ArgumentError)."""


class CudaError(TileRuntimeError):
    """A CUDA driver call failed.

    ``call`` is the driver entry point (e.g. "cuLaunchKernel"), ``name`` the CUDA error name as
    cuGetErrorName reports it (e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"), ``code`` its numeric value,
    ``sticky`` whether the error corrupted the context (the runtime then resets the primary context,
    see device.recover_from_sticky_error), ``context_reset`` whether that reset happened and the
    context works again, ``poisoned`` whether it did not: the CUDA state of this process is then
    unusable (NVIDIA documents that a sticky error may require restarting the process), and later
    kernel calls with host arrays run in a GPU worker process (see runtime/worker.py).
    ``in_worker`` is True for an error that happened in that worker process.
    """

    def __init__(self, call: str, code: int, name: str, detail: str = "", *, sticky: bool = False):
        self.call, self.code, self.name, self.detail = call, int(code), name, detail
        self.sticky = sticky
        self.context_reset = False
        self.poisoned = False
        self.in_worker = False
        super().__init__(self._text())

    def _text(self) -> str:
        text = f"{self.call} failed: {self.name}"
        if self.detail:
            text += f" ({self.detail})"
        if self.in_worker:
            text += " in the GPU worker process"
        if self.sticky:
            if self.in_worker:
                text += ("; sticky device error: the worker process was stopped, the next call "
                         "starts a fresh one")
            elif self.context_reset:
                text += ("; sticky device error: the primary context was reset and the module "
                         "cache dropped, the next call works")
            elif self.poisoned:
                text += ("; sticky device error: the CUDA context could not be recovered in this "
                         "process; later kernel calls with host (numpy) arrays run in a GPU worker "
                         "process, device arrays allocated before the fault are lost")
            else:
                text += "; sticky device error"
        return text

    def mark_reset(self) -> None:
        self.context_reset = True
        self.args = (self._text(),)

    def mark_poisoned(self) -> None:
        self.poisoned = True
        self.args = (self._text(),)

    def mark_in_worker(self) -> None:
        self.in_worker = True
        self.args = (self._text(),)

    def __str__(self) -> str:  # keep str() in step with mark_reset()
        return self._text()


class IncompatibleDeviceError(TileRuntimeError):
    """The cubin cannot run on this GPU (or a launch setting exceeds a device limit)."""


class BackendUnavailableError(TileRuntimeError):
    """Neither a usable GPU nor the emulator (or the requested one is missing)."""


class ContextLostError(TileRuntimeError):
    """The CUDA state of this process was lost to a device fault that could not be recovered in
    process: device memory (device arrays, raw pointers) from before the fault is gone. Kernel
    calls with host (numpy) arrays still work: they run in a GPU worker process."""


# the emulator's hint names its own API; a kernel run through jit() or tile-run reaches it so
_SIM_HINT = " [pass strict=False to downgrade to a warning]"
_RUN_HINT = (" [the check is tile-sim's strict mode: jit(..., strict=False) or tile-run --lenient "
             "lists it as a finding instead]")


class SimRunError(TileRuntimeError):
    """A kernel run on the emulator (tile-sim) failed: a race, a deadlock, an illegal access, a
    budget exceeded, ... found while executing its PTX.

    ``error`` is tile-sim's EmulationError (also ``__cause__``), ``findings`` what the emulator
    found besides (its ``findings``, when it reports them; else empty), ``kernel`` the kernel's
    name, ``ptx_line`` the 1-based line of ``artifact.ptx`` the error is tied to (None for errors of
    no one instruction, e.g. a deadlock, whose message lists every warp's position), ``instruction``
    that line's text, ``source`` the tile IR position ("file:line:col") of that instruction when the PTX
    carries line information (`.loc` directives), else None; ``location`` the source position, or
    "kernel: PTX line N", or the kernel alone.
    """

    def __init__(self, error, *, kernel: str, ptx: str = ""):
        self.error = error
        self.kernel = kernel
        self.findings = tuple(getattr(error, "findings", None) or ())
        self.ptx_line = getattr(error, "line", None)
        lines = ptx.splitlines()
        self.instruction = (lines[self.ptx_line - 1].strip()
                            if self.ptx_line and 0 < self.ptx_line <= len(lines) else "")
        self.source = _source_of(lines, self.ptx_line) if self.ptx_line else getattr(error, "source", None)
        self.location = self.source or (f"{kernel}: PTX line {self.ptx_line}" if self.ptx_line else kernel)
        super().__init__(str(error).replace(_SIM_HINT, _RUN_HINT))  # it names the line already


_FILE = re.compile(r'\s*\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')
_LOC = re.compile(r"\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")


def _source_of(lines: list[str], line: int) -> str | None:
    """"file:line:col" of the last `.loc` before PTX line ``line`` in its function, or None (also
    for `.loc N 0 0`: no source line, what an op of unknown location gets)."""
    files = {int(m.group(1)): m.group(2) for m in map(_FILE.match, lines) if m}
    for text in reversed(lines[:line]):
        m = _LOC.match(text)
        if m:
            if m.group(2) == "0":
                return None
            return f"{files.get(int(m.group(1)), '<unknown>')}:{m.group(2)}:{m.group(3)}"
        if ".entry" in text or ".func" in text:
            return None
    return None
