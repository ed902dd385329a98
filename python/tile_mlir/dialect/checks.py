"""The building blocks of op verification: a failed check, buffer types and their layouts, slots, and the
facts one kernel's ops are checked against together (one cta_group).

A check that fails raises Decline(check, reason) (decline.py); the verifier reports it once, at the op,
as `'tile.<op>' op <check>: <reason>`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..target import MAX_THREAD_REGISTERS, TMEM_COLUMNS, TMEM_LANES, register_budget
from .decline import fail
from .enums import MemScope, OobFill, Swizzle
from .types import PACKINGS, BufferType, TypeParseError, element_bits
from ..layout import Axis, FragmentError, atom_bytes, first_replica_masks, fragment_of

__all__ = ["tmem_columns", "buffer_type", "check_buffer", "register_fragment", "stored_fragment", "check_buffer_once", "check_slot",
           "KernelFacts", "check_register_budget", "same_cta_group", "tma_data_type", "tensor_map_problem"]


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
    inner = lay.inner
    swz = lay.swizzle
    extent = inner.shard_extent()
    if extent != bt.numel:
        fail("layout", f"{what}: layout covers {extent} elements but the buffer shape "
             f"{'x'.join(map(str, bt.shape))} has {bt.numel}")
    axes = {it.axis.name for it in (*inner.shard, *inner.replica)}
    if bt.packing is not None:
        if bt.scope != MemScope.SHARED:
            fail("packing", f"{what}: packing {bt.packing} is a shared-memory form; "
                 f"{bt.scope} buffers hold sub-byte elements packed contiguously")
        bits = PACKINGS[bt.packing][0]
        if bt.elem_bits != bits:
            fail("packing", f"{what}: packing {bt.packing} holds {bits}-bit elements, not {bt.elem}")
    if bt.scope == MemScope.REG:
        _check_register_buffer(bt, what)
    elif bt.scope == MemScope.TMEM:
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
        if swz is not None and bt.scope != MemScope.SHARED:
            fail("layout", f"{what}: only shared buffers can be swizzled")
        if swz is not None and bt.scope == MemScope.SHARED:
            need = atom_bytes(swz)
            if (bt.align or 16) < need:
                fail("swizzle-alignment", f"{what}: {swz.value} swizzle is applied to absolute shared addresses, "
                     f"so the buffer needs align {need} (the swizzle repeat), got {bt.align or 16}")
        span = _span(inner, "m")
        if bt.scope == MemScope.GLOBAL:
            # a window of a larger tensor (tile.subview) spans its source's rows: only 64-bit byte
            # offsets bound it (types.py bounds the buffer's own bytes the same way)
            if span * bt.elem_bits >= 8 << 63:
                fail("layout", f"{what}: layout spans {span} elements, beyond 64-bit byte offsets")
        elif span > bt.numel * (1 << 20):
            fail("layout", f"{what}: layout spans {span} elements, far beyond its {bt.numel} elements")


MAX_CTA_THREADS = 1024  # threads of one CTA (CUDA: maxThreadsPerBlock on every chip we target)
REGISTER_ELEM_BITS = (8, 16, 32)


def _check_register_buffer(bt: BufferType, what: str) -> None:
    """A register tile (docs/registers.md §1): an explicit fragment layout that fits a thread's registers."""

    if bt.layout_text is None:
        fail("layout", f"{what}: a reg buffer needs a layout saying which thread holds each element "
             "(axes warpid, laneid, reg)")
    if bt.elem_bits not in REGISTER_ELEM_BITS:
        fail("element-type", f"{what}: registers hold 8, 16 or 32-bit elements here, not {bt.elem}")
    # more elements than a whole CTA's registers hold: refused before the layout is tabulated
    capacity = MAX_CTA_THREADS * MAX_THREAD_REGISTERS * (32 // bt.elem_bits)
    if bt.numel > capacity:
        fail("layout", f"{what}: {bt.numel} elements are more than the {capacity} {bt.elem} that the "
             f"{MAX_THREAD_REGISTERS} registers of {MAX_CTA_THREADS} threads hold")
    frag = register_fragment(bt, what, replicas=True)
    words = -(-frag.slots_per_thread * bt.elem_bits // 32)
    if words > MAX_THREAD_REGISTERS:
        fail("layout", f"{what}: a thread holds {words} 32-bit registers of it, more than the "
             f"{MAX_THREAD_REGISTERS} a thread has")


def register_fragment(bt: BufferType, what: str, *, replicas: bool = False):
    """The fragment of register tile `bt` (layout.fragment_of), a FragmentError reported as check `layout`:
    ops other than tile.reg.* take no replicated tile (`replicas` False)."""
    try:
        return fragment_of(bt.layout, replicas=replicas)
    except FragmentError as e:
        fail("layout", f"{what}: {e}")


def stored_fragment(bt: BufferType, what: str):
    """register_fragment of a tile that is stored: a replicated one has its replica 0 written (each element
    once), which the replica's thread bits must pick out (layout.first_replica_masks)."""
    frag = register_fragment(bt, what, replicas=True)
    try:
        first_replica_masks(bt.layout)
    except FragmentError as e:
        fail("layout", f"{what}: {e}")
    return frag


def check_register_budget(bt: BufferType, threads: int, what: str) -> None:
    """A register tile (already checked by check_buffer_once) fits the registers ptxas gives a thread of a
    CTA of `threads` threads, and only the CTA's threads hold it."""

    frag = fragment_of(bt.layout, replicas=True)
    words = -(-frag.slots_per_thread * bt.elem_bits // 32)
    budget = register_budget(threads)
    if words > budget:
        fail("register-budget", f"{what}: a thread holds {words} 32-bit registers of it, more than the "
             f"{budget} ptxas gives each thread of a {threads}-thread CTA")
    thread = frag.warp * 32 + frag.lane
    if thread.size and thread.max() >= threads:
        i = int(thread.argmax())
        fail("layout", f"{what}: warp {frag.warp[i]} lane {frag.lane[i]} holds elements of it, but the CTA "
             f"has {threads} thread{'s' * (threads > 1)}")


def tmem_columns(bt: BufferType) -> int:
    """The 32-bit tensor-memory columns a tmem buffer's layout reaches from its first column (as
    check_buffer bounds it: element columns of addr_bits each)."""
    inner = getattr(bt.layout, "inner", bt.layout)
    return -(-_span(inner, "TCol") * bt.addr_bits // 32)


def _span(layout, axis_name: str) -> int:
    """1 + the largest offset the layout reaches on the axis (over all replicas)."""

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
    threads: int | None = None  # of the CTA (the kernel's block), once its attributes are verified
    cta_group: tuple | None = None  # (cta_group, op) of the first tcgen05 op
    target_refused: bool = False  # a target check failed at an earlier op (target_checks.py: once a kernel)


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


# -- tensor maps (TMA) -----------------------------------------------------------------------------------
# What cuTensorMapEncodeTiled accepts (CUDA driver API, cuda.h 13.0; docs/tma.md §2), for the tiled maps
# that tile.tensor_map declares: the verifier reports a problem at the declaration, the TMA planner declines
# a copy whose derived box breaks one.
TMA_MAX_RANK = 5
TMA_MAX_BOX = 256
TMA_MAX_EXTENT = 1 << 32  # globalDim[i]: 1 to 2^32 elements
TMA_STRIDE_ALIGN = 16  # bytes: globalStrides and the inner box row (interleave NONE)
TMA_SWIZZLE_SPAN = {Swizzle.NONE: None, Swizzle.B32: 32, Swizzle.B64: 64, Swizzle.B128: 128}  # inner box bytes at most
# element type -> CUtensorMapDataType (the name tile-sim and runtime/tensor_map.py take). TMA moves bits:
# 8-bit floats travel as UINT8; sub-byte types need the 16U4/16U6 packed forms, not supported here.
_TMA_DATA_TYPES = {
    **dict.fromkeys(("i8", "si8", "ui8", "f8E4M3FN", "f8E5M2", "f8E8M0FNU"), "uint8"),
    **dict.fromkeys(("i16", "si16", "ui16"), "uint16"), "f16": "float16", "bf16": "bfloat16",
    **dict.fromkeys(("i32", "si32"), "int32"), "ui32": "uint32", "f32": "float32",
    **dict.fromkeys(("i64", "si64"), "int64"), "ui64": "uint64", "f64": "float64",
}
_TMA_FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")


def tma_data_type(elem: str) -> str | None:
    """The CUtensorMapDataType of a buffer element type, or None when TMA cannot move it."""
    return _TMA_DATA_TYPES.get(elem)


def tensor_map_problem(shape, elem: str, box, swizzle: str = Swizzle.NONE,
                       oob_fill: str = OobFill.ZERO) -> tuple[str, str] | None:
    """(check, reason) of the first rule a tiled map of a row-major `shape` x `elem` tensor with `box`
    (outermost dim first, as shapes are) breaks, or None."""
    rank = len(shape)
    if not 1 <= rank <= TMA_MAX_RANK:
        return "tensor-map-rank", f"TMA tensors have rank 1 to {TMA_MAX_RANK}, got rank {rank}"
    dtype = tma_data_type(elem)
    if dtype is None:
        return "tensor-map-dtype", (f"TMA cannot move {elem} elements (its data types are 8, 16, 32 and "
                                    "64-bit; sub-byte types need packed forms not supported here)")
    for d, n in enumerate(shape):
        if not 1 <= n <= TMA_MAX_EXTENT:
            return "tensor-map-extent", f"dim {d} has {n} elements; TMA tensors have 1 to 2^32 per dim"
    if len(box) != rank:
        return "tensor-map-box", f"box has {len(box)} dims for a rank-{rank} tensor"
    for d, b in enumerate(box):
        if not 1 <= b <= TMA_MAX_BOX:
            return "tensor-map-box", f"box dim {d} is {b}; TMA boxes are 1 to {TMA_MAX_BOX} elements per dim"
    ebytes = element_bits(elem) // 8
    inner = box[-1] * ebytes
    if inner % TMA_STRIDE_ALIGN:
        return "tensor-map-box", (f"the inner box row is {box[-1]} x {ebytes} B = {inner} B; TMA needs a "
                                  f"multiple of {TMA_STRIDE_ALIGN} B")
    span = TMA_SWIZZLE_SPAN[swizzle]
    if span is not None and inner > span:
        return "tensor-map-swizzle", f"the inner box row is {inner} B, more than the {swizzle} swizzle span"
    stride = ebytes
    for d in range(rank - 1, 0, -1):
        stride *= shape[d]
        if stride % TMA_STRIDE_ALIGN or stride >= 1 << 40:
            return "tensor-map-stride", (f"dim {d - 1} has a stride of {stride} B; TMA global strides are "
                                         f"multiples of {TMA_STRIDE_ALIGN} B below 2^40")
    if oob_fill == OobFill.NAN and dtype not in _TMA_FLOAT_TYPES:
        return "tensor-map-oob-fill", f"oob_fill = \"nan\" needs a floating-point type, not {elem}"
    return None
