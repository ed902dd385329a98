"""GemmCall: one GEMM bound to its arrays and configuration's kernel, launched by calling it.

Split-K with the fix-up (split_reduce "fixup", the default) is one launch: the kernel's
workspace W (a slot of tile_m x tile_n fp32 per unit, never cleared) and semaphores C (an i32 per tile and
consumer warpgroup, zeroed once here: every launch leaves them zero) are allocated once per call object, so one
GemmCall must not run on two streams at once (two calls have their own). TMA-reduced split-K (split_reduce
"tma") runs three steps on the arrays' device: the fp32 workspace W (M x N, allocated once per call object)
zeroed, the kernel adding every unit's partial into it, and W converted to bf16 into D (round to nearest even,
as cvt.rn.bf16.f32: numpy through ml_dtypes, torch's copy_).
"""
from __future__ import annotations

import numpy as np

from ..runtime.memory import DeviceArray
from .blackwell_config import BlackwellConfig
from .kernels import kernel

__all__ = ["GemmCall"]


class GemmCall:
    """One GEMM bound to its arrays and configuration: call() launches it (again), finish() gives D."""

    def __init__(self, ops, cfg, where: str, sms: int):
        self.ops, self.config, self.backend = ops, cfg, where
        self.grid = cfg.grid(ops.m, ops.n, sms)
        if isinstance(cfg, BlackwellConfig):  # (its sizes' rules, stated before anything compiles)
            cfg.check(ops.m, ops.d.shape[1], ops.a.shape[1], self.grid)
        elif cfg.fixup:
            cfg.check(ops.m, ops.n, ops.k, self.grid)
        self.kernel = kernel(cfg, where, grid=self.grid)
        a, b, d = ops.kernel_args()
        self.work = None
        if getattr(cfg, "fixup", False):
            fix = (_empty(ops, cfg.workspace_shape, "float32"), _empty(ops, (cfg.semaphores,), "int32", zero=True))
            self.args = (a, b, d, *fix, ops.m, ops.n, ops.k)
            return
        if cfg.split_k > 1:  # (autotune's device arrays: a host W, as before the fix-up; not run on a GPU)
            self.work = (_empty(ops, d.shape, "float32", zero=True) if ops.lib != "device"
                         else np.zeros(d.shape, np.float32))
            d = self.work
        self.args = (a, b, d, ops.m, ops.n, ops.k)

    def __call__(self):
        work, lib = self.work, self.ops.lib
        if work is not None:
            if lib == "torch":
                work.zero_()
            else:
                work[...] = 0
        if self.backend == "gpu" and lib == "torch":
            self.kernel.launch(*self.args)  # (asynchronous on the default stream, as torch's own)
        else:
            self.kernel(*self.args)
        if work is not None:
            if lib == "torch":
                self.ops.d.copy_(work)
            else:
                self.ops.d[...] = work.astype(self.ops.d.dtype)
        if self.ops.d is not self.ops.out:  # (D computed N-padded: its columns into out)
            self.ops.finish()
        return self

    def finish(self):
        """D (`out`): written by the last call (on the GPU with torch: once the stream gets there)."""
        return self.ops.out


def _empty(ops, shape, dtype: str, zero: bool = False):
    """A scratch array beside D (torch on D's device, device memory for autotune's device arrays, else numpy):
    zeroed where `zero` (numpy's always: tile-sim reads nothing unwritten, but a zeroed array is reproducible)."""
    if ops.lib == "torch":
        import torch  # (late: only torch arrays reach here, torch already loaded)
        make = torch.zeros if zero else torch.empty
        return make(tuple(shape), dtype=getattr(torch, dtype), device=ops.d.device)
    if ops.lib == "device":
        return DeviceArray.zeros(tuple(shape), dtype) if zero else DeviceArray(tuple(shape), dtype)
    return np.zeros(tuple(shape), dtype)
