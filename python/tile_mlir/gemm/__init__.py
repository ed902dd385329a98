"""tile_mlir.gemm: matrix multiply as a library call, one compiled kernel per configuration serving every
shape (docs/gemm-library.md).

    import tile_mlir
    d = tile_mlir.gemm(a, b)             # D = A . B^T: a M x K, b N x K (bf16 or e4m3), d M x N bf16

The module is callable (`tile_mlir.gemm(...)` is api.gemm); its parts: config.py (GemmConfig), hopper.py (the
kernel's tile IR), kernels.py (compiled once per configuration), heuristic.py (the configuration for a shape),
autotune.py (measured instead), operands.py (the arrays), api.py (gemm, plan).
"""
from __future__ import annotations

import sys
import types

from .api import SIM_SMS, GemmCall, device_sms, gemm, plan
from .config import GemmConfig
from .heuristic import choose

__all__ = ["gemm", "plan", "GemmCall", "GemmConfig", "choose", "device_sms", "SIM_SMS"]


class _Callable(types.ModuleType):
    """tile_mlir.gemm(...) calls gemm(); the module's names stay reachable as attributes."""

    def __call__(self, *args, **kwargs):
        return gemm(*args, **kwargs)


sys.modules[__name__].__class__ = _Callable
