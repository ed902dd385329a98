"""TileLayout: a map from a buffer's logical coordinate to offsets on named axes.

A layout has three parts:

- shard   `S[(e0, e1, ...) : (s0, s1, ...)]`: iters ordered outer -> inner. A logical flat index i
          (row-major over the shard extents) decomposes into iter coordinates c_k, and contributes
          c_k * s_k on iter k's axis. A buffer shape is matched to the shard by `group(shape)`; row-major
          over the shape equals row-major over the shard, so grouping never changes the map.
- replica `R[(r0, ...) : (t0, ...)]`: every replica index adds another full copy, at r_k * t_k.
- offset  `O[(o0, o1@TLane, ...)]`: a constant added on each axis (slicing produces offsets).

Text (the canonical form, exactly what `str` prints; `parse_layout` reads it back):

    S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[(64, 8@TCol)]

A one-element tuple prints bare (`R[4 : 32@TLane]`, `O[8@TCol]`), strides on axis `m` print without
`@m`, parts that are empty are left out (an all-empty layout prints `S[() : ()]`), and offsets are
sorted m, TLane, TCol, then other axes by name. Python spelling: `S[(32, 16) : (16, 1)]`, `S[64]`
(row-major over m), `S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane] + O[8 @ TCol]`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from . import args as _args
from .axis import Axis, AxisValue, LayoutError, as_axis_value, m
from .base import Layout

__all__ = ["Iter", "TileLayout", "S", "R", "O", "from_iters", "AxisOffsets"]


class AxisOffsets(dict):
    """What `apply` returns: axis -> offset. A missing axis reads as 0, and equality ignores zero entries,
    so layouts that differ only by an axis they never move along (a dropped extent-1 iter, a slice to
    one point) compare equal."""

    def __missing__(self, axis):
        return 0

    def _nonzero(self):
        return {a: v for a, v in self.items() if v != 0}

    def __eq__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        return self._nonzero() == {a: v for a, v in other.items() if v != 0}

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None


@dataclass(frozen=True)
class Iter:
    """One (extent, stride, axis) factor of a layout."""

    extent: int
    stride: int
    axis: Axis = m

    def __post_init__(self):
        if isinstance(self.extent, bool) or not isinstance(self.extent, int) or self.extent < 1:
            raise LayoutError(f"iter extent must be a positive int, got {self.extent!r}")
        if isinstance(self.stride, bool) or not isinstance(self.stride, int):
            raise LayoutError(f"iter stride must be an int, got {self.stride!r}")
        if not isinstance(self.axis, Axis):
            raise LayoutError(f"iter axis must be an Axis, got {self.axis!r}")

    @property
    def stride_text(self) -> str:
        return str(AxisValue(self.stride, self.axis))

    def __str__(self) -> str:
        return f"({self.extent}, {self.stride_text})"


def _tuple_text(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else "(" + ", ".join(items) + ")"


def _iters_text(tag: str, iters: Sequence[Iter]) -> str:
    return (f"{tag}[{_tuple_text([str(it.extent) for it in iters])} : "
            f"{_tuple_text([it.stride_text for it in iters])}]")


def _normalize_offset(offset) -> tuple[tuple[Axis, int], ...]:
    if not offset:
        return ()
    # (a duck-typed test: isinstance against typing's Mapping ABC is slow on this hot path)
    items = offset.items() if hasattr(offset, "items") else offset
    acc: dict[Axis, int] = {}
    for ax, val in items:
        if not isinstance(ax, Axis):
            raise LayoutError(f"offset key must be an Axis, got {ax!r}")
        if isinstance(val, bool) or not isinstance(val, int):
            raise LayoutError(f"offset on {ax} must be an int, got {val!r}")
        acc[ax] = acc.get(ax, 0) + val
    return tuple(sorted(((a, v) for a, v in acc.items() if v != 0), key=lambda p: p[0].sort_key))


def _fuse(iters: Iterable[Iter]) -> tuple[Iter, ...]:
    """Drop extent-1 iters; fuse outer (e1, s1, a), inner (e2, s2, a) when s1 == e2 * s2."""
    out: list[Iter] = []
    for it in iters:
        if it.extent == 1:
            continue
        if out and out[-1].axis is it.axis and out[-1].stride == it.extent * it.stride:
            out[-1] = Iter(out[-1].extent * it.extent, it.stride, it.axis)
        else:
            out.append(it)
    return tuple(out)


def _unflatten(index: int, extents: Sequence[int]) -> list[int]:
    coords = [0] * len(extents)
    for k in range(len(extents) - 1, -1, -1):
        index, coords[k] = divmod(index, extents[k])
    return coords


class TileLayout(Layout):
    """An immutable, hashable layout: shard iters, replica iters and a per-axis offset."""

    __slots__ = ("_shard", "_replica", "_offset", "_hash")

    def __init__(self, shard: "Sequence[Iter] | TileLayout" = (), replica: Sequence[Iter] = (),
                 offset: Mapping[Axis, int] | None = None):
        if isinstance(shard, TileLayout):  # TileLayout(S[...] + R[...]) copies, as TVM spells it
            if replica or offset:
                raise LayoutError("TileLayout(layout) takes no further replica or offset")
            shard, replica, offset = shard.shard, shard.replica, shard.offset
        shard_t, replica_t = tuple(shard), tuple(replica)
        for it in shard_t + replica_t:
            if type(it) is not Iter and not isinstance(it, Iter):
                raise LayoutError(f"layout iters must be Iter, got {it!r}")
        object.__setattr__(self, "_shard", shard_t)
        object.__setattr__(self, "_replica", replica_t)
        object.__setattr__(self, "_offset", _normalize_offset(offset))
        object.__setattr__(self, "_hash", None)  # computed on first use: most layouts are never hashed

    def __setattr__(self, name, value):
        raise AttributeError("TileLayout is immutable")

    def __reduce__(self):
        return (TileLayout, (self._shard, self._replica, dict(self._offset)))

    # -- accessors ---------------------------------------------------------------------------------
    @property
    def shard(self) -> tuple[Iter, ...]:
        return self._shard

    @property
    def replica(self) -> tuple[Iter, ...]:
        return self._replica

    @property
    def offset(self) -> Mapping[Axis, int]:
        """Nonzero offsets only; missing axes are 0."""
        return MappingProxyType(dict(self._offset))

    def offset_on(self, axis: Axis) -> int:
        for a, v in self._offset:
            if a is axis:
                return v
        return 0

    def shard_extent(self) -> int:
        """Number of logical elements (product of the shard extents)."""
        return math.prod(it.extent for it in self._shard)

    def replica_extent(self) -> int:
        return math.prod(it.extent for it in self._replica)

    def size(self) -> int:
        """Number of physical placements: shard extent times replica extent."""
        return self.shard_extent() * self.replica_extent()

    def axes(self) -> tuple[Axis, ...]:
        """Every axis the layout mentions, in sort order."""
        found = {it.axis for it in self._shard + self._replica} | {a for a, _ in self._offset}
        return tuple(sorted(found, key=lambda a: a.sort_key))

    def span(self, axis: Axis = m) -> int:
        """1 + the largest offset on `axis` over all coordinates and replicas (for nonnegative strides)."""
        hi = self.offset_on(axis)
        for it in self._shard + self._replica:
            if it.axis is axis and it.stride > 0:
                hi += (it.extent - 1) * it.stride
        return hi + 1

    # -- equality and text -------------------------------------------------------------------------
    def __eq__(self, other) -> bool:
        if not isinstance(other, TileLayout):
            return NotImplemented
        return (self._shard, self._replica, self._offset) == (other._shard, other._replica, other._offset)

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash((self._shard, self._replica, self._offset)))
        return self._hash

    def __str__(self) -> str:
        parts = []
        if self._shard or not (self._replica or self._offset):
            parts.append(_iters_text("S", self._shard) if self._shard else "S[() : ()]")
        if self._replica:
            parts.append(_iters_text("R", self._replica))
        if self._offset:
            parts.append("O[" + _tuple_text([str(AxisValue(v, a)) for a, v in self._offset]) + "]")
        return " + ".join(parts)

    def replica_text(self) -> str:
        """The replica part alone, or "no replica"."""
        return _iters_text("R", self._replica) if self._replica else "no replica"

    def __repr__(self) -> str:
        return f"TileLayout({self})"

    def __add__(self, other: "TileLayout") -> "TileLayout":
        """Combine parts: S[...] + R[...] + O[...]. Replicas concatenate, offsets add; two shards do not
        combine (which would be outer?), so that raises."""
        if not isinstance(other, TileLayout):
            return NotImplemented
        if self._shard and other._shard:
            raise LayoutError(f"cannot add two shard parts: {self} + {other}")
        offs = dict(self._offset)
        for a, v in other._offset:
            offs[a] = offs.get(a, 0) + v
        return TileLayout(self._shard or other._shard, self._replica + other._replica, offs)

    # -- the map -----------------------------------------------------------------------------------
    def apply(self, coord, shape: Sequence[int] | None = None) -> list[AxisOffsets]:
        """Offsets of logical `coord`: one dict per replica index (row-major over replica iters).

        `coord` is a flat index into the shard extent, or a tuple in `shape` (default: the shard extents).
        Each dict (an AxisOffsets: missing axes read as 0, zeros are ignored by ==) has every axis the
        layout mentions, the offset part included.
        """
        flat = self._flat_index(coord, shape)
        base = AxisOffsets((a, 0) for a in self.axes())
        for a, v in self._offset:
            base[a] += v
        for it, c in zip(self._shard, _unflatten(flat, [it.extent for it in self._shard])):
            base[it.axis] += c * it.stride
        rep_ext = [it.extent for it in self._replica]
        out = []
        for r in range(math.prod(rep_ext)):
            d = AxisOffsets(base)
            for it, c in zip(self._replica, _unflatten(r, rep_ext)):
                d[it.axis] += c * it.stride
            out.append(d)
        return out

    def _flat_index(self, coord, shape) -> int:
        total = self.shard_extent()
        coord, shape = _args.coordinate(coord, shape)
        if isinstance(coord, int):
            if shape is not None and math.prod(shape) != total:
                raise LayoutError(f"shape {tuple(shape)} has {math.prod(shape)} elements, layout has {total}")
            if not 0 <= coord < total:
                raise LayoutError(f"flat index {coord} out of range [0, {total})")
            return coord
        coord = tuple(coord)
        shape = tuple(it.extent for it in self._shard) if shape is None else tuple(shape)
        if math.prod(shape) != total:
            raise LayoutError(f"shape {shape} has {math.prod(shape)} elements, layout has {total}")
        if len(coord) != len(shape):
            raise LayoutError(f"coordinate {coord} has {len(coord)} dims, shape {shape} has {len(shape)}")
        flat = 0
        for c, e in zip(coord, shape):
            if not 0 <= c < e:
                raise LayoutError(f"coordinate {coord} out of bounds for shape {shape}")
            flat = flat * e + c
        return flat

    # -- transformations ---------------------------------------------------------------------------
    def canonicalize(self) -> "TileLayout":
        """Drop extent-1 iters and fuse contiguous neighbours; `apply` is unchanged."""
        return TileLayout(_fuse(self._shard), _fuse(self._replica), dict(self._offset))

    def group(self, shape: Sequence[int]) -> tuple["TileLayout", tuple[int, ...]]:
        """Split shard iters so they group onto the dims of `shape`.

        Returns (layout, seps): dim d owns `layout.shard[seps[d]:seps[d+1]]`. An iter (e, s) that a dim
        boundary cuts at factor f becomes (e/f, f*s), (f, s). Raises LayoutError if a boundary falls
        between non-divisible factors or the element counts differ.
        """
        shape = _args.int_tuple(shape, "group(shape): shape")
        if any(d < 1 for d in shape):
            raise LayoutError(f"shape {shape} has a non-positive dim")
        if math.prod(shape) != self.shard_extent():
            raise LayoutError(f"cannot group {self} onto shape {shape}: {math.prod(shape)} elements, "
                              f"layout has {self.shard_extent()}")
        pending = list(self._shard)
        out: list[Iter] = []
        seps = [0]
        for d, extent in enumerate(shape):
            rem = extent
            while rem > 1:
                it = pending.pop(0)
                if rem % it.extent == 0:
                    out.append(it)
                    rem //= it.extent
                elif it.extent % rem == 0:
                    f = it.extent // rem
                    out.append(Iter(rem, it.stride * f, it.axis))
                    pending.insert(0, Iter(f, it.stride, it.axis))
                    rem = 1
                else:
                    raise LayoutError(
                        f"cannot group {self} onto shape {shape}: dim {d} (extent {extent}) needs a "
                        f"factor {rem} from iter {it}, which neither divides nor is divided by it")
            seps.append(len(out))
        if shape:  # trailing extent-1 iters join the last dim
            out.extend(pending)
            seps[-1] = len(out)
        return TileLayout(out, self._replica, dict(self._offset)), tuple(seps)

    def permute(self, perm: Sequence[int]) -> "TileLayout":
        """New shard[i] = shard[perm[i]]."""
        perm = _args.int_tuple(perm, "permute(perm): perm")
        if sorted(perm) != list(range(len(self._shard))):
            raise LayoutError(f"{perm} is not a permutation of the {len(self._shard)} shard iters")
        return TileLayout([self._shard[p] for p in perm], self._replica, dict(self._offset))

    permute_dims = permute

    def permute_by_groups(self, seps: Sequence[int], perm: Sequence[int]) -> "TileLayout":
        """Reorder groups of shard iters: group i is shard[seps[i]:seps[i+1]]; new order perm."""
        seps = _args.int_tuple(seps, "permute_by_groups(seps, perm): seps")
        perm = _args.int_tuple(perm, "permute_by_groups(seps, perm): perm")
        if not seps or seps[0] != 0 or seps[-1] != len(self._shard) or list(seps) != sorted(seps):
            raise LayoutError(f"bad group separators {seps} for {len(self._shard)} shard iters")
        groups = [self._shard[seps[i]:seps[i + 1]] for i in range(len(seps) - 1)]
        if sorted(perm) != list(range(len(groups))):
            raise LayoutError(f"{tuple(perm)} is not a permutation of {len(groups)} groups")
        return TileLayout([it for p in perm for it in groups[p]], self._replica, dict(self._offset))

    def slice(self, shape: Sequence[int], region: Sequence[Sequence[int]]) -> "TileLayout":
        """The layout of the sub-buffer `region` ((begin, end) per dim of `shape`).

        `result.apply(x, region_shape) == self.apply(x + begin, shape)`; the region start becomes offset.
        Per dim (its iters canonicalized), innermost iter first, the region [b, b+n) must cover whole
        inner iters and then a contiguous, non-wrapping range of one iter; the rest is a single point.
        """
        shape = _args.int_tuple(shape, "slice(shape, region): shape")
        region = _args.region(region, len(shape))
        grouped, seps = self.group(shape)
        offs = dict(self._offset)
        new_shard: list[Iter] = []
        for d, ((b, e), extent) in enumerate(zip(region, shape)):
            if not 0 <= b < e <= extent:
                raise LayoutError(f"region [{b}, {e}) of dim {d} is empty or outside [0, {extent})")
            iters = _fuse(grouped.shard[seps[d]:seps[d + 1]])
            new_shard.extend(_slice_dim(d, iters, b, e, offs))
        return TileLayout(new_shard, self._replica, offs)


def _slice_dim(d: int, iters: tuple[Iter, ...], begin: int, end: int, offs: dict) -> list[Iter]:
    """Slice one dim's canonical iters to [begin, end); adds the start into `offs`; returns iters."""
    b, n = begin, end - begin
    kept: list[Iter] = []  # inner first
    k = len(iters) - 1
    while k >= 0 and n > 1:
        it = iters[k]
        if b % it.extent == 0 and n % it.extent == 0:  # whole copies of this iter
            kept.append(it)
            b //= it.extent
            n //= it.extent
            k -= 1
            continue
        lo = b % it.extent
        if lo + n > it.extent:
            if n <= it.extent:
                what = f"needs indices [{lo}, {lo + n}) of its {it.extent}, which wraps past its end"
            else:
                what = (f"needs {n} indices from index {lo}, which are not whole copies of its "
                        f"{it.extent} (start and length must be multiples of {it.extent})")
            shown = ", ".join(str(i) for i in iters)
            raise LayoutError(
                f"region [{begin}, {end}) of dim {d} cuts iter {it}: past the inner iters the region "
                f"{what}, so it is not a strided sub-range of the dim (dim iters: {shown})")
        kept.append(Iter(n, it.stride, it.axis))
        offs[it.axis] = offs.get(it.axis, 0) + lo * it.stride
        b //= it.extent
        n = 1
        k -= 1
    # The remaining outer iters see a single coordinate b.
    outer = iters[:k + 1]
    for it, c in zip(outer, _unflatten(b, [it.extent for it in outer])):
        offs[it.axis] = offs.get(it.axis, 0) + c * it.stride
    return list(reversed(kept))


def from_iters(shard: Iterable[Iter], replica: Iterable[Iter] = (),
               offset: Mapping[Axis, int] | None = None) -> TileLayout:
    return TileLayout(tuple(shard), tuple(replica), offset)


TileLayout.from_iters = staticmethod(from_iters)  # type: ignore[attr-defined]


# -- Python spelling: S[...], R[...], O[...] -----------------------------------------------------------
def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _row_major(extents: Sequence[int]) -> list[int]:
    strides, acc = [], 1
    for e in reversed(extents):
        strides.append(acc)
        acc *= e
    return list(reversed(strides))


def _build_iters(tag: str, key, allow_default: bool) -> tuple[Iter, ...]:
    if isinstance(key, slice):
        if key.step is not None:
            raise LayoutError(f"{tag}[shape : strides] takes no step")
        extents, strides = _as_tuple(key.start), _as_tuple(key.stop)
        if len(extents) != len(strides):
            raise LayoutError(f"{tag}[...] has {len(extents)} extents but {len(strides)} strides")
    elif allow_default:
        extents = _as_tuple(key)
        strides = _row_major([int(e) for e in extents])
    else:
        raise LayoutError(f"{tag}[...] needs strides: {tag}[extents : strides]")
    iters = []
    for e, s in zip(extents, strides):
        v = as_axis_value(s)
        iters.append(Iter(int(e), v.value, v.axis))
    return tuple(iters)


class _ShardMaker:
    def __getitem__(self, key) -> TileLayout:
        return TileLayout(_build_iters("S", key, allow_default=True))

    def __repr__(self):
        return "S"


class _ReplicaMaker:
    def __getitem__(self, key) -> TileLayout:
        return TileLayout((), _build_iters("R", key, allow_default=False))

    def __repr__(self):
        return "R"


class _OffsetMaker:
    def __getitem__(self, key) -> TileLayout:
        offs: dict[Axis, int] = {}
        for x in _as_tuple(key):
            v = as_axis_value(x)
            offs[v.axis] = offs.get(v.axis, 0) + v.value
        return TileLayout((), (), offs)

    def __repr__(self):
        return "O"


S = _ShardMaker()
R = _ReplicaMaker()
O = _OffsetMaker()  # noqa: E741
