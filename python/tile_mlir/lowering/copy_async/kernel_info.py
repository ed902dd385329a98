"""Facts about the tile.kernel enclosing an op that variants need (its static block shape)."""
from __future__ import annotations

from ...dialect.ops import attr_value
from ...dialect.ir_utils import enclosing_kernel

__all__ = ["kernel_block"]


def kernel_block(op) -> tuple[int, int, int]:
    k = enclosing_kernel(op)
    if k is None:
        raise ValueError(f"{op.name} is not inside a tile.kernel")
    return tuple(attr_value(k, "block"))
