"""What the verifier can prove of an i32 index from the ops that compute it (before lowering): the
largest value it may take, read as unsigned, or None where nothing bounds it.

    arith.constant c            c (exactly: constant_value)
    arith.remui x, c  (c > 0)   c - 1
    arith.andi x, c   (c >= 0)  c
    arith.minui x, c            c
    arith.select p, a, b        the larger of a's and b's bounds

tile.ring.stage uses it (dialect/ops/persistent.py): a constant index outside the ring is an error; an
index bounded inside it needs no check at run time (a persistent kernel's `g % S`); any other index is
checked where it is used, by a trap the lowering emits (lowering/nvvm/persistent.py), which tile-sim
and the GPU report as a fault at the op's line.
"""
from __future__ import annotations

from .ir_utils import constant_int

__all__ = ["constant_value", "unsigned_bound"]

_MASK32 = (1 << 32) - 1


def constant_value(value) -> int | None:
    """The integer of an arith.constant i32 value, as unsigned 32 bits, or None."""
    c = constant_int(value)
    return None if c is None else c & _MASK32


def unsigned_bound(value, depth: int = 0) -> int | None:
    """The largest unsigned value `value` may take, proved from its defining ops, or None."""
    c = constant_value(value)
    if c is not None or depth > 8:
        return c
    owner = getattr(value, "owner", None)
    name = getattr(owner, "name", None)
    if name not in ("arith.remui", "arith.andi", "arith.minui", "arith.select"):
        return None
    ops = list(owner.operands)
    if name == "arith.select":
        a, b = (unsigned_bound(v, depth + 1) for v in ops[1:])
        return None if a is None or b is None else max(a, b)
    bounds = [constant_value(v) for v in ops]
    known = [b for b in bounds if b is not None]
    if name == "arith.remui":
        return bounds[1] - 1 if bounds[1] else None
    if name == "arith.andi":
        return min(known) if known else None
    return min(known) if known else None  # minui
