"""GemmCall: one GEMM bound to its arrays and configuration's kernel, launched by calling it."""
from __future__ import annotations

from .config import GemmConfig
from .kernels import kernel

__all__ = ["GemmCall"]


class GemmCall:
    """One GEMM bound to its arrays and configuration: call() launches it (again), finish() gives D."""

    def __init__(self, ops, cfg: GemmConfig, where: str, sms: int):
        self.ops, self.config, self.backend = ops, cfg, where
        self.grid = cfg.grid(ops.m, ops.n, sms)
        self.kernel = kernel(cfg, where, grid=self.grid)
        self.args = (*ops.kernel_args(), ops.m, ops.n, ops.k)

    def __call__(self):
        if self.backend == "gpu" and self.ops.lib == "torch":
            self.kernel.launch(*self.args)  # (asynchronous on the default stream, as torch's own)
        else:
            self.kernel(*self.args)
        return self

    def finish(self):
        return self.ops.finish()
