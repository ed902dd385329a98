"""Launch configuration and the launch itself (cuLaunchKernel, or cuLaunchKernelEx with a
cluster-dimension attribute when the cluster is not (1,1,1), as tcgen05 cta_group::2 needs).

A :class:`Launcher` is built once per (function, grid, block, cluster, shared memory, stream); its
``launch()`` is a single driver call on pre-built arguments (kernelParams is the address of a
pre-built ``void*[]``, see args.ParamPack), so the per-launch cost is what cuda-bindings itself
costs plus one tuple splat.
"""
from __future__ import annotations

import operator

from . import driver as _d
from .errors import ArgumentError, ArgumentTypeError

__all__ = ["dim3", "stream_handle", "Launcher", "check_launch_dims"]


def dim3(value, what: str) -> tuple[int, int, int]:
    """(x, y, z) from an int, a sequence of 1-3 ints or "X,Y,Z"/"XxYxZ"."""
    if isinstance(value, str):
        value = [v for v in value.replace("x", ",").split(",") if v.strip()]
        try:
            value = [int(v) for v in value]
        except ValueError:
            raise ArgumentError(f"{what} must be X[,Y[,Z]] with integers, got {value!r}") from None
    if isinstance(value, int):
        value = (value,)
    try:
        dims = tuple(_dim(v) for v in value)
    except TypeError:
        raise ArgumentTypeError(f"{what} must be an int or up to 3 ints, got {value!r}") from None
    if not 1 <= len(dims) <= 3:
        raise ArgumentError(f"{what} must have 1 to 3 dimensions, got {dims}")
    dims = dims + (1,) * (3 - len(dims))
    if any(d < 1 for d in dims):
        raise ArgumentError(f"{what} dimensions must be >= 1, got {dims}")
    return dims  # type: ignore[return-value]


def _dim(v) -> int:
    if isinstance(v, bool):
        raise TypeError(v)
    return operator.index(v)  # ints, numpy ints; not floats


def check_launch_dims(kernel: str, grid, block, cluster, max_threads: int = 1024) -> None:
    threads = block[0] * block[1] * block[2]
    if threads > max_threads:
        raise ArgumentError(f"{kernel}: block {block} has {threads} threads, more than the "
                            f"{max_threads} this kernel allows")
    if block[2] > 64 or block[0] > 1024 or block[1] > 1024:
        raise ArgumentError(f"{kernel}: block {block} exceeds the per-dimension limits "
                            "(1024, 1024, 64)")
    if grid[1] > 65535 or grid[2] > 65535 or grid[0] > 2**31 - 1:
        raise ArgumentError(f"{kernel}: grid {grid} exceeds the limits (2^31-1, 65535, 65535)")
    if any(g % c for g, c in zip(grid, cluster)):
        raise ArgumentError(f"{kernel}: grid {grid} is not a multiple of the cluster {cluster}")


def stream_handle(stream) -> int:
    """The CUstream handle (int) of None (legacy default stream), an int, a CUstream, an object
    with ``__cuda_stream__`` (CUDA stream protocol), ``.ptr`` (cupy), ``.cuda_stream`` (torch) or
    ``.handle`` (numba)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return int(proto()[1])
    for attr in ("ptr", "cuda_stream"):
        v = getattr(stream, attr, None)
        if isinstance(v, int):
            return v
    h = getattr(stream, "handle", None)
    if h is not None:
        return int(getattr(h, "value", h) or 0)
    try:
        return int(stream)  # CUstream
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"cannot use {type(stream).__name__} as a CUDA stream") from None


class Launcher:
    """Pre-built arguments of one launch configuration."""

    __slots__ = ("fn", "args", "call_name", "config", "_keep")

    def __init__(self, function, grid, block, smem: int, stream: int, params_address: int,
                 cluster=(1, 1, 1)):
        drv = _d.drv()
        hstream = drv.CUstream(stream)
        if tuple(cluster) == (1, 1, 1):
            self.fn = drv.cuLaunchKernel
            self.call_name = "cuLaunchKernel"
            self.args = (function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                         smem, hstream, params_address, 0)
            self.config = None
            self._keep = ()
        else:
            cfg = drv.CUlaunchConfig()
            cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid
            cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = block
            cfg.sharedMemBytes = smem
            cfg.hStream = hstream
            attr = drv.CUlaunchAttribute()
            attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster
            cfg.attrs = [attr]
            cfg.numAttrs = 1
            self.fn = drv.cuLaunchKernelEx
            self.call_name = "cuLaunchKernelEx"
            self.args = (cfg, function, params_address, 0)
            self.config = cfg
            self._keep = (attr,)

    def launch(self) -> None:
        err = self.fn(*self.args)[0]
        if err:
            _d.raise_error(self.call_name, err)
