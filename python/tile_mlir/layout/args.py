"""Checks of the arguments of the layout functions, so that a wrong arity or type says what was
expected (``L.apply(5, 3)`` used to end in "'int' object is not iterable")."""
from __future__ import annotations

from .axis import LayoutError

__all__ = ["LayoutTypeError", "int_tuple", "coordinate", "region"]


class LayoutTypeError(LayoutError, TypeError):
    """A layout function's argument of the wrong type or arity (a LayoutError and a TypeError)."""


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) or type(x).__name__.startswith(("int", "uint"))


def int_tuple(x, what: str) -> tuple[int, ...]:
    """``x`` as a tuple of ints (a shape, a permutation, separators); else a LayoutTypeError."""
    if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
        hint = f" (one dim: ({x!r},))" if _is_int(x) else ""
        raise LayoutTypeError(f"{what} must be a tuple of ints, got {x!r} ({type(x).__name__}){hint}")
    items = tuple(x)
    bad = [v for v in items if not _is_int(v)]
    if bad:
        raise LayoutTypeError(f"{what} must be a tuple of ints, got {items!r}: {bad[0]!r} is a "
                              f"{type(bad[0]).__name__}")
    return tuple(int(v) for v in items)


def coordinate(coord, shape):
    """apply()'s ``coord`` (a flat int index, or a tuple with one int per dim of ``shape``) and
    ``shape`` (None or a tuple of ints), checked."""
    if shape is not None:
        if _is_int(shape) and _is_int(coord):
            raise LayoutTypeError(
                f"apply(coord, shape): shape must be a tuple of ints, got {shape!r}; a coordinate of "
                f"several dims is one tuple: apply(({coord!r}, {shape!r}))")
        shape = int_tuple(shape, "apply(coord, shape): shape")
    if _is_int(coord):
        return int(coord), shape
    return int_tuple(coord, "apply(coord): coord (a flat index or one int per dim)"), shape


def region(x, rank: int) -> tuple[tuple[int, int], ...]:
    """slice()'s ``region``: one (begin, end) pair of ints per dim."""
    if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
        raise LayoutTypeError(f"slice(shape, region): region must be one (begin, end) pair per dim, "
                              f"got {x!r}")
    items = tuple(x)
    if items and all(_is_int(v) for v in items):
        raise LayoutTypeError(f"slice(shape, region): region must be one (begin, end) pair per dim, "
                              f"got {items!r}; for one dim: ({items!r},)")
    pairs = tuple(int_tuple(r, "slice(shape, region): each region entry") for r in items)
    if any(len(p) != 2 for p in pairs):
        raise LayoutTypeError(f"slice(shape, region): each region entry is (begin, end), got {pairs!r}")
    if len(pairs) != rank:
        raise LayoutError(f"region has {len(pairs)} dims, shape has {rank}")
    return pairs
