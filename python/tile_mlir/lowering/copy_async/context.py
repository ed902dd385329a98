"""What a copy_async variant sees: the op's operands, regions and attributes, decoded once."""
from __future__ import annotations

from ...dialect.ir_utils import Region, region_of
from ...dialect.ops import CopyAsyncOp
from ...dialect.types import BufferType
from ...target import ArchInfo
from ..values import BufferValues

__all__ = ["CopyAsyncCtx"]

# keys of the pass run's cache holding decoded buffer types (by MLIR type) and regions (by type and
# region attributes): MLIR types and attributes are uniqued, so a program that repeats them decodes
# them once
_TYPES, _REGIONS = "copy_async.buffer_types", "copy_async.regions"
_REGION_ATTRS = {side: (f"{side}_offsets", f"{side}_sizes") for side in ("dst", "src")}


class CopyAsyncCtx:
    """op, target (the chip's ArchInfo), cache; dst and src (the operand values), dst_t and src_t (their
    BufferTypes), dst_region and src_region, cta_group, scope, pinned (the `dispatch` attribute, or
    None), and a TMA load's barrier (or None) and multicast_mask (or None); values, the buffer-value
    converter that gives a variant the lowered value of a buffer (lowering/values.py)."""

    def __init__(self, op, target: ArchInfo, cache: dict | None = None, values: BufferValues | None = None):
        self.op, self.target = op, target
        self.values = BufferValues() if values is None else values
        self.cache = {} if cache is None else cache  # per pass run: e.g. smem descriptors per (buffer, ...)
        view = CopyAsyncOp(op.operation)
        types, regions = _memo(self.cache, _TYPES), _memo(self.cache, _REGIONS)
        # dst before src, types before regions: an unverified malformed op fails at its first problem
        self.dst = view.dst
        dst_type = self.dst.type
        self.dst_t = _buffer_type(types, dst_type)
        self.src = view.src
        src_type = self.src.type
        self.src_t = _buffer_type(types, src_type)
        attrs = op.attributes
        self.dst_region = _region(regions, op, attrs, "dst", dst_type, self.dst_t)
        self.src_region = _region(regions, op, attrs, "src", src_type, self.src_t)
        self.cta_group = view.cta_group
        self.scope = view.scope
        self.pinned: str | None = view.dispatch
        self.barrier = view.barrier
        self.multicast_mask: int | None = view.multicast_mask
        self.reduce = view.reduce  # (Reduction.NONE: a plain copy)


# BufferType.of and region_of, memoized on the MLIR type and region attributes that determine their
# result (failures are not memoized: they raise each time, as before)
def _buffer_type(memo: dict, t) -> BufferType:
    bt = memo.get(t)
    if bt is None:
        bt = memo[t] = BufferType.of(t)
    return bt


def _region(memo: dict, op, attrs, side: str, t, bt: BufferType) -> Region:
    offsets, sizes = _REGION_ATTRS[side]
    key = (t, attrs[offsets] if offsets in attrs else None, attrs[sizes] if sizes in attrs else None)
    region = memo.get(key)
    if region is None:
        region = memo[key] = region_of(op, side, bt)
    return region


def _memo(cache: dict, key: str) -> dict:
    memo = cache.get(key)
    if memo is None:
        memo = cache[key] = {}
    return memo
