"""Two more elementwise register-tile ops an attention epilogue needs (docs/registers.md §8): the
reciprocal of the row sum that normalises O, and the base-2 logarithm of the log-sum-exp. They follow the
tile.reg ops of regmath.py (f32 tiles, destination-passing, the same verified slot map and broadcasting)."""
from __future__ import annotations

from ..enums import MemScope
from ..op_def import BufferOf, Emits, Operand, Writes
from .regmath import _Elementwise

__all__ = ["RegRcpOp", "RegLg2Op"]

_REG = BufferOf(MemScope.REG)


class RegRcpOp(_Elementwise, name="reg.rcp"):
    """dst = 1 / src, IEEE round-to-nearest (rcp.rn.f32: exactly numpy's f32 1 / x)."""

    dst = Operand(_REG)
    src = Operand(_REG)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits(None, "rcp"))


class RegLg2Op(_Elementwise, name="reg.lg2"):
    """dst = log2(src) by lg2.approx.ftz.f32 (the PTX ISA bounds its error; tile-sim models the MUFU unit)."""

    dst = Operand(_REG)
    src = Operand(_REG)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits(None, "lg2.approx"))
