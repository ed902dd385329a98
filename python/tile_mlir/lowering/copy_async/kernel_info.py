"""Facts about the tile.kernel enclosing an op that variants need (its static block shape)."""
from __future__ import annotations

from ...dialect.ops import attr_value

__all__ = ["kernel_block"]


def kernel_block(op) -> tuple[int, int, int]:
    p = op.parent
    while p is not None and p.name != "tile.kernel":
        p = p.parent
    if p is None:
        raise ValueError(f"{op.name} is not inside a tile.kernel")
    return tuple(attr_value(p, "block"))
