"""Lowerings of tile.reg.rcp and tile.reg.lg2 (dialect/ops/reg_unary.py), per slot as regmath's
elementwise ops: rcp.rn.f32 and lg2.approx.ftz.f32 through the NVVM intrinsics NVPTX prints as them."""
from __future__ import annotations

from ...dialect.ops import RegLg2Op, RegRcpOp
from ...mlir import ir, operand_segments
from .regmath import _elementwise
from .registry import lowers


def _intrinsic(em, name: str, a):
    return em.result("llvm.call_intrinsic", a.type, (a,), {
        "intrin": ir.StringAttr.get(name), "op_bundle_sizes": ir.DenseI32ArrayAttr.get([]),
        **operand_segments("llvm.call_intrinsic", [1, 0])})


@lowers(RegRcpOp)
def _rcp(k, op, em):
    _elementwise(k, op, em, lambda a: _intrinsic(em, "llvm.nvvm.rcp.rn.f", a[0]))


@lowers(RegLg2Op)
def _lg2(k, op, em):
    _elementwise(k, op, em, lambda a: _intrinsic(em, "llvm.nvvm.lg2.approx.ftz.f", a[0]))
