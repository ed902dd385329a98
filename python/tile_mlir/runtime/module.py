"""Module loading and the per-context function cache.

``get_function(device, artifact, image)`` loads the cubin (or the PTX, for the driver to JIT) with
cuModuleLoadData and looks the kernel up with cuModuleGetFunction once per (device, kernel,
content) in the current primary context; later calls return the cached handles. The cache is
dropped when the context is reset after a sticky error (handles die with the context).
"""
from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass, field

from . import driver as _d
from .device import DEFAULT_SMEM_PER_BLOCK, Device, on_context_reset
from .errors import CudaError, IncompatibleDeviceError

__all__ = ["LoadedKernel", "get_function", "clear", "cache_info", "image_digest"]

log = logging.getLogger("tile_mlir.runtime")


@dataclass
class LoadedKernel:
    module: object  # CUmodule
    function: object  # CUfunction
    image: str  # "cubin" | "ptx"
    static_smem: int
    max_threads: int
    dynamic_smem_limit: int = DEFAULT_SMEM_PER_BLOCK  # what the function is currently allowed
    non_portable_cluster: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


_cache: dict[tuple, LoadedKernel] = {}
_CUBIN_REJECTED = frozenset({"CUDA_ERROR_INVALID_IMAGE", "CUDA_ERROR_NO_BINARY_FOR_GPU",
                             "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "CUDA_ERROR_INVALID_SOURCE"})
_stats = {"loads": 0, "hits": 0}
_lock = threading.Lock()


def image_digest(artifact, image: str) -> str:
    data = artifact.cubin if image == "cubin" else artifact.ptx.encode()
    return hashlib.sha256(data).hexdigest()[:24]


def clear() -> None:
    """Forget every loaded module (no unload: used when the context is gone)."""
    _cache.clear()


def unload_all() -> None:
    """Unload every cached module (live context) and clear the cache."""
    for lk in list(_cache.values()):
        try:
            _d.drv().cuModuleUnload(lk.module)
        except Exception:  # pragma: no cover
            pass
    _cache.clear()


def cache_info() -> dict:
    return {"entries": len(_cache), **_stats}


on_context_reset(clear)


def _func_attr(func, name: str) -> int:
    return _d.call("cuFuncGetAttribute", getattr(_d.drv().CUfunction_attribute, name), func)


def get_function(device: Device, artifact, image: str = "cubin", digest: str | None = None
                 ) -> LoadedKernel:
    key = (device.ordinal, device.generation, artifact.kernel_name, image,
           digest or image_digest(artifact, image))
    lk = _cache.get(key)
    if lk is not None:
        _stats["hits"] += 1
        return lk
    with _lock:
        lk = _cache.get(key)
        if lk is not None:
            return lk
        if image == "cubin":
            data = artifact.cubin
        else:
            data = artifact.ptx.encode() + b"\0"
        detail = f"{image} of {artifact.kernel_name} for {artifact.arch} on {device.describe()}"
        try:
            mod = _d.call("cuModuleLoadData", data, detail=detail)
        except CudaError as e:
            # a cubin from a newer toolkit than the driver: let the driver JIT the PTX instead
            if image != "cubin" or e.name not in _CUBIN_REJECTED or not artifact.ptx:
                raise
            log.warning("tile_mlir.runtime: %s rejected the cubin of %s (%s); loading its PTX",
                        device.describe(), artifact.kernel_name, e.name)
            image = "ptx"
            try:
                mod = _d.call("cuModuleLoadData", artifact.ptx.encode() + b"\0",
                              detail=f"PTX of {artifact.kernel_name} after the cubin failed with "
                                     f"{e.name}")
            except CudaError:
                raise e from None
        func = _d.call("cuModuleGetFunction", mod, artifact.kernel_name.encode(),
                       detail=f"kernel {artifact.kernel_name!r} in the {image}")
        lk = LoadedKernel(mod, func, image,
                          static_smem=_func_attr(func, "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES"),
                          max_threads=_func_attr(func, "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK"))
        _cache[key] = lk
        _stats["loads"] += 1
        log.debug("tile_mlir.runtime: loaded %s", detail)
        return lk


def ensure_dynamic_smem(device: Device, lk: LoadedKernel, nbytes: int, kernel_name: str) -> None:
    """Check nbytes of dynamic shared memory against the device and opt the function in above
    48 KB (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES). Raises before any launch."""
    if nbytes <= lk.dynamic_smem_limit:
        return
    total = nbytes + lk.static_smem
    if total > device.max_smem_optin:
        raise IncompatibleDeviceError(
            f"{kernel_name}: {nbytes} bytes of dynamic shared memory"
            + (f" (+{lk.static_smem} static)" if lk.static_smem else "")
            + f" exceed the limit of {device.max_smem_optin} bytes per block on {device.describe()}")
    with lk.lock:
        _d.call("cuFuncSetAttribute", lk.function,
                _d.drv().CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                nbytes, detail=f"{kernel_name}: {nbytes} bytes of dynamic shared memory")
        lk.dynamic_smem_limit = nbytes


def ensure_cluster_size(lk: LoadedKernel, size: int, kernel_name: str) -> None:
    """Clusters above 8 CTAs need the non-portable-size opt-in."""
    if size > 8 and not lk.non_portable_cluster:
        _d.call("cuFuncSetAttribute", lk.function,
                _d.drv().CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1,
                detail=f"{kernel_name}: cluster of {size} CTAs")
        lk.non_portable_cluster = True
