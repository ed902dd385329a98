"""tile_mlir.gemm: D = A . B^T as a library call (docs/gemm-library.md).

    d = tile_mlir.gemm(a, b)                      # a: M x K, b: N x K (bf16 or e4m3), d: M x N bf16
    tile_mlir.gemm(a, b, out=d, backend="sim")    # on tile-sim (the sm_90a kernel)
    tile_mlir.gemm(a, b, backend="sim", arch="sm_100a")  # the dense Blackwell kernel on tile-sim
    call = tile_mlir.gemm.plan(a, b, out=d)       # chosen and bound once; call() launches again
"""
from __future__ import annotations

from ..runtime.backend import forced_backend
from ..runtime.device import current_device
from ..runtime.driver import probe
from .autotune import tuned
from .call import GemmCall
from .operands import prepare
from .targets import SIM_ARCH, TARGETS, of_cc, of_config

__all__ = ["gemm", "plan", "GemmCall", "device_sms", "SIM_SMS"]

#: the multiprocessors tile-sim's runs assume (an H200's 132): the grid is min(SIM_SMS, units) CTAs
SIM_SMS = 132
BACKENDS = ("auto", "gpu", "sim")


def _where(backend: str, lib: str) -> str:
    """"gpu" or "sim" for backend= (TILE_MLIR_BACKEND wins, as for every kernel)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    backend = forced_backend() or backend
    if backend == "auto":
        return "gpu" if lib == "torch" or probe()[0] else "sim"
    return backend


def device_sms(where: str) -> int:
    """The multiprocessors of the device the kernel runs on, read from it (tile-sim: SIM_SMS)."""
    if where == "sim":
        return SIM_SMS
    return current_device().sm_count


def _target(where: str, arch: str | None, config):
    """The chip to build for: the config's, else arch=, else the GPU's own (read from it), else tile-sim's
    SIM_ARCH."""
    if arch is not None and arch not in TARGETS:
        raise ValueError(f"arch must be one of {', '.join(TARGETS)}, got {arch!r}")
    if config is not None:
        t = of_config(config)
        if arch is not None and arch != t.arch:
            raise ValueError(f"config is a {t.arch} kernel's, arch={arch!r} asks for another")
        return t
    if arch is not None:
        return TARGETS[arch]
    if where == "gpu":
        dev = current_device()
        return of_cc(dev.cc, dev.name)
    return TARGETS[SIM_ARCH]


def plan(a, b, out=None, *, config=None, backend: str = "auto", autotune: bool = False, sms: int | None = None,
         arch: str | None = None) -> GemmCall:
    """Check the arrays, choose the configuration (`config`, else autotune's winner, else the heuristic's) and
    bind its kernel (compiled once per configuration): the GemmCall, not yet launched."""
    ops = prepare(a, b, out)
    where = _where(backend, ops.lib)
    target = _target(where, arch, config)
    if ops.dtype not in target.dtypes:
        raise TypeError(f"tile_mlir.gemm: {ops.dtype} operands have no {target.arch} kernel (it takes "
                        f"{', '.join(target.dtypes)})")
    sms = sms or device_sms(where)
    if config is None:
        if autotune and where == "gpu":
            config = tuned(ops, sms, target)
        else:
            config = target.choose(ops.m, ops.n, ops.k, ops.dtype, sms)
    elif config.dtype != ops.dtype:
        raise ValueError(f"config is for {config.dtype}, the operands are {ops.dtype}")
    return GemmCall(ops, config, where, sms)


def gemm(a, b, out=None, *, config=None, backend: str = "auto", autotune: bool = False, sms: int | None = None,
         arch: str | None = None):
    """D[M, N] = A[M, K] . B[N, K]^T in bf16 (fp32 accumulation), as torch.nn.functional.linear(a, b).

    a, b: bf16 (ml_dtypes.bfloat16 / torch.bfloat16) or e4m3 (float8_e4m3fn) matrices, and on sm_100a also
    f16, e5m2 and float32 (tf32 MMAs), numpy arrays, torch tensors or DLPack arrays; out: an M x N bf16 array to write (default: a new one). backend: "auto" (the GPU
    when the arrays are on it or one is present, else tile-sim), "gpu" or "sim". The configuration is the
    heuristic's for the shape, dtype and the device's multiprocessor count (heuristic.py; `sms` overrides the
    count), or `config`; autotune=True times the candidates on the GPU once per (device, dtype, shape class)
    and keeps the winner on disk (autotune.py). One kernel is compiled per configuration and serves every
    shape. arch: "sm_90a" or "sm_100a" (default: the GPU's own; on tile-sim, sm_90a) or the config's (a
    GemmConfig is sm_90a's, a BlackwellConfig sm_100a's). GPU calls on torch tensors are asynchronous on the
    default stream; numpy arrays come back written.
    """
    return plan(a, b, out, config=config, backend=backend, autotune=autotune, sms=sms, arch=arch)().finish()
