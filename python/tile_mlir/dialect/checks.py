"""The building blocks of op verification: a failed check, buffer types and their layouts, slots, and the
facts one kernel's ops are checked against together (one cta_group).

A check that fails raises VerifyError(check, reason); the verifier reports it once, at the op, as
`'tile.<op>' op <check>: <reason>`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..target import TMEM_COLUMNS, TMEM_LANES
from .types import PACKINGS, BufferType, TypeParseError

__all__ = ["VerifyError", "fail", "buffer_type", "check_buffer", "check_buffer_once", "check_slot",
           "KernelFacts", "same_cta_group"]


class VerifyError(Exception):
    def __init__(self, check: str, reason: str):
        super().__init__(f"{check}: {reason}")
        self.check, self.reason = check, reason


def fail(check: str, reason: str):
    raise VerifyError(check, reason)


# -- buffer types ------------------------------------------------------------------------------------
def buffer_type(value_or_type, what: str) -> BufferType:
    t = value_or_type.type if hasattr(value_or_type, "type") else value_or_type
    try:
        bt = BufferType.of(t)
    except TypeParseError as e:
        fail("buffer-type", f"{what}: {e}")
    if bt is None:
        fail("operand-type", f"{what} must be a !tile.buffer, got {t}")
    return bt


_VALID_BUFFERS: set[BufferType] = set()  # plain values (no MLIR objects): safe to keep across contexts


def check_buffer_once(bt: BufferType, what: str) -> None:
    """check_buffer, skipped for a buffer type that already passed (it depends on the type alone;
    programs repeat a few buffer types many times)."""
    if bt not in _VALID_BUFFERS:
        check_buffer(bt, what)
        _VALID_BUFFERS.add(bt)


def check_buffer(bt: BufferType, what: str) -> None:
    """Layout well formed and consistent with the buffer's scope and shape."""
    from ..layout import LayoutError  # (on first use: parsing and printing tile IR need no layouts)

    try:
        lay = bt.layout
    except LayoutError as e:
        fail("layout", f"{what}: malformed layout \"{bt.layout_text}\": {e}")
    inner = getattr(lay, "inner", lay)
    swz = getattr(lay, "swizzle", None)
    extent = inner.shard_extent()
    if extent != bt.numel:
        fail("layout", f"{what}: layout covers {extent} elements but the buffer shape "
             f"{'x'.join(map(str, bt.shape))} has {bt.numel}")
    axes = {it.axis.name for it in (*inner.shard, *inner.replica)}
    if bt.packing is not None:
        if bt.scope != "shared":
            fail("packing", f"{what}: packing {bt.packing} is a shared-memory form; "
                 f"{bt.scope} buffers hold sub-byte elements packed contiguously")
        bits = PACKINGS[bt.packing][0]
        if bt.elem_bits != bits:
            fail("packing", f"{what}: packing {bt.packing} holds {bits}-bit elements, not {bt.elem}")
    if bt.scope == "reg":
        _check_register_buffer(bt, what)
    elif bt.scope == "tmem":
        if swz is not None:
            fail("layout", f"{what}: a tmem layout cannot be swizzled")
        if not axes <= {"TLane", "TCol"}:
            fail("layout", f"{what}: a tmem layout must map onto TLane and TCol, got axes {sorted(axes)}")
        if bt.elem_bits not in (4, 6, 8, 16, 32):
            fail("element-type", f"{what}: tmem holds 4, 6, 8, 16 or 32-bit elements, not {bt.elem}")
        lanes = _span(inner, "TLane")
        cols = _span(inner, "TCol")
        if lanes > TMEM_LANES:
            fail("layout", f"{what}: layout reaches lane {lanes - 1}, beyond the {TMEM_LANES} tmem lanes")
        if cols * bt.addr_bits > TMEM_COLUMNS * 32:
            fail("layout", f"{what}: layout spans {cols} {bt.elem} columns, beyond the {TMEM_COLUMNS} 32-bit "
                 "tmem columns")
    else:
        if not axes <= {"m"}:
            fail("layout", f"{what}: a {bt.scope} layout maps onto memory (axis m), got axes {sorted(axes)}")
        if inner.replica:
            fail("layout", f"{what}: a {bt.scope} layout cannot have replicas")
        if swz is not None and bt.scope != "shared":
            fail("layout", f"{what}: only shared buffers can be swizzled")
        if swz is not None and bt.scope == "shared":
            from ..layout import atom_bytes

            need = atom_bytes(swz)
            if (bt.align or 16) < need:
                fail("swizzle-alignment", f"{what}: {swz.value} swizzle is applied to absolute shared addresses, "
                     f"so the buffer needs align {need} (the swizzle repeat), got {bt.align or 16}")
        span = _span(inner, "m")
        if span > bt.numel * (1 << 20):
            fail("layout", f"{what}: layout spans {span} elements, far beyond its {bt.numel} elements")


# A thread has at most 255 32-bit registers (PTX ISA "Registers"; ptxas's limit per thread)
MAX_REGISTERS = 255
REGISTER_ELEM_BITS = (8, 16, 32)


def _check_register_buffer(bt: BufferType, what: str) -> None:
    """A register tile (docs/registers.md §1): an explicit fragment layout that fits a thread's registers."""
    from ..layout import FragmentError, fragment_of

    if bt.layout_text is None:
        fail("layout", f"{what}: a reg buffer needs a layout saying which thread holds each element "
             "(axes warpid, laneid, reg)")
    if bt.elem_bits not in REGISTER_ELEM_BITS:
        fail("element-type", f"{what}: registers hold 8, 16 or 32-bit elements here, not {bt.elem}")
    try:
        frag = fragment_of(bt.layout)
    except FragmentError as e:
        fail("layout", f"{what}: {e}")
    words = -(-frag.slots_per_thread * bt.elem_bits // 32)
    if words > MAX_REGISTERS:
        fail("layout", f"{what}: a thread holds {words} 32-bit registers of it, more than the "
             f"{MAX_REGISTERS} a thread has")


def _span(layout, axis_name: str) -> int:
    """1 + the largest offset the layout reaches on the axis (over all replicas)."""
    from ..layout import Axis

    axis = Axis.get(axis_name)
    for it in (*layout.shard, *layout.replica):
        if it.axis is axis and it.stride < 0:
            fail("layout", f"negative stride {it.stride} on {axis_name}")
    return layout.span(axis)


def check_slot(v, elem_bits: int, what: str) -> None:
    """v is a shared 1xi<elem_bits> buffer (a tmem address slot: 32, an mbarrier: 64)."""
    bt = buffer_type(v, what)
    if bt.shape != (1,) or bt.elem_bits != elem_bits or bt.elem.startswith(("f", "bf")):
        fail("operand-type", f"{what} must be a shared 1xi{elem_bits} buffer, got {bt}")


# -- kernel-wide facts ---------------------------------------------------------------------------------
@dataclass
class KernelFacts:
    """What the checks of one kernel's ops share: its cluster size and the first cta_group used."""

    cluster_size: int = 1
    cta_group: tuple | None = None  # (cta_group, op) of the first tcgen05 op


def same_cta_group(op, g: int, kernel: KernelFacts) -> None:
    """PTX: every tcgen05 instruction of a kernel uses the same cta_group; 2 pairs CTAs of a cluster."""
    if kernel.cta_group is None:
        kernel.cta_group = (g, op)
    first = kernel.cta_group[0]
    if first != g:
        fail("cta-group", f"cta_group {g} differs from cta_group {first} used earlier in this kernel; "
             "every tcgen05 instruction of a kernel must use the same cta_group")
    if g == 2 and kernel.cluster_size % 2:
        fail("cta-group", "cta_group 2 needs a cluster of an even number of CTAs (set cluster on tile.kernel)")
