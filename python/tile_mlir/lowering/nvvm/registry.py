"""LOWERINGS: tile op class -> its lowering function fn(k, op, em), called by convert-tile-to-nvvm with k
the KernelLowering of the op's kernel, op the op's typed view (dialect/ops) and em an Emitter before it."""
from __future__ import annotations

from typing import Callable

from ...errors import TileMLIRError

__all__ = ["LOWERINGS", "lowers", "LoweringError"]

LOWERINGS: dict[type, Callable] = {}


def lowers(cls):
    """Register the decorated function as the lowering of tile op class `cls`."""
    def register(fn):
        if cls in LOWERINGS:
            raise ValueError(f"{cls.OPERATION_NAME} has two lowerings: {LOWERINGS[cls].__name__} and {fn.__name__}")
        LOWERINGS[cls] = fn
        return fn

    return register


class LoweringError(TileMLIRError):
    """An op the lowering cannot build (convert-tile-to-nvvm reports it as a diagnostic at `op`)."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op
