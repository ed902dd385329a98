"""GemmCall: one GEMM bound to its arrays and configuration's kernel, launched by calling it.

Split-K (config.split_k > 1) runs three steps on the arrays' device: the fp32 workspace W (M x N, allocated once
per call object) zeroed, the kernel adding every unit's partial into it, and W converted to bf16 into D
(round to nearest even, as cvt.rn.bf16.f32: numpy through ml_dtypes, torch's copy_).
"""
from __future__ import annotations

import numpy as np

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
        self.kernel = kernel(cfg, where, grid=self.grid)
        a, b, d = ops.kernel_args()
        self.work = None
        if cfg.split_k > 1:
            self.work = _zeros_f32(ops, d.shape)
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


def _zeros_f32(ops, shape):
    if ops.lib == "torch":
        import torch  # (late: only torch arrays reach here, torch already loaded)
        return torch.zeros(tuple(shape), dtype=torch.float32, device=ops.d.device)
    return np.zeros(tuple(shape), np.float32)
