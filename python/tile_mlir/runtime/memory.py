"""Minimal device memory: the staging buffers behind numpy arguments, and :class:`DeviceArray`,
a C-contiguous device array exposing ``__cuda_array_interface__`` (for tests and benchmarks on
machines without cupy/torch)."""
from __future__ import annotations

import math

import numpy as np

from . import driver as _d
from .device import current_device
from .errors import ContextLostError
from . import device as _device

__all__ = ["DeviceArray", "copy_to_device", "copy_to_host"]


def copy_to_device(ptr: int, host: np.ndarray, stream=None) -> None:
    """Copy a C-contiguous host array to device memory at ptr (async on stream if given)."""
    if host.nbytes == 0:
        return
    if stream is None:
        _d.call("cuMemcpyHtoD", ptr, host.ctypes.data, host.nbytes)
    else:
        _d.call("cuMemcpyHtoDAsync", ptr, host.ctypes.data, host.nbytes, stream)


def copy_to_host(host: np.ndarray, ptr: int, stream=None) -> None:
    """Copy device memory at ptr into a C-contiguous host array (async on stream if given)."""
    if host.nbytes == 0:
        return
    if stream is None:
        _d.call("cuMemcpyDtoH", host.ctypes.data, ptr, host.nbytes)
    else:
        _d.call("cuMemcpyDtoHAsync", host.ctypes.data, ptr, host.nbytes, stream)


class DeviceArray:
    """Device memory of a given shape/dtype from cuMemAlloc, freed when collected.

    Memory from before a primary-context reset is gone; such an array reports ``stale``. In a
    process that lost its CUDA state to an unrecoverable fault, creating one raises
    ContextLostError.
    """

    def __init__(self, shape, dtype="uint8"):
        if _device.poisoned:
            raise ContextLostError(
                "cannot allocate device memory: this process lost its CUDA state to a device fault "
                f"({_device.poison_reason}) that could not be recovered in process; kernel calls "
                "with host (numpy) arrays still work (they run in a GPU worker process)")
        self.shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        self.dtype = np.dtype(dtype)
        self.nbytes = math.prod(self.shape) * self.dtype.itemsize
        self._dev = current_device()
        self._gen = self._dev.generation
        self.ptr = int(_d.call("cuMemAlloc", max(self.nbytes, 1)))

    @property
    def stale(self) -> bool:
        return self._dev.generation != self._gen

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
                "strides": None, "version": 3, "stream": None}

    @classmethod
    def from_host(cls, host) -> "DeviceArray":
        host = np.ascontiguousarray(host)
        out = cls(host.shape, host.dtype)
        copy_to_device(out.ptr, host)
        return out

    @classmethod
    def zeros(cls, shape, dtype="uint8") -> "DeviceArray":
        out = cls(shape, dtype)
        if out.nbytes:
            _d.call("cuMemsetD8", out.ptr, 0, out.nbytes)
        return out

    def copy_from_host(self, host) -> None:
        host = np.ascontiguousarray(host, dtype=self.dtype).reshape(self.shape)
        copy_to_device(self.ptr, host)

    def to_host(self) -> np.ndarray:
        out = np.empty(self.shape, self.dtype)
        copy_to_host(out, self.ptr)
        return out

    def free(self) -> None:
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr and not self.stale:
            try:
                _d.drv().cuMemFree(ptr)
            except Exception:  # interpreter shutdown
                pass

    __del__ = free

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype.name}, ptr=0x{self.ptr:x})"
