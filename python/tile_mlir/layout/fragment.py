"""Register fragments: a layout over the axes `warpid`, `laneid` and `reg`, enumerated element by element.

A register tile's layout says, for every logical element, which thread holds it (warpid, laneid) and in
which register slot (`reg`, in elements: a 32-bit register holds 32 / bits of them). `fragment_of`
checks such a layout and tabulates it; `offsets_table` tabulates any layout (a tmem or a memory side)
the same way, so planners compare the two sides elementwise (docs/registers.md §1).

Tables are numpy arrays indexed by the logical flat index (row-major over the shard extents, which is
row-major over the buffer's shape for every grouping).
"""

from __future__ import annotations

from dataclasses import dataclass

from .axis import Axis, LayoutError, laneid, reg, warpid
from .tile_layout import TileLayout

__all__ = ["Fragment", "FragmentError", "fragment_of", "first_replica_masks", "offsets_table", "REGISTER_AXES", "WARP_SIZE"]

REGISTER_AXES = (warpid, laneid, reg)
WARP_SIZE = 32


class FragmentError(LayoutError):
    """A layout that is not a register fragment; the message says why."""


def offsets_table(layout: TileLayout) -> dict[Axis, np.ndarray]:
    """axis -> int64 array over the logical flat index: the layout's offset on that axis (replica 0)."""
    import numpy as np  # at first use: tile-opt --help imports layout/, never calls this
    n = layout.shard_extent()
    flat = np.arange(n, dtype=np.int64)
    out = {a: np.full(n, layout.offset_on(a), dtype=np.int64) for a in layout.axes()}
    inner = 1
    for it in reversed(layout.shard):
        out[it.axis] += (flat // inner) % it.extent * it.stride
        inner *= it.extent
    return out


@dataclass(frozen=True, eq=False)
class Fragment:
    """Who holds each logical element: `warp`, `lane`, `slot` (element slot in the thread's registers)."""

    warp: np.ndarray
    lane: np.ndarray
    slot: np.ndarray
    # the logical flat index of each entry: None for one entry per element in order; with replicas
    # (fragment_of(..., replicas=True)) one entry per (replica, element), replica-major
    elem: np.ndarray | None = None

    @property
    def warps(self) -> tuple[int, ...]:
        """The warps that hold elements, ascending."""
        import numpy as np  # at first use: tile-opt --help imports layout/, never calls this
        return tuple(int(w) for w in np.unique(self.warp))

    @property
    def slots_per_thread(self) -> int:
        """1 + the highest register slot any thread uses."""
        return int(self.slot.max()) + 1 if self.slot.size else 0


def fragment_of(layout: TileLayout, *, replicas: bool = False) -> Fragment:
    """Check that `layout` is a register fragment and tabulate it. A fragment maps only onto warpid,
    laneid and reg, has no replica (one holder per element), non-negative strides, lanes below 32, and is
    injective: no two elements share a thread's register slot. With `replicas`, a replica over warpid
    and laneid is allowed (each thread of it holds a copy, in the same slot: a row value that every lane
    of the row holds, docs/registers.md §1), and the table has one entry per (replica, element)."""
    import numpy as np  # at first use: tile-opt --help imports layout/, never calls this
    if not isinstance(layout, TileLayout):
        raise FragmentError("a register layout cannot be swizzled")
    axes = set(layout.axes())
    if not axes <= set(REGISTER_AXES):
        bad = sorted(a.name for a in axes - set(REGISTER_AXES))
        raise FragmentError(f"a register layout maps onto warpid, laneid and reg, got {', '.join(bad)}")
    if layout.replica and not replicas:
        raise FragmentError(f"a register layout has one holder per element here: no replica "
                            f"({layout.replica_text()}; replicated tiles are for the tile.reg ops and tile.copy)")
    for it in layout.replica:
        if it.axis is reg or it.stride <= 0:
            raise FragmentError(f"a replica of a register layout spreads copies over threads with a positive "
                                f"stride on warpid or laneid, got {layout.replica_text()}")
    for it in layout.shard:
        if it.stride < 0:
            raise FragmentError(f"negative stride {it.stride_text} in a register layout")
    for a, v in layout.offset.items():
        if v < 0:
            raise FragmentError(f"negative offset {v}@{a.name} in a register layout")
    if layout.span(laneid) > WARP_SIZE:
        raise FragmentError(f"laneid reaches {layout.span(laneid) - 1}, beyond the {WARP_SIZE} lanes of a warp")
    t = offsets_table(layout)
    zero = np.zeros(layout.shard_extent(), dtype=np.int64)
    frag = Fragment(t.get(warpid, zero), t.get(laneid, zero), t.get(reg, zero))
    if layout.replica:
        frag = _replicate(layout, frag)
    key = (frag.warp * WARP_SIZE + frag.lane) * max(frag.slots_per_thread, 1) + frag.slot
    if np.unique(key).size != key.size:
        dup = _first_duplicate(key)
        raise FragmentError(f"elements {dup[0]} and {dup[1]} (flat indices) share warp {int(frag.warp[dup[0]])} "
                            f"lane {int(frag.lane[dup[0]])} slot {int(frag.slot[dup[0]])}: a register layout "
                            "must be injective")
    return frag


def first_replica_masks(layout: TileLayout) -> tuple[int, int]:
    """(lane mask, warp mask) whose bits are zero exactly in the threads that hold replica 0 of a replicated
    register layout (its replicas power-of-two extents at power-of-two strides, on bits no shard iter
    uses): the one writer of each element when the tile is stored. (0, 0) without replicas."""
    import numpy as np  # at first use: tile-opt --help imports layout/, never calls this
    masks = {laneid: 0, warpid: 0}
    for it in layout.replica:
        e, st = it.extent, it.stride
        if e & (e - 1) or st & (st - 1):
            raise FragmentError(f"replica {layout.replica_text()}: a store picks replica 0 by thread bits, so each "
                                "replica needs a power-of-two extent and stride")
        masks[it.axis] |= (e - 1) * st
    frag = fragment_of(layout, replicas=True)
    n = layout.shard_extent()
    first = np.zeros(frag.slot.size, dtype=bool)
    first[:n] = True
    picked = ((frag.lane & masks[laneid]) == 0) & ((frag.warp & masks[warpid]) == 0)
    if not (picked == first).all():
        raise FragmentError(f"replica {layout.replica_text()} shares thread bits with the shard: replica 0's "
                            "holders are not those with the replica's bits zero")
    return masks[laneid], masks[warpid]


def _replicate(layout: TileLayout, frag: Fragment) -> Fragment:
    """frag (replica 0) repeated at every replica index's offsets, replica-major."""
    import numpy as np  # at first use: tile-opt --help imports layout/, never calls this
    n = frag.slot.size
    shifts = {warpid: np.zeros(1, dtype=np.int64), laneid: np.zeros(1, dtype=np.int64)}
    for it in layout.replica:  # row-major over the replica iters
        for a in shifts:
            shifts[a] = (shifts[a][:, None] + np.arange(it.extent) * (it.stride if it.axis is a else 0)).ravel()
    warp = (frag.warp[None, :] + shifts[warpid][:, None]).ravel()
    lane = (frag.lane[None, :] + shifts[laneid][:, None]).ravel()
    return Fragment(warp, lane, np.tile(frag.slot, shifts[warpid].size), np.tile(np.arange(n), shifts[warpid].size))


def _first_duplicate(key: np.ndarray) -> tuple[int, int]:
    import numpy as np  # at first use: tile-opt --help imports layout/, never calls this
    order = np.argsort(key, kind="stable")
    same = np.nonzero(key[order][1:] == key[order][:-1])[0][0]
    return int(order[same]), int(order[same + 1])
