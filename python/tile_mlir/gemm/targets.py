"""The chips tile_mlir.gemm has a kernel for, each with its configuration class, dtypes and heuristic: one
table, read by the api, the kernel cache and autotune (docs/gemm-library.md §2)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import heuristic, heuristic_sm100
from .blackwell_config import BlackwellConfig
from .config import GemmConfig

__all__ = ["Target", "TARGETS", "SIM_ARCH", "of_config", "of_cc"]


@dataclass(frozen=True)
class Target:
    arch: str
    config: type
    dtypes: tuple[str, ...]
    choose: Callable
    candidates: Callable
    estimate: Callable


TARGETS = {
    "sm_90a": Target("sm_90a", GemmConfig, ("bf16", "e4m3"), heuristic.choose, heuristic.candidates,
                     heuristic.estimate),
    "sm_100a": Target("sm_100a", BlackwellConfig, ("bf16", "f16", "e4m3", "e5m2", "tf32"), heuristic_sm100.choose,
                      heuristic_sm100.candidates, heuristic_sm100.estimate),
}
#: tile-sim's chip when arch= is not given: the Hopper kernel, the one measured against cuBLAS
SIM_ARCH = "sm_90a"


def of_config(cfg) -> Target:
    for t in TARGETS.values():
        if isinstance(cfg, t.config):
            return t
    raise TypeError(f"config must be a GemmConfig (sm_90a) or a BlackwellConfig (sm_100a), got {type(cfg).__name__}")


def of_cc(cc: tuple[int, int], name: str) -> Target:
    """The target of a GPU of compute capability cc: 9.0 runs sm_90a, 10.x sm_100a."""
    if cc == (9, 0):
        return TARGETS["sm_90a"]
    if cc[0] == 10:
        return TARGETS["sm_100a"]
    raise ValueError(f"tile_mlir.gemm has kernels for sm_90a (compute capability 9.0) and sm_100a (10.x); "
                     f"{name} is {cc[0]}.{cc[1]}")
