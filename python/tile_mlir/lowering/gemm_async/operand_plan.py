"""A shared-memory MMA operand: its matrix descriptor fields from the buffer's layout (pure Python).

Both tcgen05.mma and wgmma read an operand tile of MN rows x K (one instruction's K: 256 bits) through a
descriptor (start, LBO, SBO, swizzle) over 8 x 16-byte core matrices. The canonical layouts, in bytes
(T = 16 bytes of elements, S = the swizzle's row bytes 32 / 64 / 128; docs/gemm.md §4, PTX ISA
"Shared memory matrix layout" / tcgen05 "Matrix descriptors"):

    K-major,  no swizzle : addr(mn, k) = start + (mn % 8)*16 + (mn / 8)*SBO + (k / T)*LBO + k % T
    K-major,  swizzled   : addr(mn, k) = start + (mn % 8)*S  + (mn / 8)*SBO + k            (LBO unused: 1)
    MN-major, no swizzle : addr(mn, k) = start + mn % T + (mn / T)*SBO + (k % 8)*16 + (k / 8)*LBO
    MN-major, swizzled   : addr(mn, k) = start + mn % (S/16*T) + (mn / (S/16*T))*LBO + (k % 8)*S + (k / 8)*SBO

then the swizzle XORs the absolute address. The planner evaluates the buffer's layout at every element of
the region (layout_eval), takes the fields from a few elements and checks every element against the
formula: any layout that puts the elements where the instruction reads them is accepted, any other is
declined naming the first element that is elsewhere. K-steps (the op's K split into instructions) must
share LBO, SBO and swizzle, so the emitter advances a descriptor by its start field only.

Checks, in order: `operand-region` (a 2-D tile), `operand-layout` (axis m only, no replica),
`operand-major` (K- or MN-major, and whether this kind / arch may be MN-major), `operand-swizzle` (a mode
the descriptor has, row pitch equal to the swizzle's), `operand-canonical` (every element where the
formula puts it), `operand-alignment` (buffer aligned to the swizzle atom; every start 16-byte aligned and
in row 0 of an atom, so the descriptor's base offset is 0), `operand-fields` (LBO, SBO, start in the
descriptor's 14-bit fields).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...lazy import numpy as np  # imported at first use (tile-opt --help never calls it)

from ...dialect.decline import Decline
from ...layout import ComposedLayout, SwizzleMode, TileLayout, atom_bytes, m, row_pitch
from ..smem_desc import FIELD_LIMIT
from .layout_eval import axis_offsets

__all__ = ["Operand", "SmemOperand", "plan_smem_operand", "matrix_of", "matrix_region", "MODES"]

# The swizzles both descriptors encode. 128B_base32B (tcgen05 only, MN-major tf32's mode) is left out until
# its canonical layout is written down (docs/gemm.md §4).
MODES = (SwizzleMode.NONE, SwizzleMode.B32, SwizzleMode.B64, SwizzleMode.B128)


@dataclass(frozen=True)
class Operand:
    """A decoded operand: scope, element type, layout, buffer shape, region, alignment, packing."""

    scope: str
    elem: str
    bits: int
    layout: object
    shape: tuple
    region: tuple
    align: int = 16
    packing: str | None = None


@dataclass(frozen=True)
class SmemOperand:
    """Descriptor fields of one shared-memory operand; `starts[i]` is K-step i's start, in bytes from the
    buffer's base."""

    major: str  # "K" | "MN"
    swizzle: SwizzleMode
    lbo_bytes: int
    sbo_bytes: int
    starts: tuple[int, ...]

    def describe(self, step: int) -> str:
        """K-step `step`'s descriptor in words (the lowerings attach it to the instruction for FileCheck)."""
        return (f"{self.major}-major {self.swizzle.value} lbo={self.lbo_bytes} sbo={self.sbo_bytes} "
                f"start={self.starts[step]}")


def matrix_region(region: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The (row, column) ranges of a matrix region: leading dims of extent 1 (a pipeline stage) dropped."""
    region = tuple(region)
    while len(region) > 2 and region[0][1] - region[0][0] == 1:
        region = region[1:]
    return region


def matrix_of(name: str, arr: np.ndarray, region: Sequence[tuple[int, int]]) -> np.ndarray:
    """The region of `arr` (one value per element of the buffer) as a 2-D matrix (matrix_region)."""
    rows_cols = matrix_region(region)
    if len(rows_cols) != 2:
        raise Decline("operand-region", f"{name} region {[e - b for b, e in region]} is not a matrix "
                        "(2 dims, after leading dims of extent 1)")
    return arr[tuple(slice(b, e) for b, e in region)].reshape(tuple(e - b for b, e in rows_cols))


def plan_smem_operand(name: str, layout, shape: Sequence[int], region: Sequence[tuple[int, int]], bits: int,
                      k_elems: int, align: int, mn_major_ok: str | None) -> SmemOperand:
    """Plan operand `name` ("A", M x K, or "B", N x K): K is split into K-steps of `k_elems`. `bits`:
    shared-memory bits per element. `mn_major_ok`: None when MN-major is allowed, else why it is not."""
    if isinstance(layout, ComposedLayout):
        swizzle, inner = layout.swizzle, layout.inner
    else:
        swizzle, inner = SwizzleMode.NONE, layout
    if not isinstance(inner, TileLayout) or inner.replica or set(inner.axes()) - {m}:
        raise Decline("operand-layout", f"{name}'s shared-memory layout {layout} must map onto axis m only, "
                        "without replicas")
    offs = axis_offsets(inner, shape).get(m)
    if offs is None:
        offs = np.zeros(tuple(shape), dtype=np.int64)
    mat = matrix_of(name, offs, region)
    mn, k = mat.shape
    if k % k_elems:
        raise Decline("operand-region", f"{name}'s K extent {k} is not a multiple of the instruction's K "
                        f"({k_elems} elements: 256 bits)")
    if swizzle not in MODES:
        raise Decline("operand-swizzle", f"{name}'s {swizzle.value} swizzle has no descriptor encoding here "
                        f"(modes: {', '.join(md.value for md in MODES)})")
    bitmat = mat * bits
    steps = [_plan_step(name, bitmat[:, i:i + k_elems], bits, swizzle, mn_major_ok)
             for i in range(0, k, k_elems)]
    first = steps[0]
    for i, s in enumerate(steps[1:], 1):
        if s[:3] != first[:3]:
            raise Decline("operand-canonical", f"{name}'s K-step {i} has (major, LBO, SBO) {s[:3]}, K-step 0 "
                            f"{first[:3]}: one descriptor must serve every K-step")
    atom = atom_bytes(swizzle)
    if align < atom:
        raise Decline("operand-alignment", f"{name}'s buffer is aligned to {align} B, its {swizzle.value} "
                        f"swizzle repeats every {atom} B: declare align {atom}")
    pitch = 16 if swizzle is SwizzleMode.NONE else row_pitch(swizzle)
    for i, s in enumerate(steps):
        start = s[3]
        if start % 16 or start < 0:
            raise Decline("operand-alignment", f"{name}'s K-step {i} starts at byte {start}, not 16-byte aligned")
        if swizzle is not SwizzleMode.NONE and start % atom >= pitch:
            raise Decline("operand-alignment", f"{name}'s K-step {i} starts at byte {start}, outside row 0 of "
                            f"a {atom} B swizzle atom (the descriptor's base offset stays 0)")
    major, lbo, sbo = first[:3]
    for what, v in (("LBO", lbo), ("SBO", sbo)):
        if not 0 <= v < FIELD_LIMIT or v % 16:
            raise Decline("operand-fields", f"{name}'s {what} {v} B must be a 16-byte multiple in [0, 2^18)")
    if max(s[3] for s in steps) >= FIELD_LIMIT:
        raise Decline("operand-fields", f"{name}'s start offsets reach {max(s[3] for s in steps)} B, "
                        "beyond the descriptor's 2^18 B")
    return SmemOperand(major, swizzle, lbo, sbo, tuple(s[3] for s in steps))


def _plan_step(name: str, x: np.ndarray, bits: int, swizzle: SwizzleMode, mn_major_ok: str | None):
    """(major, LBO, SBO, start) of one K-step's MN x K tile of bit addresses `x`."""
    mn, k = x.shape
    s0 = int(x[0, 0])
    if k > 1 and x[0, 1] - s0 == bits:
        major = "K"
    elif mn > 1 and x[1, 0] - s0 == bits:
        major = "MN"
        if mn_major_ok is not None:
            raise Decline("operand-major", f"{name} is MN-major (contiguous along {'M' if name == 'A' else 'N'}),"
                            f" but {mn_major_ok}")
    else:
        raise Decline("operand-major", f"{name} is neither K-major nor MN-major: elements (0, 0), (0, 1) and "
                        f"(1, 0) of its tile are at bits {s0}, {int(x[0, 1]) if k > 1 else '-'} and "
                        f"{int(x[1, 0]) if mn > 1 else '-'}")
    t = 128 // bits  # elements per 16 bytes
    sw = swizzle is not SwizzleMode.NONE
    row = row_pitch(swizzle) if sw else 16  # bytes
    mn_i = np.arange(mn)[:, None]
    k_i = np.arange(k)[None, :]

    def at(i, j) -> int:  # byte distance of element (i, j) from (0, 0), 0 when outside the tile
        return int(x[i, j] - s0) // 8 if i < mn and j < k else 0

    if major == "K":
        if at(1, 0) != row:
            raise Decline("operand-swizzle", f"{name} is K-major with rows {at(1, 0)} B apart; "
                            f"{'the ' + swizzle.value + ' swizzle' if sw else 'no swizzle'} needs {row} B")
        sbo = at(8, 0)
        lbo = 16 if sw else at(0, t)  # swizzled: "not used, assumed 1" (16 bytes)
        want = ((mn_i % 8) * row + (mn_i // 8) * sbo + (k_i // t) * (16 if sw else lbo)) * 8 + (k_i % t) * bits
    else:
        w = (row // 16) * t  # elements along MN in one swizzle row (one core matrix without swizzle)
        if at(0, 1) != row:
            raise Decline("operand-swizzle", f"{name} is MN-major with K rows {at(0, 1)} B apart; "
                            f"{'the ' + swizzle.value + ' swizzle' if sw else 'no swizzle'} needs {row} B")
        mn_step, k_step = at(w, 0), at(0, 8)  # 0 where the tile has one such group: the field is unused
        lbo, sbo = (mn_step, k_step) if sw else (k_step, mn_step)
        want = ((mn_i // w) * mn_step + (k_i % 8) * row + (k_i // 8) * k_step) * 8 + (mn_i % w) * bits
    got = x - s0
    bad = np.argwhere(got != want)
    if len(bad):
        i, j = (int(v) for v in bad[0])
        raise Decline("operand-canonical", f"{name} ({major}-major, {swizzle.value} swizzle, LBO {lbo} B, SBO "
                        f"{sbo} B) is not a canonical MMA layout: element ({i}, {j}) of the tile is at byte "
                        f"{int(got[i, j]) / 8:g}, the descriptor reads it at byte {int(want[i, j]) / 8:g}")
    return major, lbo, sbo, s0 // 8
