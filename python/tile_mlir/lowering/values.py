"""The buffer-value converter: what a `!tile.buffer` (or `!tile.tensormap`) value becomes in the lowered IR,
in one place.

A buffer is lowered to the value its memory is addressed by (`lowered_type`, by its MemScope):

    global  !llvm.ptr<1>   the kernel parameter (or a window of it)
    shared  !llvm.ptr<3>   the llvm.mlir.global (or an offset into the dynamic one)
    tmem    i32            the tensor-memory address tcgen05.alloc wrote to the slot
    reg     !llvm.ptr      the register tile's alloca (registers.REG_ADDR_SPACE)

and a tensor map to !llvm.ptr, the generic address of its grid-constant kernel parameter.

Every lowering asks a `BufferValues` for a buffer's lowered value (`get`), and the lowering of an op that
defines a buffer hands its value over (`bind`, checked against the type above). The dispatch passes run
before the buffers are lowered: there `get` materializes the buffer as a `builtin.unrealized_conversion_cast`
to its lowered type (MLIR's target materialization), and convert-tile-to-nvvm, once it has lowered the
buffer's definition, replaces each such cast by the bound value (`resolve`). This module is the only one
that creates those casts (docs/design.md §2).
"""
from __future__ import annotations

from ..dialect.enums import MemScope
from ..dialect.ir_utils import BUFFER_CAST
from ..dialect.types import BufferType
from ..mlir import ir
from .emitter import I32, ptr_type
from .errors import LoweringError
from .registers import REG_ADDR_SPACE

__all__ = ["BufferValues", "lowered_type", "TENSORMAP"]

TENSORMAP = "!tile.tensormap"

# the address space of the pointer each pointer-addressed scope lowers to (PTX state spaces in NVVM numbering)
_ADDR_SPACE = {MemScope.GLOBAL: 1, MemScope.SHARED: 3, MemScope.REG: REG_ADDR_SPACE}


def lowered_type(scope: MemScope):
    """The MLIR type a buffer of `scope` is lowered to (in the current context)."""
    if scope is MemScope.TMEM:
        return I32()
    return ptr_type(_ADDR_SPACE[scope])


class BufferValues:
    """Tile buffer value -> its lowered value, for one kernel (convert-tile-to-nvvm) or one dispatch pass run."""

    def __init__(self):
        self._bound: dict = {}  # tile value -> lowered value
        self._types: dict = {}  # MLIR type -> its lowered type (types are uniqued)

    def type_of(self, value):
        """The lowered type of tile buffer `value`."""
        t = value.type
        lowered = self._types.get(t)
        if lowered is None:
            bt = BufferType.of(t)
            if bt is not None:
                lowered = lowered_type(bt.scope)
            elif str(t) == TENSORMAP:
                lowered = ptr_type(0)
            else:
                raise TypeError(f"{t} is not a !tile.buffer or {TENSORMAP}")
            self._types[t] = lowered
        return lowered

    def bind(self, value, lowered) -> None:
        """`value` (a tile buffer) is lowered to `lowered`, of the type its scope lowers to."""
        want = self.type_of(value)
        if lowered.type != want:
            raise LoweringError(_owner(value), f"a {value.type} lowered as {lowered.type}, expected {want}")
        self._bound[value] = lowered

    def get(self, value, em=None):
        """The lowered value of tile buffer `value`: the bound one, else (in a dispatch pass, before
        convert-tile-to-nvvm) a cast to its lowered type emitted by `em`."""
        lowered = self._bound.get(value)
        if lowered is not None:
            return lowered
        if em is None:
            raise LoweringError(_owner(value), f"a {value.type} used before the op defining it was lowered")
        return em.result(BUFFER_CAST, self.type_of(value), (value,))

    def resolve(self, ops) -> None:
        """Replace the casts among `ops` (the dispatch passes', or the program's own) of a bound buffer by its
        lowered value, which must have the cast's type."""
        for op in ops:
            if op.name != BUFFER_CAST:
                continue
            operands = list(op.operands)
            if len(operands) != 1:
                continue
            new = self._bound.get(operands[0])
            if new is None:
                continue
            result = op.results[0]
            if new.type != result.type:
                raise LoweringError(op, f"cast of a buffer to {result.type}, lowered as {new.type}")
            result.replace_all_uses_with(new)
            op.erase()


def _owner(value):
    owner = value.owner
    return owner if isinstance(owner, (ir.Operation, ir.OpView)) else owner.owner
