"""Checked calls into the CUDA driver API (cuda-bindings' ``cuda.bindings.driver``).

Every CUresult is checked: a failure raises :class:`CudaError` naming the call and the CUDA error
name (from cuGetErrorName, falling back to the CUresult enum name when the driver library itself is
unusable). The bindings are imported lazily so that ``tile_mlir.runtime`` imports on machines
without cuda-bindings or without a driver; :func:`probe` says why no GPU can be used.

Sticky errors (a device fault such as CUDA_ERROR_ILLEGAL_ADDRESS corrupts the context: every later
call in it fails the same way) are flagged ``CudaError.sticky``; ``device.py`` registers the hook
that resets the primary context when one is seen (see :func:`set_sticky_hook`).
"""
from __future__ import annotations

from typing import Any, Callable

from .errors import BackendUnavailableError, CudaError

__all__ = ["drv", "call", "check", "error_name", "make_error", "probe", "STICKY_ERRORS",
           "set_sticky_hook"]

#: Errors after which the CUDA context is unusable ("sticky"); see the CUDA driver API docs.
STICKY_ERRORS = frozenset({
    "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_ASSERT",
    "CUDA_ERROR_LAUNCH_TIMEOUT", "CUDA_ERROR_ECC_UNCORRECTABLE", "CUDA_ERROR_TENSOR_MEMORY_LEAK",
    "CUDA_ERROR_CONTAINED", "CUDA_ERROR_ILLEGAL_STATE",
})

_drv = None
_sticky_hook: Callable[[CudaError], None] | None = None


def drv():
    """The ``cuda.bindings.driver`` module (imported on first use)."""
    global _drv
    if _drv is None:
        try:
            from cuda.bindings import driver as d
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise BackendUnavailableError(
                f"cuda-bindings is not installed ({e}); pip install 'cuda-bindings>=12.8'") from e
        _drv = d
    return _drv


def set_sticky_hook(hook: Callable[[CudaError], None] | None) -> None:
    """Install the function called (once per error) when a checked call sees a sticky error."""
    global _sticky_hook
    _sticky_hook = hook


def error_name(code: Any) -> str:
    """CUDA error name of a CUresult (cuGetErrorName; enum name if the driver cannot answer)."""
    d = drv()
    try:
        err, name = d.cuGetErrorName(code)
        if int(err) == 0 and name:
            return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # libcuda missing: the enum still knows the name
        pass
    try:
        return d.CUresult(int(code)).name
    except Exception:
        return f"CUDA error {int(code)}"


def make_error(call_name: str, code: Any, detail: str = "") -> CudaError:
    name = error_name(code)
    return CudaError(call_name, int(code), name, detail, sticky=name in STICKY_ERRORS)


def raise_error(call_name: str, code: Any, detail: str = "") -> None:
    """Raise the CudaError for a failed call, resetting the context first if it is sticky."""
    e = make_error(call_name, code, detail)
    if e.sticky and _sticky_hook is not None:
        _sticky_hook(e)
    raise e


def check(call_name: str, result: tuple, detail: str = ""):
    """Check a cuda-bindings result tuple ``(CUresult, *values)``; return the value(s)."""
    err = result[0]
    if err:
        raise_error(call_name, err, detail)
    n = len(result)
    if n == 1:
        return None
    return result[1] if n == 2 else tuple(result[1:])


def call(call_name: str, *args, detail: str = ""):
    """``check(name, driver.<name>(*args))``; a missing driver library becomes a clear error."""
    fn = getattr(drv(), call_name)
    try:
        result = fn(*args)
    except CudaError:
        raise
    except Exception as e:
        if type(e).__name__ == "DynamicLibNotFoundError" or "libcuda" in str(e):
            raise BackendUnavailableError(
                f"no CUDA driver: {call_name} could not load libcuda ({e})") from e
        raise
    return check(call_name, result, detail)


_probe_cache: tuple[bool, str] | None = None


def probe(refresh: bool = False) -> tuple[bool, str]:
    """(True, "") when cuInit succeeds and a device exists, else (False, reason).

    The reason reads like "no CUDA device: cuInit failed with CUDA_ERROR_NO_DEVICE".
    """
    global _probe_cache
    if _probe_cache is not None and not refresh:
        return _probe_cache
    try:
        call("cuInit", 0)
        n = call("cuDeviceGetCount")
        _probe_cache = (True, "") if n > 0 else (False, "no CUDA device: cuDeviceGetCount returned 0")
    except CudaError as e:
        _probe_cache = (False, f"no CUDA device: {e.call} failed with {e.name}")
    except BackendUnavailableError as e:
        _probe_cache = (False, str(e))
    return _probe_cache
