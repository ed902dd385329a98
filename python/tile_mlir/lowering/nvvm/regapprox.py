"""Lowerings of tile.reg.rcp and tile.reg.lg2 (dialect/ops/regapprox.py): per slot of the verified slot map, as
regmath.py lowers the other elementwise ops, rcp.approx.ftz.f32 (nvvm.rcp.approx.ftz.f) and lg2.approx.ftz.f32
(the intrinsic llvm.nvvm.lg2.approx.ftz.f: the bindings have no NVVM op for it)."""
from __future__ import annotations

from ...dialect.ops import RegLg2Op, RegRcpOp
from ...mlir import ir, operand_segments
from .regmath import _elementwise
from .registry import lowers


@lowers(RegRcpOp)
def _rcp(k, op, em):
    _elementwise(k, op, em, lambda a: em.result("nvvm.rcp.approx.ftz.f", a[0].type, (a[0],)))


def _lg2(em, x):
    return em.result("llvm.call_intrinsic", x.type, (x,), {
        "intrin": ir.StringAttr.get("llvm.nvvm.lg2.approx.ftz.f"), "op_bundle_sizes": ir.DenseI32ArrayAttr.get([]),
        **operand_segments("llvm.call_intrinsic", [1, 0])})


@lowers(RegLg2Op)
def _lg2_op(k, op, em):
    _elementwise(k, op, em, lambda a: _lg2(em, a[0]))
