"""tile.reg.rcp and tile.reg.lg2: the reciprocal and the base-2 logarithm of an f32 register tile by the special
function unit (rcp.approx.ftz.f32, lg2.approx.ftz.f32): an attention epilogue's 1 / l and its log-sum-exp. Elementwise
ops of regmath's family (docs/registers.md §8): the same verifier, the same slot map."""
from __future__ import annotations

from ..op_def import Emits, Operand, Writes
from .regmath import _REG, _Elementwise

__all__ = ["RegRcpOp", "RegLg2Op"]


class RegRcpOp(_Elementwise, name="reg.rcp"):
    """dst = 1 / src by rcp.approx.ftz.f32 (at most 1 ulp from the rounded quotient, PTX ISA "rcp.approx";
    subnormal inputs and results flushed to zero)."""

    dst = Operand(_REG)
    src = Operand(_REG)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits("nvvm.rcp.approx.ftz.f", "rcp.approx"))


class RegLg2Op(_Elementwise, name="reg.lg2"):
    """dst = log2(src) by lg2.approx.ftz.f32 (PTX ISA "lg2": maximum absolute error 2^-22 in its range; subnormal
    inputs flushed to zero, so their log2 is -inf)."""

    dst = Operand(_REG)
    src = Operand(_REG)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits("nvvm.lg2.approx.f", "lg2.approx"))
