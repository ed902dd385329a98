"""The TMA planner: a copy_async between a global tensor and shared memory as one `cp.async.bulk.tensor`
(tile mode, 1D to 5D), from the layout algebra alone. Pure Python, no MLIR (docs/tma.md §3).

Steps (tma.py and the tests name them):
  A. the global tensor: TMA can move its element type; the region's inner start coordinate is a multiple
     of 16 bytes (the H200 faults otherwise: docs/tma.md §6); every start coordinate is below 2^31 (PTX
     tensorCoords are .s32);
  B. the map: a declared tensor map of the global buffer whose box is the region's sizes, or, for a load
     whose region ends at the tensor's edge, larger (TMA fills the rest of the box with zeros), and whose
     swizzle is the shared buffer's;
  C. the shared region is laid out as TMA writes the box: row-major, each inner row one swizzle span
     (the inner box bytes without swizzle), then the swizzle on the absolute address;
  D. the shared start is 128-byte aligned (1024 / 512 / 256 for 128B / 64B / 32B swizzle), and the
     buffer holds the whole box;
  E. the transaction bytes the copy completes on its mbarrier: the whole box, out-of-bounds part included.

`tensor_map_params` derives the cuTensorMapEncodeTiled parameters of a declared map (the Artifact's
TensorMapParam record).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ...dialect.checks import TMA_SWIZZLE_SPAN, tensor_map_problem, tma_data_type
from ...dialect.decline import Decline
from ...dialect.enums import OobFill, Swizzle
from ...dialect.types import element_bits
from ...layout import Iter, LayoutError, SwizzleMode, TileLayout, atom_bytes, m

__all__ = ["DeclaredMap", "TmaPlan", "plan_tma", "tensor_map_params", "SHARED_ALIGN"]

SHARED_ALIGN = 128  # bytes: a cp.async.bulk.tensor shared address (CUDA guide; docs/tma.md §3 D)
# the layout algebra's swizzle modes TMA writes (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B; 16-byte atomicity)
_SWIZZLES = {mode: Swizzle(mode.value) for mode in SwizzleMode if mode.value in Swizzle._value2member_map_}


@dataclass(frozen=True)
class DeclaredMap:
    """A tile.tensor_map of the copy's global buffer: its ordinal among the kernel's maps, box, swizzle."""

    index: int
    box: tuple[int, ...]
    swizzle: str


@dataclass(frozen=True)
class TmaPlan:
    map_index: int
    coords: tuple[int, ...]  # the box's start, innermost dim first (PTX tensorCoords d0, d1, ...)
    smem_offset: int  # bytes from the shared buffer's start to the box's (unswizzled) start
    tx_bytes: int  # E: what the copy's complete_tx counts
    box: tuple[int, ...]  # outermost first, as declared
    swizzle: str


def plan_tma(direction: str, shape: Sequence[int], elem: str, region, smem_layout, smem_shape: Sequence[int],
             smem_region, smem_align: int, maps: Sequence[DeclaredMap]) -> TmaPlan:
    """Plan a TMA `direction` ("load": global -> shared, "store": shared -> global) of global `region`
    ((begin, end) per dim of the row-major `shape` x `elem` tensor) to / from `smem_region` of a shared
    buffer with `smem_layout` over `smem_shape`, aligned `smem_align`. Raises Decline."""
    shape, region = tuple(shape), tuple(tuple(r) for r in region)
    sizes = tuple(e - b for b, e in region)
    ebytes = element_bits(elem) // 8
    # A. element type and inner coordinate
    if tma_data_type(elem) is None:
        raise Decline("tensor-map-dtype", f"TMA cannot move {elem} elements")
    inner_start = region[-1][0] * ebytes
    if inner_start % 16:
        raise Decline("coordinate", f"the region starts {inner_start} B into its inner dim; a TMA box must "
                        "start on a 16-byte multiple there")
    for d, (b, _) in enumerate(region):
        if b >= 1 << 31:
            raise Decline("coordinate", f"the region starts at {b} in dim {d}; TMA coordinates are signed "
                            "32-bit (below 2^31)")
    swizzle_mode = smem_layout.swizzle or SwizzleMode.NONE
    swizzle = _SWIZZLES.get(swizzle_mode)
    if swizzle is None:
        raise Decline("swizzle", f"TMA writes the 32B / 64B / 128B swizzles of 16-byte atomicity, not "
                      f"{swizzle_mode.value}")
    # B. the declared map
    fit = [mp for mp in maps if mp.swizzle == swizzle and _box_fits(direction, shape, region, mp.box)]
    if not fit:
        problem = tensor_map_problem(shape, elem, sizes, swizzle)
        if problem:
            raise Decline(*problem)
        declared = "; ".join(f"box {list(mp.box)} swizzle {mp.swizzle}" for mp in maps) or "none"
        raise Decline("tensor-map", f"needs a tile.tensor_map of the global buffer with box {list(sizes)} and "
                        f"swizzle \"{swizzle}\" (the shared buffer's); declared: {declared}")
    mp = fit[0]
    box = mp.box
    # C. the shared region against TMA's image of the box
    span = TMA_SWIZZLE_SPAN[swizzle] or box[-1] * ebytes  # bytes per inner row
    row = span // ebytes  # in elements
    strides = [1] + [row * math.prod(box[k + 1:-1]) for k in range(len(box) - 2, -1, -1)]
    image = TileLayout([Iter(n, s, m) for n, s in zip(sizes, reversed(strides))])
    inner = smem_layout.inner
    try:
        sliced = inner.slice(tuple(smem_shape), smem_region).canonicalize()
    except LayoutError as e:
        raise Decline("smem-layout", f"the shared region does not slice to a strided layout: {e}") from None
    start = sliced.offset_on(m)
    if TileLayout(sliced.shard).canonicalize() != image.canonicalize():
        raise Decline("smem-layout", f"TMA writes the box as {image.canonicalize()} (rows of {span} B"
                        f"{', swizzled' if swizzle != Swizzle.NONE else ''}), the shared region is "
                        f"{TileLayout(sliced.shard).canonicalize()}")
    # D. alignment and room for the whole box
    need = SHARED_ALIGN if swizzle == Swizzle.NONE else max(SHARED_ALIGN, atom_bytes(swizzle_mode))
    offset = start * ebytes
    if smem_align < need or offset % need:
        raise Decline("smem-alignment", f"TMA needs the shared box at a multiple of {need} B"
                        f"{' (the swizzle repeat)' if need > SHARED_ALIGN else ''}; the buffer is aligned "
                        f"{smem_align} B and the box starts {offset} B into it")
    # the box's last row ends its bytes (the rest of its span is not written), and a swizzle moves 16-byte
    # chunks within their 128-byte line: both ends are compared rounded up to that line
    end = offset + (math.prod(box[:-1]) - 1) * span + box[-1] * ebytes
    have = inner.span(m) * ebytes
    if swizzle != Swizzle.NONE:
        end, have = (-(-x // 128) * 128 for x in (end, have))
    if end > have:
        raise Decline("box-fits", f"TMA writes the whole {list(box)} box (up to byte {end}); the shared "
                        f"buffer has {have} B")
    # E. complete_tx counts the whole box, its out-of-bounds part included
    return TmaPlan(mp.index, tuple(b for b, _ in reversed(region)), offset, math.prod(box) * ebytes, box, swizzle)


def _box_fits(direction: str, shape, region, box) -> bool:
    """B: the region is the box, or (loads) the box clipped by the tensor's upper edge."""
    if len(box) != len(region):
        return False
    for (b, e), n, ext in zip(region, box, shape):
        if e - b != n and not (direction == "load" and e - b < n and e == ext):
            return False
    return True


def tensor_map_params(shape: Sequence[int], elem: str, box: Sequence[int], swizzle: str, l2_promotion: str,
                      oob_fill: str) -> dict:
    """cuTensorMapEncodeTiled's parameters (innermost dim first; strides in bytes) of a verified
    tile.tensor_map, in the names of artifact.TensorMapParam (docs/tma.md §4)."""
    ebytes = element_bits(elem) // 8
    dims = tuple(reversed(tuple(shape)))
    strides = tuple(ebytes * math.prod(dims[:k + 1]) for k in range(len(dims) - 1))
    return {"data_type": tma_data_type(elem), "global_dim": dims, "global_strides": strides,
            "box_dim": tuple(reversed(tuple(box))), "element_strides": (1,) * len(dims), "interleave": "none",
            "swizzle": swizzle.lower(), "l2_promotion": l2_promotion.lower(),
            "oob_fill": "none" if oob_fill == OobFill.ZERO else "nan_request_zero_fma"}
