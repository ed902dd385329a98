"""tile_mlir.runtime: run compiled tile kernels on a GPU (CUDA driver API through cuda-bindings) or
on the PTX emulator.

    from tile_mlir.runtime import jit
    kernel = jit(source_or_artifact, arch="auto", backend="auto")   # text, path, bytes, module
    result = kernel(a, b, n)            # numpy, cupy/numba (CUDA array interface), torch (DLPack)
    result = kernel(A=a, out=b, n=n)    # by the names the program gives the kernel's arguments
    result.backend, kernel.last_backend # "gpu" or "sim"
    result.worker                       # True: ran in the GPU worker process after a device
                                        # fault this process could not recover from (jit.py)

Parts: cache.py (compile cache, memory and disk), backend.py (the backend interface and choice),
gpu.py / emulator.py / worker.py (the backends), fast_path.py (repeated calls), args.py (argument
marshalling; buffers.py reads buffer arguments), dtypes.py (element dtypes: ml_dtypes, DLPack,
packed sub-byte elements), and under the GPU backend driver.py, device.py, module.py, launch.py,
memory.py. Errors: errors.py (part of the one hierarchy of tile_mlir/errors.py; a bad argument is
an ArgumentError).
Nothing here imports CUDA, MLIR, the compiler or the emulator until it is used.
"""
from .arch import can_run, parse_arch, refusal_message, resolve_arch
from .errors import (ArgumentError, ArgumentTypeError, BackendUnavailableError, ContextLostError,
                     CudaError, IncompatibleDeviceError, SimRunError, TileRuntimeError)
from .backend import LaunchResult
from .cache import compile_cached
from .jit import JitKernel, cache_stats, clear_cache, jit
from .memory import DeviceArray
from .device import current_device as _cd, synchronize as _s
from .driver import probe

__all__ = [
    "jit", "JitKernel", "LaunchResult", "compile_cached", "clear_cache", "cache_stats",
    "CudaError", "ArgumentError", "ArgumentTypeError", "IncompatibleDeviceError",
    "BackendUnavailableError", "TileRuntimeError", "ContextLostError", "SimRunError", "can_run", "parse_arch",
    "refusal_message", "resolve_arch",
    "cuda_available", "current_device", "synchronize", "DeviceArray",
]


def cuda_available() -> tuple[bool, str]:
    """(True, "") if a CUDA device can be used, else (False, reason)."""
    return probe()


def current_device():
    """The Device in use (name, cc, shared-memory limits), opening it if needed."""
    return _cd()


def synchronize(stream=None) -> None:
    """Wait for the GPU; a device fault of an earlier asynchronous launch is raised here.

    After a fault this process could not recover from, it returns at once (see device.synchronize).
    """
    _s(stream)


def __getattr__(name):
    if name == "DeviceArray":
        return DeviceArray
    raise AttributeError(name)
