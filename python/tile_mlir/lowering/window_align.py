"""What is known of a global pointer's alignment: a kernel's buffer parameter is taken to start 16-byte
aligned (as every allocation does; nothing checks a raw pointer passed in), a tile.subview window at its
source + sum(offset_d * stride_d) elements.

A static offset contributes exactly its bytes; a dynamic one a multiple of stride_d * element bytes
times what its IR proves (known_multiple: constants, and the products, sums and shifts of them, as a
tile index times the tile's extent; an scf.for induction variable from its bound and step). Vector accesses wider than that would be misaligned: a fault on
the GPU, for a window that starts at an unaligned byte offset.
"""
from __future__ import annotations

import math

from ..dialect.ops import SUBVIEW_DYNAMIC, SubviewOp, subview_strides
from ..dialect.types import BufferType
from ..mlir import ir

__all__ = ["base_align", "known_multiple", "MAX_ALIGN"]

MAX_ALIGN = 16  # bytes: the widest access a copy makes (and a buffer parameter's guaranteed alignment)
_UNBOUNDED = 1 << 62  # the known multiple of 0
_DEPTH = 32  # definitions followed through at most (deeper chains: nothing known)


def _owner_op(value):
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _constant(op):
    attr = op.attributes["value"] if "value" in op.attributes else None
    try:
        return ir.IntegerAttr(attr).value
    except (TypeError, ValueError):
        return None


def _loop_iv(value, depth: int) -> int:
    """An scf.for induction variable: a multiple of what both its lower bound and its step are."""
    block = value.owner
    parent = getattr(block, "owner", None)
    parent = getattr(parent, "operation", parent)
    if getattr(parent, "name", None) != "scf.for" or getattr(value, "arg_number", None) != 0:
        return 1
    lb, _, step = list(parent.operands)[:3]
    return math.gcd(known_multiple(lb, depth + 1), known_multiple(step, depth + 1))


def known_multiple(value, depth: int = 0) -> int:
    """A number the integer `value` is always a multiple of (1 when nothing is known)."""
    if depth > _DEPTH:
        return 1
    op = _owner_op(value)
    if op is None:
        return _loop_iv(value, depth)
    name, args = op.name, list(op.operands)
    km = lambda v: known_multiple(v, depth + 1)  # noqa: E731
    if name == "arith.constant":
        c = _constant(op)
        return 1 if c is None else (abs(c) or _UNBOUNDED)
    if name == "arith.muli":
        return min(km(args[0]) * km(args[1]), _UNBOUNDED)
    if name in ("arith.addi", "arith.subi", "arith.select"):
        return math.gcd(*(km(a) for a in args[-2:]))
    if name == "arith.shli":
        shift = _owner_op(args[1])
        c = _constant(shift) if shift is not None and shift.name == "arith.constant" else None
        return min(km(args[0]) << c, _UNBOUNDED) if c is not None and 0 <= c < 62 else km(args[0])
    if name in ("arith.extui", "arith.extsi", "arith.index_cast", "arith.index_castui"):
        return km(args[0])
    return 1


def base_align(value, depth: int = 0) -> int:
    """The alignment in bytes (a power of two, at most MAX_ALIGN) known of global buffer `value`'s pointer."""
    op = _owner_op(value)
    if op is None or op.name != SubviewOp.OPERATION_NAME or depth > _DEPTH:
        return MAX_ALIGN
    window = SubviewOp(op)
    src_t = BufferType.of(window.source.type)
    bits = src_t.addr_bits
    dynamic = iter(window.offsets)
    static_bits, g = 0, MAX_ALIGN * 8
    for o, stride in zip(window.static_offsets, subview_strides(src_t)):
        if o == SUBVIEW_DYNAMIC:
            g = math.gcd(g, stride * bits * known_multiple(next(dynamic)))
        else:
            static_bits += o * stride * bits
    g = math.gcd(g, static_bits)  # a power of two of bits, at most 128 (gcd(g, 0) = g)
    align = max(g // 8, 1)  # (a sub-byte start is refused by the verifier)
    return min(align, base_align(window.source, depth + 1))
