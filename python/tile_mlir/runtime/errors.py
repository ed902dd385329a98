"""Exceptions raised by the tile_mlir runtime (no CUDA import here)."""
from __future__ import annotations

__all__ = ["TileRuntimeError", "CudaError", "ArgumentError", "IncompatibleDeviceError",
           "BackendUnavailableError"]


class TileRuntimeError(RuntimeError):
    """Base class of every runtime error."""


class CudaError(TileRuntimeError):
    """A CUDA driver call failed.

    ``call`` is the driver entry point (e.g. "cuLaunchKernel"), ``name`` the CUDA error name as
    cuGetErrorName reports it (e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"), ``code`` its numeric value,
    ``sticky`` whether the error corrupted the context (the runtime then resets the primary context,
    see device.recover_from_sticky_error), ``context_reset`` whether that reset happened.
    """

    def __init__(self, call: str, code: int, name: str, detail: str = "", *, sticky: bool = False):
        self.call, self.code, self.name, self.detail = call, int(code), name, detail
        self.sticky = sticky
        self.context_reset = False
        super().__init__(self._text())

    def _text(self) -> str:
        text = f"{self.call} failed: {self.name}"
        if self.detail:
            text += f" ({self.detail})"
        if self.sticky:
            text += ("; sticky device error: the primary context was reset and the module cache "
                     "dropped, the next call works" if self.context_reset else
                     "; sticky device error")
        return text

    def mark_reset(self) -> None:
        self.context_reset = True
        self.args = (self._text(),)

    def __str__(self) -> str:  # keep str() in step with mark_reset()
        return self._text()


class ArgumentError(TileRuntimeError, TypeError):
    """Wrong argument count, kind, dtype, shape or launch dimensions for a kernel call."""


class IncompatibleDeviceError(TileRuntimeError):
    """The cubin cannot run on this GPU (or a launch setting exceeds a device limit)."""


class BackendUnavailableError(TileRuntimeError):
    """Neither a usable GPU nor the emulator (or the requested one is missing)."""
