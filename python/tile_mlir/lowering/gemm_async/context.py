"""What a gemm_async variant sees: the op's operands, their buffer types and regions, and its attributes,
decoded once (tile.gemm_async and tile.gemm_async.block_scale alike)."""
from __future__ import annotations

from ...dialect.ir_utils import region_of
from ...dialect.ops import GemmAsyncBlockScaleOp, view
from ...dialect.types import BufferType
from ...target import ArchInfo
from ..values import BufferValues
from .operand_plan import Operand

__all__ = ["GemmCtx"]


class GemmCtx:
    """op, target (the chip's ArchInfo), cache (per pass run); d, a, b, accumulate, sfa, sfb (operand values;
    sfa and sfb None without block scaling); their BufferTypes (d_t, ...) and planner Operands (d_op, ...);
    kind (None: from the element types), scale_vec, cta_group, scope, pinned (the `dispatch` attribute);
    values, the buffer-value converter."""

    def __init__(self, op, target: ArchInfo, cache: dict | None = None, values: BufferValues | None = None):
        self.op, self.target = op, target
        self.values = BufferValues() if values is None else values  # (lowering/values.py)
        self.cache = {} if cache is None else cache
        v = view(op)
        self.d, self.a, self.b, self.accumulate = v.d, v.a, v.b, v.accumulate
        self.block_scaled = isinstance(v, GemmAsyncBlockScaleOp)
        self.sfa, self.sfb = (v.sfa, v.sfb) if self.block_scaled else (None, None)
        self.d_t, self.a_t, self.b_t = (BufferType.of(v.type) for v in (self.d, self.a, self.b))
        self.d_op, self.a_op, self.b_op = (_operand(op, side, t) for side, t in
                                           (("d", self.d_t), ("a", self.a_t), ("b", self.b_t)))
        self.sfa_op = self.sfb_op = None
        if self.block_scaled:
            self.sfa_op, self.sfb_op = (_operand(None, None, BufferType.of(v.type)) for v in (self.sfa, self.sfb))
        self.kind = v.kind
        self.scale_vec = v.scale_vec if self.block_scaled else 32
        self.cta_group = v.cta_group
        self.scope = v.scope
        self.pinned: str | None = v.dispatch


def _operand(op, side: str | None, bt: BufferType) -> Operand:
    """The planner's view of a buffer; `side` names the op's region attributes (None: the whole buffer)."""
    region = region_of(op, side, bt) if side else tuple((0, e) for e in bt.shape)
    return Operand(bt.scope, bt.elem, bt.elem_bits, bt.layout, tuple(bt.shape), tuple(region), bt.align or 16,
                   bt.packing)
