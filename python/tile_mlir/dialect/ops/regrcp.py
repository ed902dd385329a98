"""tile.reg.rcp: the reciprocal of an f32 register tile (rcp.approx.ftz.f32), the 1 / l of an attention
epilogue's O / l. An elementwise op of regmath's family (docs/registers.md §8): same verifier, same slot map."""
from __future__ import annotations

from ..op_def import Emits, Operand, Writes
from .regmath import _REG, _Elementwise

__all__ = ["RegRcpOp"]


class RegRcpOp(_Elementwise, name="reg.rcp"):
    """dst = 1 / src by rcp.approx.ftz.f32 (at most 1 ulp from the rounded quotient, PTX ISA "rcp.approx";
    subnormal inputs and results flushed to zero)."""

    dst = Operand(_REG)
    src = Operand(_REG)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits("nvvm.rcp.approx.ftz.f", "rcp.approx"))
