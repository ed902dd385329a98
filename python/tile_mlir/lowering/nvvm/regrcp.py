"""Lowering of tile.reg.rcp (dialect/ops/regrcp.py): per slot of its verified slot map, rcp.approx.ftz.f32
(nvvm.rcp.approx.ftz.f), as regmath.py lowers the other elementwise ops."""
from __future__ import annotations

from ...dialect.ops import RegRcpOp
from .regmath import _elementwise
from .registry import lowers


@lowers(RegRcpOp)
def _rcp(k, op, em):
    _elementwise(k, op, em, lambda a: em.result("nvvm.rcp.approx.ftz.f", a[0].type, (a[0],)))
