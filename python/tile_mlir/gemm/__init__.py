"""tile_mlir.gemm: matrix multiply as a library call, one compiled kernel per configuration serving every
shape (docs/gemm-library.md).

    import tile_mlir
    d = tile_mlir.gemm(a, b)             # D = A . B^T: a M x K, b N x K (bf16 or e4m3), d M x N bf16

The module is callable (`tile_mlir.gemm(...)` is api.gemm); its parts: config.py (GemmConfig), hopper.py (the
sm_90a kernel's tile IR), blackwell_config.py / blackwell.py (the dense sm_100a kernel), targets.py (which chip
has which kernel, dtypes and heuristic), heuristic_sm100.py, kernels.py (compiled once per configuration), heuristic.py (the configuration for a shape),
autotune.py (measured instead), operands.py (the arrays), api.py (gemm, plan).
"""
from __future__ import annotations

import sys
import types

from .api import SIM_SMS, GemmCall, device_sms, gemm, plan
from .blackwell_config import BlackwellConfig
from .config import GemmConfig
from .heuristic import choose

__all__ = ["gemm", "plan", "GemmCall", "GemmConfig", "BlackwellConfig", "choose", "device_sms", "SIM_SMS"]


class _Callable(types.ModuleType):
    """tile_mlir.gemm(...) calls gemm(); the module's names stay reachable as attributes."""

    def __call__(self, *args, **kwargs):
        return gemm(*args, **kwargs)


sys.modules[__name__].__class__ = _Callable
