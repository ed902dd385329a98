"""The `tile` dialect's operations: one class per op (dialect/op_def.py says how one is defined), grouped
by family, and the tables derived from them.

The bindings cannot register a dialect from Python, so tile ops live in an unregistered `tile` namespace
in generic form; each class is registered as the OpView of its name. OP_CLASSES, in the order of the
IRDL file and of diagnostics, is the single source of truth: OP_SPECS (the classes' specs), the verifier,
the builders, lib/TileOps.irdl (checked by test/python/dialect/test_irdl_agreement.py), the dispatched ops, the
output writers and the fence traits follow it.

Operand order and attribute names are stable; FileCheck tests depend on them.
"""
from __future__ import annotations

import sys

from ... import mlir as _mlir
from ..op_def import AttrSpec, BufferOf, Dispatched, Emits, OperandSpec, OpSpec, TileOp, Trait, TypeIs, Writes
from ..op_def import read_attr, read_attr_in
from .copy import CONVERSIONS, CopyAsyncOp, ConvertOp, CopyOp
from .gemm import GemmAsyncBlockScaleOp, GemmAsyncOp, GemmWaitOp
from .kernel import (SUBVIEW_DYNAMIC, AllocRegOp, AllocSharedOp, BlockIdOp, CtaRankOp, ElectOneOp, GridDimOp,
                     KernelOp, LaneIdOp, ReinterpretOp, ReturnOp, SubviewOp, ThreadIdOp, WarpIdOp, subview_strides)
from .persistent import MbarrierWaitParityOp, RasterGroupedOp, RingStageOp, SetMaxNRegOp
from .regmath import (RegAddOp, RegExp2Op, RegFillOp, RegFmaOp, RegLg2Op, RegMaskOp, RegMaxOp, RegMinOp, RegMulOp,
                      RegNegOp, RegRcpOp, RegReduceOp, RegSelectOp, RegSubOp)
from .sync import (AsyncWaitOp, BarrierOp, BulkWaitOp, FenceOp, MbarrierArriveExpectTxOp, MbarrierArriveOp,
                   MbarrierExpectTxOp, MbarrierInitOp, MbarrierWaitOp, NamedBarrierArriveOp, NamedBarrierSyncOp,
                   SemaphoreArriveOp)
from .tma import TensorMapOp, TensorMapPrefetchOp
from .tmem import CommitOp, TmemAllocOp, TmemBufferOp, TmemDeallocOp, TmemLoadOp, TmemRelinquishOp

OP_CLASSES: tuple[type[TileOp], ...] = (
    KernelOp, ReturnOp, ThreadIdOp, WarpIdOp, LaneIdOp, CtaRankOp, BlockIdOp, GridDimOp, ElectOneOp,
    AllocSharedOp, SubviewOp, ReinterpretOp, CopyOp, FenceOp, BarrierOp, TmemAllocOp, TmemRelinquishOp,
    TmemDeallocOp, TmemBufferOp, CopyAsyncOp, TensorMapOp, TensorMapPrefetchOp, MbarrierArriveExpectTxOp,
    MbarrierExpectTxOp, BulkWaitOp, CommitOp, AsyncWaitOp, MbarrierInitOp, MbarrierArriveOp, MbarrierWaitOp,
    AllocRegOp, ConvertOp, GemmAsyncOp, GemmAsyncBlockScaleOp, GemmWaitOp, TmemLoadOp, RingStageOp,
    MbarrierWaitParityOp, RasterGroupedOp, SetMaxNRegOp, NamedBarrierSyncOp, NamedBarrierArriveOp, RegFillOp,
    RegNegOp, RegExp2Op, RegLg2Op, RegRcpOp, RegAddOp, RegSubOp, RegMulOp, RegMaxOp, RegMinOp, RegFmaOp, RegSelectOp, RegMaskOp,
    RegReduceOp, SemaphoreArriveOp,
)
OP_SPECS: tuple[OpSpec, ...] = tuple(c.SPEC for c in OP_CLASSES)
_BY_NAME = {c.OPERATION_NAME: c for c in OP_CLASSES}

# derived tables
DISPATCHED: dict[str, Dispatched] = {c.OPERATION_NAME: c.SPEC.dispatched for c in OP_CLASSES if c.SPEC.dispatched}
# op name -> the operand numbers it writes (a kernel parameter so written is an output)
WRITERS: dict[str, tuple[int, ...]] = {
    c.OPERATION_NAME: tuple(i for i, o in enumerate(c.SPEC.operands) if o.name in c.SPEC.writes)
    for c in OP_CLASSES if c.SPEC.writes}


def op_class(name: str) -> type[TileOp] | None:
    """The class of tile op `name` ("tile.copy"), or None."""
    return _BY_NAME.get(name)


def spec_of(name: str) -> OpSpec | None:
    cls = _BY_NAME.get(name)
    return cls.SPEC if cls is not None else None


def view(op) -> TileOp:
    """The typed view of tile op `op` (an Operation or an OpView)."""
    return _BY_NAME[op.name](op.operation)


def dispatched_ops(key: str) -> tuple[str, ...]:
    """The names of the ops that the dispatch registry lowers under `key`."""
    return tuple(name for name, d in DISPATCHED.items() if d.key == key)


def nearest_tile_op(name: str) -> str | None:
    """The tile op a misspelt op name most likely meant (`tiel.copy` -> `tile.copy`), or None."""
    import difflib

    suffix = name.partition(".")[2]
    if f"tile.{suffix}" in _BY_NAME:
        return f"tile.{suffix}"
    return next(iter(difflib.get_close_matches(name, list(_BY_NAME), n=1, cutoff=0.75)), None)


def attr_value(op, name: str):
    """The Python value of tile op `op`'s attribute `name` (its default when absent)."""
    return read_attr(op, _BY_NAME[op.name].SPEC.attr(name))


# The bindings look for a Python module of each dialect namespace whenever they wrap an op, and do not
# remember a miss: name this module as the `tile` dialect's so the lookup succeeds at once.
sys.modules.setdefault(f"{_mlir._ROOT}.dialects.tile", sys.modules[__name__])

__all__ = ["Trait", "Writes", "Dispatched", "Emits", "BufferOf", "TypeIs", "OperandSpec", "AttrSpec", "OpSpec",
           "TileOp", "OP_CLASSES", "OP_SPECS", "DISPATCHED", "WRITERS", "op_class", "spec_of", "view",
           "dispatched_ops", "nearest_tile_op", "attr_value", "read_attr", "read_attr_in", "SUBVIEW_DYNAMIC",
           "subview_strides", "CONVERSIONS"] + [c.__name__ for c in OP_CLASSES]
