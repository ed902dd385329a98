"""TMA tensor maps: tile.tensor_map declares one (a kernel parameter the runtime encodes), and
tile.tensor_map.prefetch brings it into the descriptor cache."""
from __future__ import annotations

import math

from ..checks import buffer_type, tensor_map_problem
from ..decline import fail
from ..enums import L2Promotion, MemScope, OobFill, Swizzle
from ..op_def import I64_ARRAY, Attr, BufferOf, Emits, Operand, Result, TileOp, TypeIs
from ...layout import Iter, TileLayout, m

__all__ = ["TensorMapOp", "TensorMapPrefetchOp", "TENSORMAP"]

TENSORMAP = TypeIs("!tile.tensormap")


class TensorMapOp(TileOp, name="tensor_map"):
    """Declares a TMA tensor map of a kernel buffer parameter (a grid-constant 128-byte kernel parameter after
    the kernel's own, encoded by the runtime): box elements per dim (outermost first), swizzle, L2 promotion,
    out-of-bounds fill (docs/tma.md)."""

    buffer = Operand(BufferOf(MemScope.GLOBAL))
    map = Result(TENSORMAP)
    box = Attr(I64_ARRAY, required=True)
    swizzle = Attr(Swizzle, default=Swizzle.NONE)
    l2_promotion = Attr(L2Promotion, default=L2Promotion.NONE)
    oob_fill = Attr(OobFill, default=OobFill.ZERO)

    def verify(self, kernel) -> None:
        # (its operand, a global buffer, is a kernel parameter: no op makes global buffers)
        if getattr(self.operation.parent, "name", None) != "tile.kernel":
            fail("placement", "tile.tensor_map must be directly in the kernel body: it declares a kernel parameter")
        bt = buffer_type(self.buffer, "operand #0 (buffer)")
        shape = bt.shape
        row_major = TileLayout([Iter(e, math.prod(shape[i + 1:]), m) for i, e in enumerate(shape)])
        if bt.layout_text is not None and bt.layout.canonicalize() != row_major.canonicalize():
            fail("tensor-map-layout", f"the buffer's layout \"{bt.layout_text}\" is not row-major; TMA maps "
                 "describe row-major tensors here")
        problem = tensor_map_problem(shape, bt.elem, self.box, self.swizzle, self.oob_fill, bt.dynamic)
        if problem:
            fail(*problem)


class TensorMapPrefetchOp(TileOp, name="tensor_map.prefetch"):
    """prefetch.tensormap: bring a tensor map into the descriptor cache ahead of the first TMA copy through
    it, by the executing thread (put it under an elected thread)."""

    map = Operand(TENSORMAP)
    TRAITS = (Emits("nvvm.prefetch", "prefetch"),)
