"""Layouts evaluated over every element of a buffer at once (numpy), for the gemm planners: they check a
buffer's layout against the canonical form an instruction reads, element by element, instead of
pattern-matching its iters (any layout that maps the elements to the same places is accepted)."""
from __future__ import annotations

import math
from typing import Sequence

from ...lazy import numpy as np  # imported at first use (tile-opt --help never calls it)

from ...layout import Axis, TileLayout
from ...layout.fragment import offsets_table

__all__ = ["axis_offsets", "replica_offsets"]


def axis_offsets(layout: TileLayout, shape: Sequence[int]) -> dict[Axis, np.ndarray]:
    """{axis: int64 array of `shape`}: the offset on each axis the layout names, of every logical element
    (replica index 0, the layout's offset included)."""
    n = math.prod(shape)
    if layout.shard_extent() != n:
        raise ValueError(f"layout {layout} has {layout.shard_extent()} elements, the buffer {n}")
    return {a: v.reshape(tuple(shape)) for a, v in offsets_table(layout).items()}


def replica_offsets(layout: TileLayout) -> list[dict[Axis, int]]:
    """The offset each replica index adds, row-major over the replica iters (one empty dict: none)."""
    combos: list[dict[Axis, int]] = [{}]
    for it in layout.replica:
        combos = [{**c, it.axis: c.get(it.axis, 0) + i * it.stride} for c in combos for i in range(it.extent)]
    return combos
