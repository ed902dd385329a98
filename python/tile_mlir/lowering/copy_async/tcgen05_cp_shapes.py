"""The tcgen05.cp shapes as the planner sees them: which tmem rows each writes (pure Python).

PTX ISA `#tcgen05-data-movement-shape` and `#tcgen05-instructions-tcgen05-cp` (docs/tcgen05.md §7). A
shape is *rows x bits per row*; row r of the copy is read from shared memory through the descriptor
(docs/tcgen05.md §6) and written to the lanes below, 4 columns per 16-byte chunk. In layout terms the
rows are tmem iters (the lanes of row r, offset L0 = taddr's lane field) and the multicast is the tmem
layout's replica, so a tmem layout names its shape:

| shape | rows: tmem iters | replica | lanes of row r |
|---|---|---|---|
| `128x256b` | (128, 1@TLane) | none | L0 + r |
| `128x128b` | (128, 1@TLane) | none | L0 + r |
| `4x256b` | (4, 32@TLane) | none | L0 + 32r |
| `64x128b.warpx2::02_13` | (64, 1@TLane) | R[2 : 64@TLane] | r, r + 64 |
| `64x128b.warpx2::01_23` | (2, 64@TLane), (32, 1@TLane) | R[2 : 32@TLane] | r%32 + 64(r/32) + {0, 32} |
| `32x128b.warpx4` | (32, 1@TLane) | R[4 : 32@TLane] | r + 32k, k < 4 |

The lane field of `taddr` must be 0 where the footprint covers 128 lanes; `.4x256b` may start at any
lane L0 <= 31 (docs/emulator.md A4). The warpx2 reading (both warps of a pair get the same 32 rows) is
CUTLASS's and TVM's, docs/emulator.md A5; the 4x256b lanes are A6.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...layout import Iter, TLane

__all__ = ["CpShape", "CP_SHAPES", "MULTICAST_REPLICAS", "shapes_for_replica", "replica_text"]


@dataclass(frozen=True)
class CpShape:
    """One tcgen05.cp shape: its PTX spelling, rows, 16-byte chunks per row, the tmem iters of its rows,
    the replica its multicast makes and the largest lane field its `taddr` may carry."""

    name: str                   # PTX shape, e.g. "64x128b"
    multicast: str | None       # PTX multicast qualifier, e.g. "warpx2::02_13"
    rows: int
    chunks: int                 # 16-byte chunks per row: 2 for the 256-bit shapes
    lanes: tuple[Iter, ...]     # tmem iters of the rows, canonical, outer first
    replica: tuple[Iter, ...]   # the tmem layout's replica that the multicast writes
    max_lane_offset: int

    @property
    def ptx(self) -> str:
        """`128x256b`, `64x128b.warpx2::02_13`, ...: the instruction's shape and multicast qualifiers."""
        return self.name + (f".{self.multicast}" if self.multicast else "")



_LANES128 = (Iter(128, 1, TLane),)
# wider rows first: where both 128-lane shapes fit, 128x256b copies with half the instructions
CP_SHAPES = (
    CpShape("128x256b", None, 128, 2, _LANES128, (), 0),
    CpShape("128x128b", None, 128, 1, _LANES128, (), 0),
    CpShape("4x256b", None, 4, 2, (Iter(4, 32, TLane),), (), 31),
    CpShape("64x128b", "warpx2::02_13", 64, 1, (Iter(64, 1, TLane),), (Iter(2, 64, TLane),), 0),
    CpShape("64x128b", "warpx2::01_23", 64, 1, (Iter(2, 64, TLane), Iter(32, 1, TLane)),
            (Iter(2, 32, TLane),), 0),
    CpShape("32x128b", "warpx4", 32, 1, (Iter(32, 1, TLane),), (Iter(4, 32, TLane),), 0),
)

# the replicas a tmem layout may carry: one per multicast, and none
MULTICAST_REPLICAS = tuple(dict.fromkeys(s.replica for s in CP_SHAPES))


def shapes_for_replica(replica: tuple[Iter, ...]) -> tuple[CpShape, ...]:
    """The shapes whose multicast writes `replica` (canonical), in preference order."""
    return tuple(s for s in CP_SHAPES if s.replica == tuple(replica))


def replica_text(replica: tuple[Iter, ...]) -> str:
    if not replica:
        return "no replica"
    return " + ".join(f"R[{it.extent} : {it.stride}@{it.axis.name}]" for it in replica)
