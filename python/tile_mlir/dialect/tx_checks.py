"""The expect-tx check of tile-verify: the bytes an mbarrier.arrive_expect_tx / expect_tx arms against the
bytes of the TMA loads that complete on that mbarrier after it, where both are known when compiling. A
mismatch compiles to a kernel whose wait never returns (more bytes armed than come) or returns before the
data is there (the tx-count crosses zero early), so it is refused at the expect_tx, naming both numbers.

What a TMA load completes on its mbarrier is its whole box, the out-of-bounds part included (PTX ISA
cp.async.bulk.tensor: complete-tx of the box's bytes; docs/tma.md §1), so the box comes from the kernel's
tile.tensor_map declarations of the load's global buffer. The check applies only where the pairing is
certain, and says nothing otherwise:

* the mbarrier is one tile.alloc_shared result used by no view (tile.subview, tile.reinterpret): no other
  value names its memory;
* every TMA load on it (copy_async with it as operand #2) is in the block of an expect_tx on it, after that
  expect_tx and before the next one: the loads of an expect_tx are those, issued once per arming (a load
  in a nested loop or branch, or before the arming, is not paired);
* no load on it multicasts or signals another CTA's barrier (cta_group 2, pair_leader): bytes from other
  CTAs' loads would arrive too;
* each load's global buffer has declared maps of one box, and byte-sized elements.
"""
from __future__ import annotations

import math
from functools import cmp_to_key

from ..mlir import ir
from .decline import Decline, fail
from .ir_utils import op_name
from .types import BufferType, element_bits

__all__ = ["check_expect_tx"]

_EXPECT = ("tile.mbarrier.arrive_expect_tx", "tile.mbarrier.expect_tx")
_VIEWS = ("tile.subview", "tile.reinterpret")
_COPY = "tile.copy_async"


def _int(attr) -> int:
    return int(ir.IntegerAttr(attr).value)


def _maker(value) -> str | None:
    """The name of the op that makes ``value`` (None for a block argument)."""
    owner = value.owner
    return op_name(owner) if hasattr(owner, "operation") else None


def _loads(barrier) -> list | None:
    """The TMA loads completing on ``barrier`` (operations), or None when its memory may have other names."""
    if _maker(barrier) != "tile.alloc_shared":
        return None
    loads = []
    for u in barrier.uses:
        name = op_name(u.owner)
        if name in _VIEWS:
            return None
        if name == _COPY and u.operand_number == 2:
            loads.append(u.owner.operation)
    return loads


def _box_bytes(load) -> tuple[int, str] | None:
    """(the bytes load's box brings, how the message shows it), or None when that is not certain."""
    attrs = load.attributes  # (read here: dialect.ops imports this module)
    if "multicast_mask" in attrs or ("cta_group" in attrs and _int(attrs["cta_group"]) != 1) or \
            ("barrier_cta" in attrs and str(ir.StringAttr(attrs["barrier_cta"]).value) != "own"):
        return None
    src = load.operands[1]
    while _maker(src) == "tile.subview":  # a window of the global buffer: its maps are the buffer's
        src = src.owner.operands[0]
    boxes = {tuple(ir.DenseI64ArrayAttr(u.owner.attributes["box"])) for u in src.uses
             if op_name(u.owner) == "tile.tensor_map"}
    bt = BufferType.of(src.type)
    if len(boxes) != 1 or bt is None or element_bits(bt.elem) % 8:
        return None
    (box,) = boxes
    n = math.prod(box) * element_bits(bt.elem) // 8
    return n, f"[{', '.join(map(str, box))}] x {bt.elem}"


def _arming(load, barrier):
    """The last expect_tx on ``barrier`` before ``load`` in load's block (an Operation), or None."""
    found = None
    for o in load.block.operations:
        o = o.operation
        if o == load:
            return found
        if op_name(o) in _EXPECT and o.operands[0] == barrier:
            found = o
    return None


def check_expect_tx(op) -> None:
    """Decline (check `expect-tx`) when the expect_tx ``op`` arms other than the bytes of its TMA loads."""
    barrier = op.operands[0]
    try:
        loads = _loads(barrier)
        if not loads:
            return
        arming = [_arming(load, barrier) for load in loads]
        if any(a is None for a in arming):
            return  # a load no expect_tx of its block pairs: the bytes per phase are not known here
        me = op.operation
        mine = sorted((load for load, a in zip(loads, arming) if a == me),  # (use lists are unordered)
                      key=cmp_to_key(lambda a, b: -1 if a.is_before_in_block(b) else 1))
        if not mine:
            return
        boxes = [_box_bytes(load) for load in mine]
    except (Decline, ValueError, TypeError):
        return  # a malformed load or map (an attribute of another kind): its own verifier says so
    if any(b is None for b in boxes):
        return
    total = sum(n for n, _ in boxes)
    armed = int(op.attributes["bytes"].value)
    if armed == total:
        return
    parts: dict[str, list] = {}
    for n, shown in boxes:
        parts.setdefault(shown, [n, 0])[1] += 1
    listed = " + ".join(f"a {s} box ({n} bytes)" if c == 1 else f"{c} {s} boxes ({n} bytes each)"
                        for s, (n, c) in parts.items())
    loads = "the TMA load" if len(mine) == 1 else f"the {len(mine)} TMA loads"
    fail("expect-tx", f"arms {armed} transaction bytes, but {loads} completing on this mbarrier after it "
         f"bring{'s' if len(mine) == 1 else ''} {total}: {listed}; set bytes = {total} (a TMA load completes "
         "its whole box on the mbarrier)")
