"""``jit()``: compile (cached), pick a backend, marshal arguments, launch.

    kernel = jit(module_or_text_or_artifact, arch="auto", backend="auto", **compile_options)
    result = kernel(*args, grid=None, block=None, stream=None)

Arguments, in ``artifact.params`` order (count, dtype and shape are checked against the params,
errors name the parameter):

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

Backends: "gpu" runs the cubin through the CUDA driver and refuses (before any launch) a cubin the
device cannot run; "sim" runs ``tile_mlir.sim.run_ptx`` on ``artifact.ptx``; "auto" uses the GPU
when there is one that can run the cubin (see arch.can_run), else the emulator.

Caching: artifacts in memory and on disk (cache.py), so ``jit`` of the same source compiles once
per process and, across processes, once per machine; modules/functions per context (module.py).
The hot path of a repeated call with the same argument objects and default grid/block/stream is an
identity check of the arguments and one driver call on pre-packed parameters (the kernel keeps
references to the last arguments; use ``kernel.forget()`` to drop them). A new argument object is
inspected again (count, dtype, shape, pointer). A JitKernel is not meant to be called from several
threads at once (the parameter buffer is shared); use one per thread.

Device faults: a sticky error (CUDA_ERROR_ILLEGAL_ADDRESS, ...) is raised as CudaError by the call
that sees it (the launch, the copy-back of a host-array call, or ``synchronize()``); the runtime
then resets the primary context (device.py). If the reset works (``err.context_reset``), the next
call reloads the module and runs in this process as before. If it does not (``err.poisoned``: on
an H200 with driver 580 the re-created context stays dead, as NVIDIA documents for sticky errors),
this process can no longer use CUDA, and from then on

* calls with host arrays (numpy, CPU DLPack) and scalars run in a GPU worker process
  (runtime/worker.py): a fresh process with its own context runs the kernel with the same code,
  synchronises and sends the buffers back; the call is synchronous, ``stream`` is ignored (a stream
  of the dead context means nothing there), and the result says so: ``result.worker`` is True
  (``result.backend`` and ``kernel.last_backend`` stay "gpu"); a warning is logged once. A fault in
  the worker is raised as CudaError (``in_worker`` True) and the next call starts a fresh worker;
* calls with device arrays (``__cuda_array_interface__``, CUDA DLPack) or raw pointers raise
  :class:`ContextLostError`: their memory died with the faulted context (host arrays still work);
* ``synchronize()`` returns at once (nothing can be pending in the dead context).

The fast path of a repeated call pays nothing for this: the reset drops every kernel's cached
arguments, so after a fault each call goes through ``_call``, which checks one flag.
"""
from __future__ import annotations

import hashlib
import json
import logging
from operator import is_ as _is

import numpy as np

from ..artifact import Artifact
from . import cache as _cache
from . import device as _device
from . import driver as _d
from . import module as _module
from .arch import can_run, refusal_message
from .args import (ParamPack, buffer_view, check_buffer, check_count, normalize_dtype,
                   scalar_value)
from .cache import compile_cached
from .errors import (ArgumentError, BackendUnavailableError, ContextLostError,
                     IncompatibleDeviceError)
from .launch import Launcher, check_launch_dims, dim3, stream_handle
from .memory import copy_to_device, copy_to_host

__all__ = ["jit", "JitKernel", "LaunchResult", "clear_cache", "cache_stats"]

log = logging.getLogger("tile_mlir.runtime")

BACKENDS = ("auto", "gpu", "sim")


class LaunchResult:
    """What a kernel call returns: which backend ran and the buffer arguments (by param name).

    ``worker`` is True when the call ran on the GPU in the worker process because this process
    lost its CUDA state to a device fault (see the module docstring); False otherwise.
    """

    __slots__ = ("backend", "outputs", "kernel", "sim", "worker")

    def __init__(self, backend: str, outputs: dict, kernel: str, sim=None, worker: bool = False):
        self.backend, self.outputs, self.kernel, self.sim = backend, outputs, kernel, sim
        self.worker = worker

    def __getitem__(self, name):
        return self.outputs[name]

    def __repr__(self) -> str:
        where = ", worker=True" if self.worker else ""
        return f"LaunchResult(kernel={self.kernel!r}, backend={self.backend!r}{where}, " \
               f"outputs={list(self.outputs)})"


def clear_cache() -> None:
    """Forget compiled artifacts kept in memory and unload cached modules."""
    _cache.clear()
    _module.unload_all()


def cache_stats() -> dict:
    return {**_cache.stats(), "modules": _module.cache_info()}


# ----------------------------------------------------------------------------- kernels


class _Binding:
    """A kernel loaded in the current context: function, parameter pack, launchers."""

    __slots__ = ("device", "loaded", "pack", "default", "launchers")

    def __init__(self, device, loaded, pack, default):
        self.device, self.loaded, self.pack, self.default = device, loaded, pack, default
        self.launchers: dict[tuple, Launcher] = {}


class JitKernel:
    def __init__(self, artifact: Artifact, backend: str = "auto"):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        self.artifact = artifact
        self.name = artifact.kernel_name
        self.params = tuple(artifact.params)
        self.backend = backend
        self.last_backend: str | None = None
        self.backend_reason = ""
        self._dtypes = tuple(normalize_dtype(p.dtype) for p in self.params)
        self._buffers = tuple(i for i, p in enumerate(self.params) if p.kind == "buffer")
        self._grid = dim3(artifact.grid, "grid")
        self._block = dim3(artifact.block, "block")
        self._cluster = dim3(artifact.cluster, "cluster")
        self._backend: str | None = None
        self._bound: _Binding | None = None
        self._default: Launcher | None = None
        self._lfn = self._largs = None  # the default launcher's function and arguments
        self._last: tuple | None = None
        self._last_result: LaunchResult | None = None
        self._digest: dict[str, str] = {}
        self._worker_key: str | None = None
        _device.on_context_reset(obj=self)
        if len(self.params) <= _MAX_FAST_ARITY:
            self.__class__ = _fast_class(len(self.params))

    def __repr__(self) -> str:
        return f"JitKernel({self.name!r}, arch={self.artifact.arch!r}, backend={self.backend!r})"

    # -- hot path ------------------------------------------------------------------------------
    # __call__ and launch() are generated per parameter count (see _fast_class): the same logic as
    # below with the identity check unrolled, which halves the Python overhead of a cached call.

    def __call__(self, *args, grid=None, block=None, stream=None) -> LaunchResult:
        last = self._last
        if (last is not None and grid is None and block is None and stream is None
                and len(args) == len(last) and all(map(_is, args, last))):
            err = self._lfn(*self._largs)[0]
            if err:
                self._launch_failed(err)
            return self._last_result
        return self._call(args, grid, block, stream)

    def launch(self, *args) -> None:
        """Like calling the kernel with default grid/block/stream, without building a result."""
        last = self._last
        if last is not None and len(args) == len(last) and all(map(_is, args, last)):
            err = self._lfn(*self._largs)[0]
            if err:
                self._launch_failed(err)
            return
        self._call(args, None, None, None)

    # -- backend choice ------------------------------------------------------------------------

    def resolve_backend(self) -> str:
        """Decide (once) where this kernel runs; raises for an impossible backend='gpu'."""
        if self._backend is not None:
            return self._backend
        arch = self.artifact.arch
        if self.backend == "sim":
            chosen, why = "sim", "backend='sim' requested"
        else:
            ok, reason = _d.probe()
            if not ok:
                if self.backend == "gpu":
                    raise BackendUnavailableError(f"{self.name}: backend='gpu' requested but {reason}")
                chosen, why = "sim", reason
            else:
                dev = _device.current_device()
                runnable, _ = can_run(arch, dev.cc)
                if runnable:
                    chosen, why = "gpu", dev.describe()
                else:
                    msg = refusal_message(arch, dev.name, dev.cc)
                    if self.backend == "gpu":
                        raise IncompatibleDeviceError(msg)
                    chosen, why = "sim", msg
        log.info("tile_mlir.runtime: %s (%s) runs on %s: %s", self.name, arch,
                 "the GPU" if chosen == "gpu" else "the PTX emulator", why)
        self._backend, self.backend_reason = chosen, why
        return chosen

    # -- GPU -----------------------------------------------------------------------------------

    def load(self) -> "JitKernel":
        """Load the module now (otherwise done at the first GPU call)."""
        if self.resolve_backend() == "gpu" and self._bound is None and not _device.poisoned:
            self._bind()
        return self

    def _bind(self) -> _Binding:
        art = self.artifact
        dev = _device.current_device()
        runnable, image = can_run(art.arch, dev.cc)
        if not runnable:
            raise IncompatibleDeviceError(refusal_message(art.arch, dev.name, dev.cc))
        if not art.cubin:
            image = "ptx"
        digest = self._digest.get(image)
        if digest is None:
            digest = self._digest[image] = _module.image_digest(art, image)
        lk = _module.get_function(dev, art, image, digest)
        smem = int(art.dynamic_smem)
        _module.ensure_dynamic_smem(dev, lk, smem, self.name)
        csize = self._cluster[0] * self._cluster[1] * self._cluster[2]
        if csize > 1:
            _module.ensure_cluster_size(lk, csize, self.name)
        check_launch_dims(self.name, self._grid, self._block, self._cluster, lk.max_threads)
        pack = ParamPack(self.params, self._dtypes)
        default = Launcher(lk.function, self._grid, self._block, smem, 0, pack.address,
                           self._cluster)
        b = self._bound = _Binding(dev, lk, pack, default)
        self._default = default
        self._lfn, self._largs = default.fn, default.args
        return b

    def _launcher(self, b: _Binding, grid, block, stream) -> Launcher:
        if grid is None and block is None and stream is None:
            return b.default
        g = self._grid if grid is None else dim3(grid, "grid")
        bl = self._block if block is None else dim3(block, "block")
        s = stream_handle(stream)
        key = (g, bl, s)
        ln = b.launchers.get(key)
        if ln is None:
            check_launch_dims(self.name, g, bl, self._cluster, b.loaded.max_threads)
            if len(b.launchers) > 64:
                b.launchers.clear()
            ln = b.launchers[key] = Launcher(b.loaded.function, g, bl, int(self.artifact.dynamic_smem),
                                             s, b.pack.address, self._cluster)
        return ln

    def _launch_failed(self, err, ln: Launcher | None = None) -> None:
        if ln is None:
            ln = self._default
        name = _d.error_name(err)
        if name in ("CUDA_ERROR_INVALID_CONTEXT", "CUDA_ERROR_CONTEXT_IS_DESTROYED") \
                and self._bound is not None:
            self._bound.device.make_current()  # a thread that never used the context
            err = ln.fn(*ln.args)[0]
            if not err:
                return
        _d.raise_error(ln.call_name, err, detail=f"kernel {self.name}")

    def _launch(self, ln: Launcher) -> None:
        err = ln.fn(*ln.args)[0]
        if err:
            self._launch_failed(err, ln)

    def _call(self, args, grid, block, stream) -> LaunchResult:
        self._last = None  # the slots are about to change
        check_count(self.name, self.params, len(args))
        if (self._backend or self.resolve_backend()) == "sim":
            return self._run_sim(args, grid, block)
        if _device.poisoned:
            return self._run_worker(args, grid, block)
        b = self._bound or self._bind()
        slots = b.pack.slots
        host = []
        for i, (p, a) in enumerate(zip(self.params, args)):
            if p.kind == "buffer":
                v = self._view(i, p, a)
                if v.kind == "host":
                    host.append((i, v.host))
                else:
                    slots[i].value = v.ptr
            else:
                slots[i].value = scalar_value(self.name, i, p, a, self._dtypes[i])
        ln = self._launcher(b, grid, block, stream)
        outputs = {self.params[i].name: args[i] for i in self._buffers}
        result = LaunchResult("gpu", outputs, self.name)
        if host:
            self._staged_launch(b, ln, host, stream)
        else:
            self._launch(ln)
            self._last, self._last_result = args, result
        self.last_backend = "gpu"
        return result

    def _view(self, i, p, a):
        try:
            v = buffer_view(a)
        except ArgumentError as e:
            raise ArgumentError(f"{self.name}: argument {i} ('{p.name}'): {e}") from None
        check_buffer(self.name, i, p, v, self._dtypes[i])
        return v

    def _staged_launch(self, b: _Binding, ln: Launcher, host, stream) -> None:
        drv = _d.drv()
        hs = drv.CUstream(stream_handle(stream))
        gen = b.device.generation
        staged = []  # (user array, contiguous array, device pointer)
        try:
            for i, arr in host:
                c = arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)
                ptr = int(_d.call("cuMemAlloc", max(c.nbytes, 1)))
                staged.append((arr, c, ptr))
                b.pack.slots[i].value = ptr
                copy_to_device(ptr, c, hs)
            self._launch(ln)
            for arr, c, ptr in staged:  # c is arr, or a fresh contiguous (writeable) copy
                if arr.flags.writeable:
                    copy_to_host(c, ptr, hs)
            _d.call("cuStreamSynchronize", hs, detail=f"after kernel {self.name}")
            for arr, c, ptr in staged:
                if c is not arr and arr.flags.writeable:
                    arr[...] = c
        finally:
            if b.device.generation == gen:
                for _, _, ptr in staged:
                    drv.cuMemFree(ptr)

    # -- after an unrecoverable device fault: the GPU worker process ------------------------------

    def _lost(self, i, p, what: str) -> ContextLostError:
        return ContextLostError(
            f"{self.name}: argument {i} ('{p.name}') is {what}, but the device memory of this "
            f"process died with its CUDA context after the device fault "
            f"({_device.poison_reason or 'a sticky error'}) that could not be recovered in "
            "process; pass host (numpy) arrays instead (they run in a GPU worker process), or "
            "restart the process to use device memory again")

    def _run_worker(self, args, grid, block) -> LaunchResult:
        """Run the call in the GPU worker process (this process's CUDA state is lost)."""
        from . import worker as _worker

        wargs, back = list(args), []
        for i, (p, a) in enumerate(zip(self.params, args)):
            if p.kind != "buffer":
                scalar_value(self.name, i, p, a, self._dtypes[i])  # checked here, sent as passed
                continue
            if isinstance(a, np.ndarray):
                v = self._view(i, p, a)
            else:
                try:
                    v = self._view(i, p, a)
                except ArgumentError:
                    raise
                except Exception as e:  # a CUDA library refusing after the fault
                    raise self._lost(i, p, f"a {type(a).__name__}") from e
            if v.kind == "device":
                raise self._lost(i, p, f"a device array ({type(a).__name__})")
            if v.kind == "raw":
                raise self._lost(i, p, "a raw device pointer")
            arr = v.host
            wargs[i] = arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)
            if arr.flags.writeable:
                back.append((i, arr))
        global _worker_warned
        if not _worker_warned:
            _worker_warned = True
            log.warning("tile_mlir.runtime: the CUDA state of this process was lost (%s could not "
                        "be recovered in process); kernel calls with host arrays now run in a GPU "
                        "worker process, device arrays can no longer be used",
                        _device.poison_reason or "a sticky error")
        art = self.artifact
        key = self._worker_key
        if key is None:
            h = hashlib.sha256(json.dumps(art.manifest(), sort_keys=True, default=repr).encode())
            h.update(art.ptx.encode())
            h.update(art.cubin)
            key = self._worker_key = h.hexdigest()[:32]
        g = None if grid is None else dim3(grid, "grid")
        bl = None if block is None else dim3(block, "block")
        outs = _worker.get_worker().run(self.name, key, (art.manifest(), art.ptx, art.cubin),
                                        wargs, g, bl, [i for i, _ in back])
        for (_, arr), out in zip(back, outs):
            arr[...] = out
        self.last_backend = "gpu"
        return LaunchResult("gpu", {self.params[i].name: args[i] for i in self._buffers},
                            self.name, worker=True)

    # -- emulator ------------------------------------------------------------------------------

    def _run_sim(self, args, grid, block) -> LaunchResult:
        try:
            from tile_mlir.sim import run_ptx
        except ImportError as e:
            why = "" if self.backend == "sim" else f" (no GPU run: {self.backend_reason})"
            raise BackendUnavailableError(
                f"{self.name}: the PTX emulator tile_mlir.sim.run_ptx is unavailable ({e})"
                + why) from e
        sim_args, back_host, back_dev = [], [], []
        for i, (p, a) in enumerate(zip(self.params, args)):
            if p.kind != "buffer":
                # the emulator takes ints for integer (and 16-bit float bit-pattern) params and
                # Python floats for .f32/.f64 params
                sim_args.append(scalar_value(self.name, i, p, a, self._dtypes[i]))
                continue
            v = self._view(i, p, a)
            if v.kind == "host":
                arr = v.host
                c = arr if arr.flags.c_contiguous and arr.flags.writeable else np.array(arr)
                if c is not arr and arr.flags.writeable:
                    back_host.append((arr, c))
                sim_args.append(c)
            elif v.kind == "device":
                if _device.poisoned:
                    raise self._lost(i, p, "a device array")
                dt = "uint16" if v.dtype == "bfloat16" else v.dtype
                h = np.empty(v.shape, dt)
                _device.current_device()
                copy_to_host(h, v.ptr)
                back_dev.append((v.ptr, h))
                sim_args.append(h)
            else:
                raise ArgumentError(f"{self.name}: argument {i} ('{p.name}'): a raw device pointer "
                                    "cannot be used with the emulator")
        g = self._grid if grid is None else dim3(grid, "grid")
        bl = self._block if block is None else dim3(block, "block")
        res = run_ptx(self.artifact.ptx, self.name, sim_args, grid=g, block=bl,
                      cluster=self._cluster, dynamic_smem=int(self.artifact.dynamic_smem))
        for arr, c in back_host:
            arr[...] = c
        for ptr, h in back_dev:
            copy_to_device(ptr, h)
        self.last_backend = "sim"
        return LaunchResult("sim", {self.params[i].name: args[i] for i in self._buffers},
                            self.name, sim=res)

    # -- lifecycle -----------------------------------------------------------------------------

    def forget(self) -> None:
        """Drop the references to the last call's arguments (the next call re-inspects them)."""
        self._last = self._last_result = None

    def _invalidate(self) -> None:
        """The context was reset: handles are gone, rebind at the next call."""
        self._bound = self._default = self._lfn = self._largs = None
        self._last = self._last_result = None


_worker_warned = False  # the "now running in a worker process" warning is logged once

_MAX_FAST_ARITY = 32
_MISSING = object()
_fast_classes: dict[int, type] = {}

_FAST_TEMPLATE = """
def __call__(self, {params}*rest, grid=None, block=None, stream=None):
    l = self._last
    if l is not None and grid is None and block is None and stream is None and not rest{cond}:
        err = self._lfn(*self._largs)[0]
        if err:
            self._launch_failed(err)
        return self._last_result
    return self._call(_args(({names}), rest), grid, block, stream)

def launch(self, {params}*rest):
    l = self._last
    if l is not None and not rest{cond}:
        err = self._lfn(*self._largs)[0]
        if err:
            self._launch_failed(err)
        return
    self._call(_args(({names}), rest), None, None, None)
"""


def _args(head: tuple, rest: tuple) -> tuple:
    """Positional arguments of a generated __call__ (trailing unpassed parameters dropped)."""
    if head and head[-1] is _MISSING:
        head = tuple(a for a in head if a is not _MISSING)
    return head + rest


def _fast_class(n: int) -> type:
    """A JitKernel subclass whose __call__/launch take n positionals with an unrolled check."""
    cls = _fast_classes.get(n)
    if cls is None:
        names = [f"a{i}" for i in range(n)]
        src = _FAST_TEMPLATE.format(
            params="".join(f"{a}=_MISSING, " for a in names),
            cond="".join(f" and {a} is l[{i}]" for i, a in enumerate(names)),
            names="".join(f"{a}, " for a in names))
        ns = {"_MISSING": _MISSING, "_args": _args}
        exec(compile(src, f"<tile_mlir.runtime.jit fast path, {n} params>", "exec"), ns)
        ns["__call__"].__doc__ = JitKernel.__call__.__doc__
        ns["launch"].__doc__ = JitKernel.launch.__doc__
        cls = _fast_classes[n] = type(f"JitKernel{n}", (JitKernel,), {
            "__call__": ns["__call__"], "launch": ns["launch"], "__module__": __name__,
            "__qualname__": "JitKernel"})
    return cls


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
