"""Where a kernel runs: the interface of the backends behind ``jit`` and the choice among them.

A backend is made for one compiled kernel (its Artifact and args.Signature) and runs calls of it:

    backend.run(args, grid, block, stream) -> LaunchResult

with ``args`` in parameter order (their count already checked) and ``grid``/``block``/``stream``
None for the artifact's defaults. The backends:

* gpu.GpuBackend: the cubin through the CUDA driver in this process;
* emulator.SimBackend: the PTX on tile-sim;
* worker.WorkerBackend: the cubin in a GPU worker process, once this process lost its CUDA state
  to a device fault (device.py; jit.py routes "gpu" calls there).

``replay``: after a run whose arguments stay packed (the GPU backend's, for device arrays), the
launch.Launcher of the default configuration on them, else None; the fast path of repeated calls
(fast_path.py) repeats it.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

from . import device as _device
from . import driver as _d
from .arch import can_run, refusal_message
from .. import env as _env
from ..errors import ArgumentError
from .errors import BackendUnavailableError, IncompatibleDeviceError
from .launch import dim3

__all__ = ["Backend", "LaunchResult", "BACKENDS", "BACKEND_ENV", "choose", "forced_backend", "surely_sim"]

BACKENDS = ("auto", "gpu", "sim")
#: forces every kernel's backend, whatever jit() was asked (as TRITON_INTERPRET=1 forces Triton's
#: interpreter): "sim" runs everything on tile-sim, "gpu" refuses to fall back, "auto" chooses
BACKEND_ENV = "TILE_MLIR_BACKEND"


def forced_backend() -> str | None:
    """The backend $TILE_MLIR_BACKEND forces (None when unset or empty); ArgumentError for another value."""
    value = (_env.get(BACKEND_ENV) or "").strip().lower()
    if not value:
        return None
    if value not in BACKENDS:
        raise ArgumentError(f"${BACKEND_ENV} must be one of {BACKENDS}, got {value!r}")
    return value


class LaunchResult:
    """What a kernel call returns: which backend ran and the buffer arguments (by param name).

    ``outputs`` holds the buffers the kernel writes (``artifact.outputs``, the ones copied back after
    a host-array call), by parameter name; ``buffers`` every buffer argument of the call, the ones
    the kernel only reads included. ``result["A"]`` looks a name up in ``buffers`` (an input too).

    ``worker`` is True when the call ran on the GPU in the worker process because this process
    lost its CUDA state to a device fault (see jit.py); False otherwise.
    """

    __slots__ = ("backend", "outputs", "buffers", "kernel", "sim", "worker")

    def __init__(self, backend: str, buffers: dict, kernel: str, sim=None, worker: bool = False,
                 written=None):
        self.backend, self.buffers, self.kernel, self.sim = backend, buffers, kernel, sim
        self.outputs = buffers if written is None else {n: a for n, a in buffers.items() if n in written}
        self.worker = worker

    def __getitem__(self, name):
        return self.buffers[name]

    def __repr__(self) -> str:
        where = ", worker=True" if self.worker else ""
        return f"LaunchResult(kernel={self.kernel!r}, backend={self.backend!r}{where}, " \
               f"outputs={list(self.outputs)})"


class Backend(ABC):
    """Runs calls of one compiled kernel; ``name`` is what LaunchResult.backend says."""

    name: str
    replay = None

    def __init__(self, artifact, sig):
        self.artifact = artifact
        self.sig = sig
        self.grid = dim3(artifact.grid, "grid")
        self.block = dim3(artifact.block, "block")
        self.cluster = dim3(artifact.cluster, "cluster")

    def dims(self, grid, block) -> tuple[tuple, tuple]:
        """(grid, block) of a call: the artifact's unless given."""
        return (self.grid if grid is None else dim3(grid, "grid"),
                self.block if block is None else dim3(block, "block"))

    @abstractmethod
    def run(self, args, grid, block, stream) -> LaunchResult:
        """Run one call (``args`` in parameter order, their count checked)."""


def surely_sim(requested: str) -> bool:
    """Whether a kernel asked to run on `requested` will run on the emulator whatever it is: "sim", or
    "auto" without a CUDA device (a GPU of the wrong arch is only known once compiled)."""
    return requested == "sim" or (requested == "auto" and not _d.probe()[0])


def choose(requested: str, artifact) -> tuple[str, str]:
    """("gpu" or "sim", why) for backend="auto" | "gpu" | "sim".

    "auto" takes the GPU when there is one that can run the cubin (arch.can_run), else the emulator;
    an impossible "gpu" raises (BackendUnavailableError, IncompatibleDeviceError) before any launch.
    """
    if requested == "sim":
        return "sim", "backend='sim' requested"
    ok, reason = _d.probe()
    if not ok:
        if requested == "gpu":
            raise BackendUnavailableError(
                f"{artifact.kernel_name}: backend='gpu' requested but {reason}")
        return "sim", reason
    dev = _device.current_device()
    if can_run(artifact.arch, dev.cc)[0]:
        return "gpu", dev.describe()
    msg = refusal_message(artifact.arch, dev.name, dev.cc)
    if requested == "gpu":
        raise IncompatibleDeviceError(msg)
    return "sim", msg
