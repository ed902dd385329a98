"""The worker backend: kernels with host arrays run in a GPU worker process after this process lost
its CUDA state.

After a sticky device fault that the in-process reset cannot repair (device.py marks the process
*poisoned*), nothing in this process can use CUDA again. jit.py then runs each "gpu" call through a
:class:`WorkerBackend`, which checks the arguments here and sends the call to a worker: a child
Python process (multiprocessing, start method 'spawn', so it inherits no CUDA state) that has its
own fresh primary context and runs the call with the same launcher (gpu.GpuBackend: module loading,
argument packing, staging, launch). Device arrays and raw pointers are refused (ContextLostError):
their memory died with this process's context.

Protocol over a multiprocessing Pipe, one request at a time:

    parent -> child  ("run", key, (manifest, ptx, cubin), args, grid, block, want)
    child -> parent  ("ok", [array for each index in want])
                     ("cuda", (call, code, name, detail, sticky))   re-raised as CudaError
                     ("error", class name, message)                 re-raised as that error
    parent -> child  ("exit",)

``args`` are the call's arguments with every buffer a C-contiguous numpy array (args.HostBuffer's
data) and every scalar as the caller passed it; the child runs the kernel, synchronises, and sends
back the buffers listed in ``want`` (those the kernel writes), which the parent writes back into
the caller's arrays. ``key``
identifies the artifact; the child keeps one GpuBackend per key (modules load once per worker).

Faults: the child reports a sticky error and exits (its own in-process reset is not tried); the
parent re-raises it (``CudaError.in_worker``) and starts a fresh worker at the next call, as it
does when the worker dies for any other reason (then a TileRuntimeError says so). The worker is
stopped at interpreter exit (atexit) or by :func:`shutdown`.

The child imports only tile_mlir.artifact and tile_mlir.runtime (never MLIR or the compiler); the
parent's ``__main__`` module is hidden while the worker starts, so 'spawn' does not re-import the
user's script in the child. ``TILE_MLIR_WORKER_DRIVER="module:callable"`` in the environment makes
the child use ``callable()`` instead of cuda.bindings.driver (tests use a fake driver).
"""
from __future__ import annotations

import atexit
import hashlib
import importlib
import json
import logging
import sys
import threading
import traceback
import types

import numpy as np

from .. import env as _env
from ..artifact import Artifact
from . import device as _device
from . import driver as _d
from . import errors as _errors
from .args import Signature
from .backend import Backend, LaunchResult
from .errors import ArgumentError, CudaError, TileMLIRError, TileRuntimeError
from .gpu import GpuBackend
from .launch import dim3

__all__ = ["WorkerBackend", "GpuWorker", "get_worker", "shutdown", "DRIVER_ENV"]

log = logging.getLogger("tile_mlir.runtime")

DRIVER_ENV = "TILE_MLIR_WORKER_DRIVER"
_POLL_S = 0.25  # how often a waiting parent checks that the worker is still alive
_START_LOCK = threading.Lock()


_warned = False  # the "now running in a worker process" warning is logged once per process


class WorkerBackend(Backend):
    """One kernel's calls in the GPU worker process (synchronous; ``stream`` is ignored: a stream
    of the dead context means nothing there)."""

    name = "gpu"

    def __init__(self, artifact, sig):
        super().__init__(artifact, sig)
        h = hashlib.sha256(json.dumps(artifact.manifest(), sort_keys=True, default=repr).encode())
        h.update(artifact.ptx.encode())
        h.update(artifact.cubin)
        self.key = h.hexdigest()[:32]

    def run(self, args, grid, block, stream) -> LaunchResult:
        sig = self.sig
        wargs, back = list(args), []
        for i, p in enumerate(sig.params):
            if p.kind != "buffer":
                sig.scalar(i, args[i])  # checked here, sent as passed
                continue
            try:
                v, bits = sig.buffer(i, args[i])
            except ArgumentError:
                raise
            except Exception as e:  # a CUDA library refusing after the fault
                if isinstance(args[i], np.ndarray):
                    raise
                raise _device.context_lost(sig.label(i), f"a {type(args[i]).__name__}") from e
            if v.kind == "device":
                raise _device.context_lost(sig.label(i),
                                           f"a device array ({type(args[i]).__name__})")
            if v.kind == "raw":
                raise _device.context_lost(sig.label(i), "a raw device pointer")
            hb = sig.host(i, v, bits)
            wargs[i] = hb.data
            if hb.output:
                back.append((i, hb))
        global _warned
        if not _warned:
            _warned = True
            log.warning("tile_mlir.runtime: the CUDA state of this process was lost (%s could not "
                        "be recovered in process); kernel calls with host arrays now run in a GPU "
                        "worker process, device arrays can no longer be used",
                        _device.poison_reason or "a sticky error")
        art = self.artifact
        g = None if grid is None else dim3(grid, "grid")
        bl = None if block is None else dim3(block, "block")
        outs = get_worker().run(sig.kernel, self.key, (art.manifest(), art.ptx, art.cubin), wargs,
                                g, bl, [i for i, _ in back])
        for (_, hb), out in zip(back, outs):
            hb.write_back(out)
        return LaunchResult("gpu", sig.by_name(args), sig.kernel, worker=True, written=sig.written_names)


class WorkerDiedError(TileRuntimeError):
    """The worker process exited during a call (a fresh one starts at the next call)."""


def _start_hiding_main(proc) -> None:
    """proc.start() with the parent's __main__ replaced by an empty module, so that the 'spawn'
    start method neither runs the user's script again in the child nor imports what it imports."""
    with _START_LOCK:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            proc.start()
        finally:
            if main is not None:
                sys.modules["__main__"] = main


class GpuWorker:
    """The parent's handle on one worker process at a time (restarted after a fault)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._proc = None
        self._conn = None
        self.starts = 0  # how many worker processes were started (tests, diagnostics)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _ensure(self):
        if self._proc is not None and self._proc.is_alive():
            return self._conn, self._proc
        self._stop()
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_main, args=(child,), name="tile_mlir-gpu-worker", daemon=True)
        _start_hiding_main(proc)
        child.close()
        self._proc, self._conn = proc, parent
        self.starts += 1
        log.info("tile_mlir.runtime: started GPU worker process %d", proc.pid)
        return parent, proc

    def _stop(self, timeout: float = 5.0) -> None:
        proc, conn, self._proc, self._conn = self._proc, self._conn, None, None
        if conn is not None:
            try:
                if proc is not None and proc.is_alive():
                    conn.send(("exit",))
            except (OSError, EOFError, ValueError):
                pass
            conn.close()
        if proc is not None:
            proc.join(timeout)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout)
                if proc.is_alive():  # pragma: no cover - a hung kernel ignores SIGTERM
                    proc.kill()
                    proc.join(timeout)

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _receive(self, conn, proc, kernel: str):
        while not conn.poll(_POLL_S):
            if not proc.is_alive() and not conn.poll(0):
                self._died(proc, kernel)
        try:
            return conn.recv()
        except (EOFError, OSError):  # readable because the child closed its end: it died
            self._died(proc, kernel)

    def _died(self, proc, kernel: str):
        proc.join(1.0)
        code = proc.exitcode
        self._stop()
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        raise WorkerDiedError(f"{kernel}: the GPU worker process exited during the call ({how}); "
                              "a fresh one starts at the next call")

    def run(self, kernel: str, key: str, payload: tuple, args: list, grid, block,
            want: list[int]) -> list:
        """Run one call in the worker; return the arrays at the ``want`` indices of ``args``."""
        msg = ("run", key, payload, args, grid, block, want)
        with self._lock:
            conn, proc = self._ensure()
            try:
                conn.send(msg)
            except (OSError, EOFError):  # died between calls: start a fresh one, once
                self._stop()
                conn, proc = self._ensure()
                conn.send(msg)
            try:
                reply = self._receive(conn, proc, kernel)
            except BaseException:  # KeyboardInterrupt: the reply would come out of step
                self._stop(timeout=1.0)
                raise
            tag = reply[0]
            if tag == "ok":
                return reply[1]
            if tag == "cuda":
                call, code, name, detail, sticky = reply[1]
                err = CudaError(call, code, name, detail, sticky=sticky)
                err.mark_in_worker()
                if sticky:
                    self._stop()  # its context is as dead as ours was
                raise err
            cls = getattr(_errors, reply[1], None)
            if not (isinstance(cls, type) and issubclass(cls, TileMLIRError)) or cls is CudaError:
                raise TileRuntimeError(f"{kernel}: GPU worker process: {reply[1]}: {reply[2]}")
            raise cls(reply[2])


_worker: GpuWorker | None = None
_worker_lock = threading.Lock()
_atexit_registered = False


def get_worker() -> GpuWorker:
    """The process-wide worker handle (the process itself starts at the first call)."""
    global _worker, _atexit_registered
    w = _worker
    if w is None:
        with _worker_lock:
            if _worker is None:
                _worker = GpuWorker()
                if not _atexit_registered:
                    atexit.register(shutdown)
                    _atexit_registered = True
            w = _worker
    return w


def shutdown() -> None:
    """Stop the worker process if one runs (also done at interpreter exit)."""
    w = _worker
    if w is not None:
        w.close()


# ----------------------------------------------------------------------------- the child


def _install_driver(spec: str) -> None:
    mod_name, _, attr = spec.partition(":")
    factory = getattr(importlib.import_module(mod_name), attr or "driver")
    _d._drv = factory()


def _backend(payload) -> GpuBackend:
    art = Artifact.from_manifest(*payload)
    return GpuBackend(art, Signature.of(art))


def _main(conn) -> None:
    """The worker's loop (runs in the child process)."""
    spec = _env.get(DRIVER_ENV)
    if spec:
        _install_driver(spec)
    _d.set_sticky_hook(None)  # a faulted worker reports and exits; the parent starts another
    kernels = {}  # key -> GpuBackend
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if msg[0] != "run":
            break
        _, key, payload, args, grid, block, want = msg
        try:
            k = kernels.get(key)
            if k is None:
                if len(kernels) >= 64:
                    kernels.clear()
                k = kernels[key] = _backend(payload)
            k.run(args, grid, block, None)
            _device.synchronize()
            reply = ("ok", [args[i] for i in want])
        except CudaError as e:
            reply = ("cuda", (e.call, e.code, e.name, e.detail, e.sticky))
        except TileMLIRError as e:
            reply = ("error", type(e).__name__, str(e))
        except Exception as e:  # noqa: BLE001 - report anything, keep serving
            reply = ("error", type(e).__name__, traceback.format_exc().rstrip())
        try:
            conn.send(reply)
        except (OSError, EOFError):
            break
        if reply[0] == "cuda" and reply[1][4]:
            break  # sticky: this process's CUDA state is gone
    conn.close()
