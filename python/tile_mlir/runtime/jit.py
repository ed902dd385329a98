"""``jit()``: compile (cached), pick a backend, run.

    kernel = jit(source_or_artifact, arch="auto", backend="auto", **compile_options)
    result = kernel(*args, grid=None, block=None, stream=None)   # or kernel(A=a, out=o)

``source_or_artifact``: tile IR as text, a path to a .mlir file (a ``str`` naming an existing file,
or an ``os.PathLike``), bytes of UTF-8 text, an MLIR module, or a compiled Artifact (source.py
says how a ``str`` is told apart).

Arguments, in ``artifact.params`` order or by the names the program gives its kernel's arguments
(``%A`` is ``A``; ``inspect.signature(kernel)`` shows them); count, dtype and shape are checked
against the params, and errors name the parameter (args.py; every refusal is an ArgumentError):

* numpy arrays: copied to device memory before the launch and copied back after it, for the
  buffers the kernel writes (``artifact.outputs``: every buffer when the artifact does not record
  them); the call then synchronises the stream, and the arrays are updated in place. An output
  array must be writeable (a read-only one is refused before anything runs); inputs may be
  read-only. Fortran-order and strided arrays go through C-contiguous copies.
* device arrays (``__cuda_array_interface__``: cupy, numba; DLPack: torch CUDA tensors): passed by
  pointer, no copy, no synchronisation (the launch is asynchronous on ``stream``, default the
  legacy default stream; call ``tile_mlir.runtime.synchronize()`` or your framework's sync).
* Python/numpy scalars for scalar params (range-checked); plain ints for buffer params are taken
  as raw device pointers, unchecked.

Element dtypes are numpy's, with ml_dtypes for the narrow floats (bf16 is ``ml_dtypes.bfloat16``,
f8E4M3FN ``float8_e4m3fn``, ...; torch tensors by their DLPack dtype, e.g. ``torch.bfloat16``);
the unsigned integers of the same width are taken as bit patterns. Sub-byte elements travel
packed: pass the packed bytes, or a host array of the elements (runtime/dtypes.py).

The call returns a :class:`LaunchResult` (``backend`` "gpu" or "sim", ``outputs`` name -> the buffer
objects the kernel writes (``artifact.outputs``), ``buffers`` name -> every buffer object passed,
inputs included; ``result[name]`` looks in ``buffers``). ``kernel.last_backend`` says which backend
ran; the choice is also logged
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

import inspect
import logging
from operator import attrgetter

from ..artifact import RESERVED_NAMES, Artifact
from . import cache as _cache
from . import device as _device
from . import module as _module
from ..errors import ArgumentError, ArgumentTypeError
from .args import Signature
from .backend import BACKENDS, Backend, LaunchResult, choose, forced_backend, surely_sim
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
                 "worker", "last_backend", "reason", "sim_options", "__weakref__")

    def __init__(self, artifact: Artifact, requested: str, sim_options=None):
        self.sim_options = dict(sim_options or {})
        self.last = self.result = self.fn = self.args = None
        self.artifact = artifact
        self.sig = Signature.of(artifact)
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
                                         fallback="" if self.requested == "sim" else why,
                                         options=self.sim_options)
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
    """A compiled kernel, callable as a Python function of the kernel's parameters.

    ``kernel(A, out)`` or ``kernel(A=a, out=o)``, with the parameter names of the program
    (``inspect.signature(kernel)``), plus the keyword-only launch options ``grid``, ``block``
    (an int, up to 3 ints or "X,Y,Z"; default the artifact's) and ``stream`` (default the legacy
    default stream), returns a :class:`LaunchResult`. ``kernel.launch(...)`` is the same call with
    the default grid/block/stream that builds no result (the cheapest launch). What arguments are
    taken and how they are staged: ``help(tile_mlir.jit)`` (jit()'s docstring carries this module's).

    Attributes: ``artifact`` (the Artifact), ``name``, ``params`` (its Params), ``backend`` (as
    requested), ``last_backend``, ``backend_reason``.
    """

    # Python looks a call up on the class; this property hands back the kernel's own call, generated
    # for its parameter names (fast_path.py), so that no class is made per kernel.
    __call__ = property(attrgetter("_fast_call"), doc="kernel(*args, grid=None, block=None, "
                        "stream=None) -> LaunchResult (see the class docstring)")
    last_backend = property(attrgetter("_runner.last_backend"),
                            doc='"gpu" or "sim": where the last call ran (None before the first)')
    backend_reason = property(attrgetter("_runner.reason"), doc="why the backend was chosen")

    def __init__(self, artifact: Artifact, backend: str = "auto", sim_options=None):
        if not isinstance(artifact, Artifact):
            raise ArgumentTypeError(f"JitKernel takes an Artifact, got {type(artifact).__name__}")
        _check_backend(backend)
        self._bind(artifact, forced_backend() or backend, sim_options)  # $TILE_MLIR_BACKEND wins

    def _bind(self, artifact: Artifact, backend: str, sim_options) -> None:
        self.artifact = artifact
        self.name = artifact.kernel_name
        self.params = tuple(artifact.params)
        self.backend = backend
        self._runner = _Runner(artifact, backend, sim_options)
        names = [p.name for p in self.params]
        self._fast_call, self.launch = fast_path(names, self._runner)
        self.__signature__ = _call_signature(names)

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

    def explore(self, n: int | None = None, *, seed: int = 0, replay=None,
                systematic: int | None = None, check=None, workers: int | None = None,
                seconds: float | None = None) -> "JitKernel":
        """This kernel on tile-sim under explored schedules (docs/emulator.md §15), whatever the
        backend: ``kernel.explore(1000)(A, out)`` runs the call under its default schedule, then
        under 1000 schedules drawn from ``seed``, and returns a LaunchResult whose ``sim`` is the
        ExploreResult (``.found``, ``.failure`` with its report and replayable schedule,
        ``.minimised``; ``str()`` says it all). The arguments keep their values. ``replay=(seed,
        index)`` (or "SEED:INDEX") runs that one schedule again; ``systematic=N`` searches every
        order of the synchronisation operations up to a partial-order reduction, at most N runs;
        ``check(args)``: a callable of tile-sim's argument list (the buffers in parameter order,
        then the tensor maps) returning False or a message for a wrong result; ``workers`` > 1:
        schedules on tile-sim's process pool; ``seconds``: stop drawing schedules after that long."""
        modes = [m for m in (n, replay, systematic) if m is not None]
        if len(modes) != 1:
            raise ArgumentError("explore takes one of n (schedules), replay= or systematic=")
        opts = {**self._runner.sim_options, "seed": seed, "check": check, "workers": workers,
                "explore": n, "replay": replay, "systematic": systematic,
                "explore_seconds": seconds}
        k = JitKernel.__new__(JitKernel)
        k._bind(self.artifact, "sim", {o: v for o, v in opts.items() if v is not None})
        return k

    def forget(self) -> None:
        """Drop the references to the last call's arguments (the next call re-inspects them)."""
        self._runner.disarm()


def clear_cache() -> None:
    """Forget compiled artifacts kept in memory and unload cached modules."""
    _cache.clear()
    _module.unload_all()


def cache_stats() -> dict:
    return {**_cache.stats(), "modules": _module.cache_info()}


#: jit()'s keywords that configure the emulator backend (tile_mlir.sim.run_ptx), not the compile
SIM_OPTIONS = ("workers", "executor", "max_steps", "max_seconds", "progress", "strict")


def jit(src, arch: str = "auto", backend: str = "auto", **compile_options) -> JitKernel:
    """A callable kernel (:class:`JitKernel`) from tile IR or an Artifact.

    ``src``: IR text, a path (a ``str`` naming an existing file, or an ``os.PathLike``), UTF-8
    bytes, an MLIR module, or an Artifact (tile_mlir.frontend.source.read_source). ``arch`` "auto" is
    $TILE_MLIR_ARCH or "sm_100a" (tcgen05 needs it); pass "sm_90a" for Hopper; for an Artifact,
    arch must be "auto" or the artifact's own. ``backend``: "auto" (the GPU when one can run the
    cubin, else the emulator), "gpu" or "sim"; $TILE_MLIR_BACKEND (sim, gpu or auto), when set,
    overrides it for every kernel. The emulator's options ``workers``, ``executor``, ``max_steps``,
    ``max_seconds``, ``progress`` and ``strict`` (default True for the kernels we compile: a broken ISA
    rule is an error; False lists it on the result's ``sim.findings``) go to tile_mlir.sim.run_ptx
    (SIM_OPTIONS); the other
    ``compile_options`` to tile_mlir.compile. A kernel that will run on tile-sim is compiled with
    ``line_info=True`` unless they say otherwise (its PTX then carries the tile IR's lines; a GPU's
    cubin is the same either way).
    Raises ArgumentError (ArgumentTypeError) for a bad argument, TileError when compiling fails.
    """
    _check_backend(backend)
    sim_options = {k: compile_options.pop(k) for k in SIM_OPTIONS if k in compile_options}
    if arch is not None and not isinstance(arch, str):
        raise ArgumentTypeError(f"arch must be a str such as 'sm_100a', got {type(arch).__name__}")
    if isinstance(src, Artifact):
        if arch not in (None, "auto") and arch != src.arch:
            raise ArgumentError(f"artifact {src.kernel_name!r} is built for {src.arch}, not {arch}")
        if compile_options:
            raise ArgumentError("compile options cannot apply to an already compiled Artifact")
        return JitKernel(src, backend, sim_options)
    if "line_info" not in compile_options and surely_sim(forced_backend() or backend):
        compile_options["line_info"] = True  # tile-sim names the tile IR line of a fault
    return JitKernel(compile_cached(src, arch, **compile_options), backend, sim_options)


# `tile_mlir.runtime.jit` is the function (runtime/__init__.py re-exports it over the module's name), so
# the rules above reach help() through it
if jit.__doc__ and __doc__:  # (None under python -OO)
    jit.__doc__ = f"{jit.__doc__}\n    {'-' * 72}\n    Module tile_mlir.runtime.jit:\n\n" + \
        "\n".join("    " + ln if ln else "" for ln in __doc__.splitlines())


def _check_backend(backend) -> None:
    if not isinstance(backend, str):
        raise ArgumentTypeError(f"backend must be one of {BACKENDS}, got {type(backend).__name__}")
    if backend not in BACKENDS:
        raise ArgumentError(f"backend must be one of {BACKENDS}, got {backend!r}")


def _call_signature(names) -> inspect.Signature:
    """kernel(<params>, *, grid=None, block=None, stream=None) -> LaunchResult."""
    P = inspect.Parameter
    params = [P(n, P.POSITIONAL_OR_KEYWORD) for n in names]
    params += [P(n, P.KEYWORD_ONLY, default=None) for n in RESERVED_NAMES]
    return inspect.Signature(params, return_annotation=LaunchResult)
