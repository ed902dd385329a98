"""Shared-memory swizzles, the swizzle-composed layout, and the K-major MMA/TMA layout builder.

Swizzles act on BYTE addresses of axis `m` (CuTe `Swizzle<B, M, S>`: bits [M, M+B) ^= bits [M+S, M+S+B)):

    mode           text            <B,M,S>   atom_bytes  row_pitch  descriptor code (tcgen05.cp/mma)
    NONE           none            <0,4,3>        16        16      0
    B32            32B             <1,4,3>       256        32      6
    B64            64B             <2,4,3>       512        64      4
    B128           128B            <3,4,3>      1024       128      2
    B128_BASE32B   128B_base32B    <2,5,2>       512       128      1

`atom_bytes` is the swizzle's repeat (the alignment a swizzled buffer needs); NONE's "atom" is one 16-byte
chunk. `row_pitch` is the byte step between the 8 rows of a K-major atom. 128B_base32B has rows of 128 B
too, but it XORs 32-byte granules and repeats every 4 rows (512 B); it is an MN-major MMA mode
(docs/tcgen05.md §5), so `kmajor_layout` refuses it.

`ComposedLayout(swizzle, inner)` is `swizzle o inner`: a logical coordinate maps through `inner` to an
element offset on m, that offset becomes a byte address (offset * bits / 8) and the swizzle permutes it.
Sub-byte elements (4- or 6-bit): the byte address is floor(offset * bits / 8) and the element starts at bit
(offset * bits) % 8 of that byte; the swizzle moves whole 16-byte chunks, so the bit position is kept
(`apply_bits`). Text: `Swizzle<128B> o S[(32, 128) : (128, 1)]`.
"""

from __future__ import annotations

import enum
import math
from typing import Sequence

from .args import int_tuple
from .axis import LayoutError, m
from .base import Layout
from .tile_layout import Iter, TileLayout

__all__ = ["SwizzleMode", "swizzle_bytes", "atom_bytes", "row_pitch", "swizzle_params",
           "ComposedLayout", "kmajor_layout"]


class SwizzleMode(enum.Enum):
    NONE = "none"
    B32 = "32B"
    B64 = "64B"
    B128 = "128B"
    B128_BASE32B = "128B_base32B"

    @classmethod
    def parse(cls, text: str) -> "SwizzleMode":
        for mode in cls:
            if mode.value == text:
                return mode
        raise LayoutError(f"unknown swizzle mode {text!r}; expected one of "
                          + ", ".join(mo.value for mo in cls))

    def __str__(self) -> str:
        return self.value


_PARAMS = {  # mode -> (B, M, S, row pitch in bytes)
    SwizzleMode.NONE: (0, 4, 3, 16),
    SwizzleMode.B32: (1, 4, 3, 32),
    SwizzleMode.B64: (2, 4, 3, 64),
    SwizzleMode.B128: (3, 4, 3, 128),
    SwizzleMode.B128_BASE32B: (2, 5, 2, 128),
}


def swizzle_params(mode: SwizzleMode) -> tuple[int, int, int]:
    """CuTe's (B, M, S)."""
    b, mm, s, _ = _PARAMS[mode]
    return b, mm, s


def swizzle_bytes(mode: SwizzleMode, byte_addr: int) -> int:
    """The physical byte address of linear byte address `byte_addr` under `mode` (an involution)."""
    b, mm, s, _ = _PARAMS[mode]
    mask = ((1 << b) - 1) << (mm + s)
    return byte_addr ^ ((byte_addr & mask) >> s)


def atom_bytes(mode: SwizzleMode) -> int:
    """The swizzle's repeat in bytes: 16 / 256 / 512 / 1024 / 512."""
    if mode is SwizzleMode.NONE:
        return 16
    b, mm, s, _ = _PARAMS[mode]
    return 1 << (b + mm + s)


def row_pitch(mode: SwizzleMode) -> int:
    """Byte step between consecutive rows of a K-major atom: 16 / 32 / 64 / 128 / 128."""
    return _PARAMS[mode][3]


class ComposedLayout(Layout):
    """`swizzle o inner`: `inner` gives element offsets on m; the swizzle permutes their byte addresses."""

    __slots__ = ("_swizzle", "_inner")

    def __init__(self, swizzle: SwizzleMode, inner: TileLayout):
        if not isinstance(swizzle, SwizzleMode):
            raise LayoutError(f"swizzle must be a SwizzleMode, got {swizzle!r}")
        if not isinstance(inner, TileLayout):
            raise LayoutError(f"inner must be a TileLayout, got {inner!r}")
        object.__setattr__(self, "_swizzle", swizzle)
        object.__setattr__(self, "_inner", inner)

    def __setattr__(self, name, value):
        raise AttributeError("ComposedLayout is immutable")

    def __reduce__(self):
        return (ComposedLayout, (self._swizzle, self._inner))

    @property
    def swizzle(self) -> SwizzleMode:
        return self._swizzle

    @property
    def inner(self) -> TileLayout:
        return self._inner

    def __eq__(self, other) -> bool:
        if not isinstance(other, ComposedLayout):
            return NotImplemented
        return self._swizzle is other._swizzle and self._inner == other._inner

    def __hash__(self) -> int:
        return hash((self._swizzle, self._inner))

    def __str__(self) -> str:
        return f"Swizzle<{self._swizzle.value}> o {self._inner}"

    def __repr__(self) -> str:
        return f"ComposedLayout({self})"

    # -- the map -----------------------------------------------------------------------------------
    def apply_bits(self, coord, shape: Sequence[int] | None = None, elem_bits: int = 8) -> list[int]:
        """Physical bit addresses of `coord` (one per replica index)."""
        out = []
        for d in self._inner.apply(coord, shape):
            bit = d.get(m, 0) * elem_bits
            out.append(swizzle_bytes(self._swizzle, bit // 8) * 8 + bit % 8)
        return out

    def apply(self, coord, shape: Sequence[int] | None = None, elem_bits: int = 8) -> list[int]:
        """Physical byte addresses of `coord` (one per replica index): swizzle(m_offset * bits / 8)."""
        return [b // 8 for b in self.apply_bits(coord, shape, elem_bits)]

    # -- transformations act on the inner layout and keep the swizzle ------------------------------
    def _wrap(self, inner: TileLayout) -> "ComposedLayout":
        return ComposedLayout(self._swizzle, inner)

    def canonicalize(self) -> "ComposedLayout":
        return self._wrap(self._inner.canonicalize())

    def slice(self, shape, region) -> "ComposedLayout":
        return self._wrap(self._inner.slice(shape, region))

    def group(self, shape) -> tuple["ComposedLayout", tuple[int, ...]]:
        inner, seps = self._inner.group(shape)
        return self._wrap(inner), seps

    def permute(self, perm) -> "ComposedLayout":
        return self._wrap(self._inner.permute(perm))

    permute_dims = permute

    def permute_by_groups(self, seps, perm) -> "ComposedLayout":
        return self._wrap(self._inner.permute_by_groups(seps, perm))

    def shard_extent(self) -> int:
        return self._inner.shard_extent()

    def size(self) -> int:
        return self._inner.size()


def kmajor_layout(shape: Sequence[int], elem_bits: int, mode: SwizzleMode) -> "ComposedLayout | TileLayout":
    """The K-major MMA/TMA shared-memory layout of logical shape [..., M, K] (TVM's mma_shared_layout).

    With row pitch P bytes, atom K = P * 8 / bits elements. Memory order: inside an atom 8 rows x P bytes,
    row-major; row groups stacked along M (8 * P bytes apart); then K-atoms (M * P bytes apart); leading
    dims outermost. In elements: M -> (M):(atomK), K -> (K/atomK, atomK):(M*atomK, 1); extent-1 iters are
    left out. NONE gives plain row-major S[shape].
    """
    shape = int_tuple(shape, "kmajor_layout(shape, ...): shape")
    if len(shape) < 2 or any(d < 1 for d in shape):
        raise LayoutError(f"kmajor_layout needs a shape [..., M, K] of positive dims, got {list(shape)}")
    if mode is SwizzleMode.NONE:
        return TileLayout([Iter(e, math.prod(shape[i + 1:]), m) for i, e in enumerate(shape)])
    if mode is SwizzleMode.B128_BASE32B:
        raise LayoutError("128B_base32B swizzle is MN-major only; it has no K-major layout")
    pitch = row_pitch(mode)
    if (pitch * 8) % elem_bits:
        raise LayoutError(f"{elem_bits}-bit elements do not tile a {pitch}-byte swizzle row")
    atom_k = pitch * 8 // elem_bits
    *lead, rows, k = shape
    if k % atom_k:
        raise LayoutError(f"K = {k} is not a multiple of the {mode.value} atom's {atom_k} elements")
    if rows % 8:
        raise LayoutError(f"M = {rows} is not a multiple of the 8 rows of a swizzle atom")
    tile = rows * k
    iters = [Iter(e, tile * math.prod(lead[i + 1:]), m) for i, e in enumerate(lead)]
    iters += [Iter(rows, atom_k, m), Iter(k // atom_k, rows * atom_k, m), Iter(atom_k, 1, m)]
    return ComposedLayout(mode, TileLayout([it for it in iters if it.extent > 1]))
