"""The CUDA device and its primary context: lazy init, properties, sticky-error recovery.

``current_device()`` runs cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain and cuCtxSetCurrent once
and queries the properties the runtime needs (name, compute capability, shared-memory limits) once,
so launches make no driver queries. The primary context is the one cupy/torch/the CUDA runtime use,
so their device pointers are valid in our launches.

Sticky errors: after a device fault (CUDA_ERROR_ILLEGAL_ADDRESS, ...) every call in the context
fails. :func:`recover_from_sticky_error` (installed as the driver's sticky hook) resets the primary
context (cuDevicePrimaryCtxReset: all allocations in it are gone, including other libraries'),
re-retains it, checks it with a 1-byte allocation, drops the module cache and unbinds every jitted
kernel, so the next call reloads and works; the original error is then re-raised with
``context_reset = True``.

That in-process recovery is not guaranteed: NVIDIA documents that after a sticky error the
process's CUDA state is corrupt and the process must be restarted, and on an H200 with driver 580
the re-created context indeed stays dead. When the check fails the process is marked *poisoned*
(:func:`is_poisoned`; the error is re-raised with ``poisoned = True``): no further reset is tried,
the dead context is never made current again, kernel calls with host arrays run in a GPU worker
process (runtime/worker.py, routed by jit.py), device memory of this process is refused with
ContextLostError, and :func:`synchronize` returns at once (see there). A poisoned process stays so
until it exits.
"""
from __future__ import annotations

import logging
import threading
import weakref
from dataclasses import dataclass
from typing import Callable

from .. import env as _env
from . import driver as _d
from .errors import ContextLostError, CudaError
from .launch import stream_handle

__all__ = ["Device", "current_device", "synchronize", "recover_from_sticky_error",
           "on_context_reset", "device_count", "is_poisoned", "poison_reason", "context_lost"]

log = logging.getLogger("tile_mlir.runtime")

DEFAULT_SMEM_PER_BLOCK = 48 * 1024  # what a launch may use without the opt-in attribute


@dataclass
class Device:
    ordinal: int
    handle: object  # CUdevice
    context: object  # CUcontext (primary)
    name: str
    cc: tuple[int, int]
    max_smem_per_block: int  # without opt-in (48 KB)
    max_smem_optin: int  # with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    sm_count: int
    max_threads_per_block: int
    generation: int = 0  # bumped at each primary-context reset

    def describe(self) -> str:
        return f"{self.name} (compute capability {self.cc[0]}.{self.cc[1]})"

    def make_current(self) -> None:
        _d.call("cuCtxSetCurrent", self.context)
        _tls.ctx = (self.ordinal, self.generation)


_lock = threading.RLock()
_devices: dict[int, Device] = {}
_tls = threading.local()
_reset_callbacks: list[Callable[[], None]] = []
_reset_objects: "weakref.WeakSet" = weakref.WeakSet()

#: True once a sticky error could not be recovered from in this process (read by jit._Runner.call;
#: a module global so that the check costs one attribute load). Never reset: the process stays so.
poisoned = False
#: what poisoned it, e.g. "CUDA_ERROR_ILLEGAL_ADDRESS in cuCtxSynchronize"
poison_reason = ""


def is_poisoned() -> bool:
    """Whether the CUDA state of this process was lost to an unrecoverable device fault."""
    return poisoned


def context_lost(label: str, what: str) -> ContextLostError:
    """The error for an argument (``label``: "kernel: argument i ('name')") that is ``what`` (a
    device array, a raw pointer) in a poisoned process."""
    return ContextLostError(
        f"{label} is {what}, but the device memory of this process died with its CUDA context "
        f"after the device fault ({poison_reason or 'a sticky error'}) that could not be recovered "
        "in process; pass host (numpy) arrays instead (they run in a GPU worker process), or "
        "restart the process to use device memory again")


def default_ordinal() -> int:
    return int(_env.get("TILE_MLIR_DEVICE"))


def device_count() -> int:
    ok, _ = _d.probe()
    return _d.call("cuDeviceGetCount") if ok else 0


def _attr(dev, name: str) -> int:
    return _d.call("cuDeviceGetAttribute", getattr(_d.drv().CUdevice_attribute, name), dev)


def _open(ordinal: int) -> Device:
    _d.call("cuInit", 0)
    dev = _d.call("cuDeviceGet", ordinal)
    raw = _d.call("cuDeviceGetName", 256, dev)
    name = raw.split(b"\0", 1)[0].decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    cc = (_attr(dev, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"),
          _attr(dev, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"))
    ctx = _d.call("cuDevicePrimaryCtxRetain", dev)
    d = Device(
        ordinal, dev, ctx, name, cc,
        max_smem_per_block=_attr(dev, "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK"),
        max_smem_optin=_attr(dev, "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
        sm_count=_attr(dev, "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
        max_threads_per_block=_attr(dev, "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
    )
    d.make_current()
    log.debug("tile_mlir.runtime: using device %d: %s", ordinal, d.describe())
    return d


def current_device(ordinal: int | None = None) -> Device:
    """The (lazily opened) device, with its primary context current on the calling thread
    (in a poisoned process: the device's properties only, no context is made current)."""
    if ordinal is None:
        ordinal = default_ordinal()
    d = _devices.get(ordinal)
    if d is None:
        with _lock:
            d = _devices.get(ordinal)
            if d is None:
                d = _devices[ordinal] = _open(ordinal)
    if getattr(_tls, "ctx", None) != (ordinal, d.generation) and not poisoned:
        d.make_current()  # never the dead context of a poisoned process: its properties still hold
    return d


def on_context_reset(callback: Callable[[], None] | None = None, obj=None) -> None:
    """Register a callback (module-level caches) or an object with ``_invalidate()`` (kept weakly)
    to be told when the primary context is reset."""
    if callback is not None:
        _reset_callbacks.append(callback)
    if obj is not None:
        _reset_objects.add(obj)


def _notify_reset() -> None:
    for cb in list(_reset_callbacks):
        try:
            cb()
        except Exception:  # pragma: no cover - a cache must not block recovery
            log.exception("tile_mlir.runtime: reset callback failed")
    for obj in list(_reset_objects):
        try:
            obj._invalidate()
        except Exception:  # pragma: no cover
            log.exception("tile_mlir.runtime: invalidation failed")


_recovering = False


def _context_works(d: Device) -> bool:
    """Make d.context current and check it with a 1-byte allocation."""
    drv = _d.drv()
    if int(drv.cuCtxSetCurrent(d.context)[0]) != 0:
        return False
    res = drv.cuMemAlloc(1)
    if int(res[0]) != 0:
        return False
    drv.cuMemFree(res[1])
    return True


def _retain(d: Device) -> bool:
    res = _d.drv().cuDevicePrimaryCtxRetain(d.handle)
    if int(res[0]) != 0:
        return False
    d.context = res[1]
    return True


def _reset_primary_context(d: Device) -> bool:
    """cuDevicePrimaryCtxReset, then get a working primary context back.

    After a reset the primary context is inactive. Drivers differ in what happens to the retain
    count: observed on an H200 (driver 580), releasing after re-retaining destroyed the fresh
    context again, i.e. the reset dropped the count to 0. So: retain once (no release) and check
    the context; if it is still dead (the count survived the reset, so the retain did not
    re-create it), release until the driver refuses, then retain again. Returns whether the
    context works (a 1-byte cuMemAlloc succeeds) afterwards.
    """
    drv = _d.drv()
    drv.cuDevicePrimaryCtxReset(d.handle)
    if _retain(d) and _context_works(d):
        return True
    for _ in range(64):
        if int(drv.cuDevicePrimaryCtxRelease(d.handle)[0]) != 0:
            break
    if _retain(d) and _context_works(d):
        return True
    log.error("tile_mlir.runtime: could not re-create the primary context of %s: the CUDA state "
              "of this process is lost; kernel calls with host arrays will run in a GPU worker "
              "process", d.describe())
    return False


def recover_from_sticky_error(err: CudaError) -> None:
    """Reset every primary context we opened after a sticky error, then mark ``err`` as handled:
    ``context_reset`` when every context works again, else ``poisoned`` (and the process with it).
    In an already poisoned process nothing is tried again."""
    global _recovering, poisoned, poison_reason
    if poisoned:
        err.mark_poisoned()
        return
    if _recovering:
        return
    _recovering = True
    try:
        with _lock:
            ok = True
            for d in _devices.values():
                log.warning("tile_mlir.runtime: %s in %s on %s: resetting the primary context",
                            err.name, err.call, d.describe())
                ok = _reset_primary_context(d) and ok
                d.generation += 1
                _tls.ctx = (d.ordinal, d.generation)
            if not ok:
                poison_reason = f"{err.name} in {err.call}"
                poisoned = True
            _notify_reset()
        if ok:
            err.mark_reset()
        else:
            err.mark_poisoned()
    finally:
        _recovering = False


_d.set_sticky_hook(recover_from_sticky_error)


def synchronize(stream=None) -> None:
    """Wait for the device (or one stream); a pending device fault surfaces here as CudaError.

    In a poisoned process this returns at once without a driver call: the work queued in the dead
    context was lost with it (the fault that poisoned the process was raised once, by the call
    that saw it), and kernel calls routed to the GPU worker synchronise before they return, so
    there is nothing left to wait for. It does not raise the old error again.
    """
    if poisoned:
        return
    current_device()
    if stream is None:
        _d.call("cuCtxSynchronize")
    else:
        _d.call("cuStreamSynchronize", stream_handle(stream))
