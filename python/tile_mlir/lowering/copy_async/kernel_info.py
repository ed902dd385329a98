"""Facts about the tile.kernel enclosing an op that variants need (its static block shape)."""
from __future__ import annotations

from ...dialect.ir_utils import enclosing_kernel
from ...dialect.ops import KernelOp

__all__ = ["kernel_block"]


def kernel_block(op) -> tuple[int, int, int]:
    k = enclosing_kernel(op)
    if k is None:
        raise ValueError(f"{op.name} is not inside a tile.kernel")
    return tuple(KernelOp(k).block)
