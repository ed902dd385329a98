"""``jit()``: compile (cached), pick a backend, run.

    kernel = jit(module_or_text_or_artifact, arch="auto", backend="auto", **compile_options)
    result = kernel(*args, grid=None, block=None, stream=None)

Arguments, in ``artifact.params`` order (count, dtype and shape are checked against the params,
errors name the parameter; args.py):

* numpy arrays: copied to device memory before the launch and copied back after it, for every
  buffer (the runtime cannot know which buffers the kernel writes); the call then synchronises the
  stream, and the arrays are updated in place (read-only arrays are not written back).
* device arrays (``__cuda_array_interface__``: cupy, numba; DLPack: torch CUDA tensors): passed by
  pointer, no copy, no synchronisation (the launch is asynchronous on ``stream``, default the
  legacy default stream; call ``tile_mlir.runtime.synchronize()`` or your framework's sync).
* Python/numpy scalars for scalar params (range-checked); plain ints for buffer params are taken
  as raw device pointers, unchecked.

The call returns a :class:`LaunchResult` (``backend`` "gpu" or "sim", ``outputs`` name -> the
buffer objects passed). ``kernel.last_backend`` says which backend ran; the choice is also logged
(logger "tile_mlir.runtime", INFO) when it is made.

Backends (backend.py): "gpu" runs the cubin through the CUDA driver (gpu.py) and refuses (before
any launch) a cubin the device cannot run; "sim" runs ``tile_mlir.sim.run_ptx`` on ``artifact.ptx``
(emulator.py); "auto" uses the GPU when there is one that can run the cubin (see arch.can_run),
else the emulator.

Caching: artifacts in memory and on disk (cache.py), so ``jit`` of the same source compiles once
per process and, across processes, once per machine; modules/functions per context (module.py).
The hot path of a repeated call with the same argument objects and default grid/block/stream is an
identity check of the arguments and one driver call on pre-packed parameters (fast_path.py; the
kernel keeps references to the last arguments, ``kernel.forget()`` drops them). A new argument
object is inspected again (count, dtype, shape, pointer). A JitKernel is not meant to be called
from several threads at once (the parameter buffer is shared); use one per thread.

Device faults: a sticky error (CUDA_ERROR_ILLEGAL_ADDRESS, ...) is raised as CudaError by the call
that sees it (the launch, the copy-back of a host-array call, or ``synchronize()``); the runtime
then resets the primary context (device.py). If the reset works (``err.context_reset``), the next
call reloads the module and runs in this process as before. If it does not (``err.poisoned``: on
an H200 with driver 580 the re-created context stays dead, as NVIDIA documents for sticky errors),
this process can no longer use CUDA, and from then on

* calls with host arrays (numpy, CPU DLPack) and scalars run in a GPU worker process
  (worker.py): a fresh process with its own context runs the kernel with the same launcher,
  synchronises and sends the buffers back; the call is synchronous, ``stream`` is ignored (a stream
  of the dead context means nothing there), and the result says so: ``result.worker`` is True
  (``result.backend`` and ``kernel.last_backend`` stay "gpu"); a warning is logged once. A fault in
  the worker is raised as CudaError (``in_worker`` True) and the next call starts a fresh worker;
* calls with device arrays (``__cuda_array_interface__``, CUDA DLPack) or raw pointers raise
  :class:`ContextLostError`: their memory died with the faulted context (host arrays still work);
* ``synchronize()`` returns at once (nothing can be pending in the dead context).

The fast path of a repeated call pays nothing for this: the reset disarms every kernel's fast path,
so after a fault each call goes through ``_Runner.call``, which checks one flag.
"""
from __future__ import annotations

import logging
from operator import attrgetter

from ..artifact import Artifact
from . import cache as _cache
from . import device as _device
from . import module as _module
from .args import Signature
from .backend import BACKENDS, Backend, LaunchResult, choose
from .cache import compile_cached
from .emulator import SimBackend
from .fast_path import fast_path
from .gpu import GpuBackend
from .worker import WorkerBackend

__all__ = ["jit", "JitKernel", "clear_cache", "cache_stats"]

log = logging.getLogger("tile_mlir.runtime")


class _Runner:
    """One kernel's calls: picks its backend (once), sends GPU calls to the worker in a poisoned
    process, runs them, and keeps the last GPU launch for the fast path to repeat (fast_path.py).

    The kernel's generated call and launch are bound to this object, not to the JitKernel, and
    nothing here refers back to it: no reference cycle keeps the last arguments (device memory)
    alive after the kernel is dropped, and ``jit(art).launch`` outlives its JitKernel.
    """

    __slots__ = ("last", "result", "fn", "args", "artifact", "sig", "requested", "chosen",
                 "worker", "last_backend", "reason", "__weakref__")

    def __init__(self, artifact: Artifact, requested: str):
        self.last = self.result = self.fn = self.args = None
        self.artifact = artifact
        self.sig = Signature(artifact.kernel_name, artifact.params)
        self.requested = requested
        self.chosen: Backend | None = None  # GpuBackend or SimBackend, once resolved
        self.worker: WorkerBackend | None = None
        self.last_backend: str | None = None
        self.reason = ""
        _device.on_context_reset(obj=self)

    def resolve(self) -> Backend:
        if self.chosen is None:
            chosen, why = choose(self.requested, self.artifact)
            log.info("tile_mlir.runtime: %s (%s) runs on %s: %s", self.sig.kernel,
                     self.artifact.arch, "the GPU" if chosen == "gpu" else "the PTX emulator", why)
            if chosen == "gpu":
                self.chosen = GpuBackend(self.artifact, self.sig)
            else:
                self.chosen = SimBackend(self.artifact, self.sig,
                                         fallback="" if self.requested == "sim" else why)
            self.reason = why
        return self.chosen

    def call(self, args: tuple, grid, block, stream) -> LaunchResult:
        """Every call the fast path does not take."""
        self.disarm()
        self.sig.check_count(len(args))
        be = self.chosen or self.resolve()
        if be.name == "gpu" and _device.poisoned:
            be = self.worker
            if be is None:
                be = self.worker = WorkerBackend(self.artifact, self.sig)
        result = be.run(args, grid, block, stream)
        self.last_backend = be.name
        ln = be.replay
        if ln is not None:
            self.fn, self.args, self.result, self.last = ln.fn, ln.args, result, args
        return result

    def launch_failed(self, err) -> None:
        self.chosen.launch_failed(err)

    def disarm(self) -> None:
        self.last = self.result = self.fn = self.args = None

    _invalidate = disarm  # a context reset (device.py): the launch handles are gone


class JitKernel:
    """A compiled kernel, callable: ``kernel(*args, grid=None, block=None, stream=None)``;
    ``kernel.launch(*args)`` is the same call with the default grid/block/stream that builds no
    result (the cheapest launch)."""

    # Python looks a call up on the class; this property hands back the kernel's own call, generated
    # for its parameter count (fast_path.py), so that no class is made per kernel.
    __call__ = property(attrgetter("_fast_call"), doc="kernel(*args, grid=None, block=None, "
                        "stream=None) -> LaunchResult (see the module docstring)")
    last_backend = property(attrgetter("_runner.last_backend"),
                            doc='"gpu" or "sim": where the last call ran (None before the first)')
    backend_reason = property(attrgetter("_runner.reason"), doc="why the backend was chosen")

    def __init__(self, artifact: Artifact, backend: str = "auto"):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        self.artifact = artifact
        self.name = artifact.kernel_name
        self.params = tuple(artifact.params)
        self.backend = backend
        self._runner = _Runner(artifact, backend)
        self._fast_call, self.launch = fast_path(len(self.params), self._runner)

    def __repr__(self) -> str:
        return f"JitKernel({self.name!r}, arch={self.artifact.arch!r}, backend={self.backend!r})"

    def resolve_backend(self) -> str:
        """Decide (once) where this kernel runs; raises for an impossible backend='gpu'."""
        return self._runner.resolve().name

    def load(self) -> "JitKernel":
        """Load the module now (otherwise done at the first GPU call)."""
        if self.resolve_backend() == "gpu" and not _device.poisoned:
            self._runner.chosen.bind()
        return self

    def forget(self) -> None:
        """Drop the references to the last call's arguments (the next call re-inspects them)."""
        self._runner.disarm()


def clear_cache() -> None:
    """Forget compiled artifacts kept in memory and unload cached modules."""
    _cache.clear()
    _module.unload_all()


def cache_stats() -> dict:
    return {**_cache.stats(), "modules": _module.cache_info()}


def jit(src, arch: str = "auto", backend: str = "auto", **compile_options) -> JitKernel:
    """A callable kernel from an MLIR module, its text, a path to it, or an Artifact.

    arch "auto" is $TILE_MLIR_ARCH or "sm_100a" (tcgen05 needs it); pass "sm_90a" for Hopper.
    For an Artifact, arch must be "auto" or the artifact's own.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if isinstance(src, Artifact):
        if arch not in (None, "auto") and arch != src.arch:
            raise ValueError(f"artifact {src.kernel_name!r} is built for {src.arch}, not {arch}")
        if compile_options:
            raise ValueError("compile options cannot apply to an already compiled Artifact")
        return JitKernel(src, backend)
    return JitKernel(compile_cached(src, arch, **compile_options), backend)
