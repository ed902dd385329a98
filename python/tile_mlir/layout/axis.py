"""Named axes of the layout algebra, and the `value@axis` quantities built from them.

An axis is a named, interned object: `Axis.get("TLane") is TLane`. Six axes are predefined:

- `m`     memory; unit = one element of the buffer's dtype (shared or global memory).
- `TLane` tensor-memory lane (a TMEM row); unit = one lane.
- `TCol`  tensor-memory column; unit = one element of the buffer's dtype, as in TVM: a 32-bit TMEM
          column holds 32 / bits elements, so a uint8 buffer steps 4 `TCol` units per physical column.

and the three of register fragments (docs/registers.md §1), named as TVM TIRx's fragment layouts and
PTX's %laneid:

- `laneid` the thread's lane in its warp (0..31).
- `warpid` the thread's warp in the CTA: linear thread index / 32 (tile.warp_id; not PTX's %warpid,
          which names a physical warp slot and may change).
- `reg`    the thread's register slot; unit = one element of the buffer's dtype, as `TCol`: a 32-bit
          register holds 32 / bits elements.

New axes are registered on first use (`Axis.get("warp")`, or by the text parser). `int @ axis` builds an
`AxisValue`, the spelling of strides and offsets on a non-memory axis: `1 @ TLane` prints as `1@TLane`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from ..errors import TileMLIRError

__all__ = ["Axis", "AxisValue", "LayoutError", "m", "TLane", "TCol", "laneid", "warpid", "reg", "THREAD_AXES"]


class LayoutError(TileMLIRError, ValueError):
    """A layout that cannot be built, parsed, grouped or sliced. The message says where and why."""


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Axis:
    """An interned, named axis. Compare by identity; order by `sort_key` (m, TLane, TCol, then by name)."""

    __slots__ = ("name", "unit", "_rank")
    _registry: ClassVar[dict[str, "Axis"]] = {}

    def __new__(cls, name: str, unit: str = ""):
        existing = cls._registry.get(name)
        if existing is not None:
            return existing
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise LayoutError(f"invalid axis name {name!r}: expected an identifier")
        obj = super().__new__(cls)
        obj.name = name
        obj.unit = unit
        obj._rank = len(cls._registry) if len(cls._registry) < 3 else 3
        cls._registry[name] = obj
        return obj

    @classmethod
    def get(cls, name: str) -> "Axis":
        """The axis called `name`, registering it if it is new."""
        return cls(name)

    @classmethod
    def lookup(cls, name: str) -> "Axis | None":
        """The axis called `name` if it is registered, else None."""
        return cls._registry.get(name)

    @classmethod
    def registered(cls) -> tuple["Axis", ...]:
        return tuple(cls._registry.values())

    @property
    def sort_key(self) -> tuple[int, str]:
        return (self._rank, self.name)

    def __rmatmul__(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            return NotImplemented
        return AxisValue(int(value), self)

    def __reduce__(self):
        return (Axis.get, (self.name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


m = Axis("m", "elements")
TLane = Axis("TLane", "lanes")
TCol = Axis("TCol", "elements (32/bits per 32-bit column)")
laneid = Axis("laneid", "lanes of a warp")
warpid = Axis("warpid", "warps of the CTA")
reg = Axis("reg", "elements (32/bits per 32-bit register)")
THREAD_AXES = (warpid, laneid)  # which thread holds an element; `reg` says where in that thread


@dataclass(frozen=True)
class AxisValue:
    """`value` units on `axis`; `16 @ TCol`. Strides and offsets on axis `m` may also be plain ints."""

    value: int
    axis: Axis = m

    def __str__(self) -> str:
        return str(self.value) if self.axis is m else f"{self.value}@{self.axis.name}"


def as_axis_value(x) -> AxisValue:
    """Coerce an int (axis m) or an AxisValue."""
    if isinstance(x, AxisValue):
        return x
    if isinstance(x, bool) or not isinstance(x, int):
        try:
            import operator

            x = operator.index(x)
        except TypeError:
            raise LayoutError(f"expected an int or int@Axis, got {x!r}") from None
    return AxisValue(int(x), m)
