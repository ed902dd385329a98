"""`Layout`, the base of the two kinds of layout a buffer type can hold: a `TileLayout` (the map itself) and
a `ComposedLayout` (a swizzle applied to a TileLayout's byte addresses). Code that takes either asks
`.swizzle` (None for a plain TileLayout) and `.inner` (the TileLayout that gives element offsets: the
layout itself when it is plain), never which class it holds."""
from __future__ import annotations

__all__ = ["Layout"]


class Layout:
    """What every layout answers; the layout algebra (apply, slice, canonicalize, group, permute, span,
    size, shard_extent) is each subclass's."""

    __slots__ = ()

    @property
    def swizzle(self):
        """The SwizzleMode applied to byte addresses, or None."""
        return None

    @property
    def inner(self):
        """The TileLayout giving element offsets on m (before any swizzle)."""
        return self
