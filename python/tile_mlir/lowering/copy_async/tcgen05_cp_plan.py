"""Plan for the shared -> tensor memory copy by `tcgen05.cp.cta_group::N.<shape>` (pure Python).

Each instruction, issued by one thread, reads `rows` rows of 128 or 256 bits from shared memory through
a matrix descriptor (rows in 8-row groups SBO bytes apart, row pitch P inside a group, swizzle given by
P; a 256-bit row's second 16-byte chunk at +LBO without swizzle, +16 B with it) and writes row r to the
lanes its shape names, 4 columns per chunk from `taddr`'s column C0 (docs/tcgen05.md §6, §7). Which
shape: the tmem layout's replica is the multicast and its lane iters are the rows
(tcgen05_cp_shapes.py). The copy is asynchronous: the caller issues `tcgen05.commit` and waits.

This module only plans: it does all layout analysis and validation, and the emitter turns the plan into
ops. It imports no MLIR. Generalises the algorithm of TVM TIRx's tcgen05_cp variant (apache/tvm at
bb6f8aec55, 32x128b.warpx4 only) to every shape on our layout algebra; the steps below are labelled as
in the code comments.

Algorithm
---------
A. dtype and slice: elem_bits must be 4, 8, 16 or 32 (128 / elem_bits elements fill one 16-byte
   chunk). 6-bit and padded 4-bit elements are copied by the decompressing forms `.b8x16.b6x16_p32`
   and `.b8x16.b4x16_p64` (cp_element_format): the shared buffer holds 16 elements per 16-byte unit
   (12 or 8 data bytes, then padding) and tensor memory receives 8-bit containers, so both sides have
   the geometry of 8-bit data and the plan runs with elem_bits = 8. Packed 6-bit data is rejected
   ("dtype"). Slice both layouts to their regions and canonicalize; the swizzle of a ComposedLayout
   source is peeled off for the stride analysis.
B. router: the tmem replica names the multicast: R[4 : 32@TLane] (warpx4), R[2 : 64@TLane]
   (warpx2::02_13), R[2 : 32@TLane] (warpx2::01_23) or none (128x256b, 128x128b, 4x256b); any other
   replica fits no shape ("router").
C. permute: order the tmem shard iters TLane first, then by descending stride; group the source by
   the tmem iter extents and apply the same permutation to those groups; canonicalize both.
D. drop broadcast: split both at stride-0 iters; the split sequences must match; drop stride-0 iters.
E. shape: the leading TLane iters of the tmem must be a candidate's rows ("router"); 4x256b alone may
   have more lane iters after its rows (cps at lane offsets L0 < 32). Where both 128-lane shapes fit,
   128x256b is planned first and 128x128b if it declines. Group both sides into (rows, middle,
   elements per row): tmem rows the shape's lane iters, tmem row (elements per row, 1@TCol), source
   row one 16-byte chunk (epc, 1) or, for 256-bit rows, two: (2 epc, 1) or (2, LBO), (epc, 1) ("group").
F. rows: regroup the source's rows as (rows / 8, 8); SBO = stride of the first (bytes; with 4 rows, one
   group, SBO is unused and encoded as 8 P), row pitch P = stride of the 8 (4 rows: their stride);
   P in {16: none, 32: 32B, 64: 64B, 128: 128B} gives the swizzle mode, which must equal the buffer's
   ("swizzle"). A 256-bit row's second chunk is +16 B when swizzled (LBO "assumed 1", encoded 16 as
   CUTLASS's K-major canonical form does) and +LBO without swizzle, a 16-byte multiple ("lbo").
G. align middles: sub-group both middles by the union of their cumulative extent boundaries so the
   iters correspond 1-1 (the nvfp4 scale-factor case); paired extents are equal and tmem middle iters
   are on TCol, or on TLane for 4x256b ("middle").
H. alignment: the tmem column offset is a whole number of 32-bit columns and every cp's column is a
   multiple of 4 ("alignment.tmem_col"; PTX says nothing, TVM and a GB300 probe require it,
   docs/emulator.md A3, docs/tcgen05.md §7); every cp's lane offset is 0, or in [0, 31] for 4x256b
   ("router", A4); SBO is 16 B aligned, and a multiple of the 8-row atom (8 * P) when swizzled
   ("alignment.sbo"); the first cp's source start is 16 B aligned without swizzle and atom aligned
   (8 * P bytes) with it ("alignment.src_start"; TVM's hardware-validated policy: the descriptor's base
   offset stays 0, docs/tcgen05.md §4 base-offset policy, docs/emulator.md A7); middle source steps
   are 16 B aligned and, when swizzled, every later cp's row lies in row 0 of an atom, so only address
   bits below 7 differ from an atom-aligned start, the K-step form that CUTLASS's DescriptorIterator
   uses ("alignment.middle").
I. result: a Tcgen05CpPlan with the shape, the descriptor fields in bytes (LBO 0 for the 128-bit
   shapes, which read one chunk per row) and every cp unrolled, row-major over the middle iters, outer
   first.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

from ...dialect.decline import Decline
from ...layout import ComposedLayout, Iter, LayoutError, SwizzleMode, TCol, TileLayout, TLane, m
from ...target import TMEM_COLUMNS
from ..smem_desc import desc_swizzle_code, encode_smem_desc  # (their one home; re-exported)
from .tcgen05_cp_shapes import CpShape, replica_text, shapes_for_replica

__all__ = ["MiddleIter", "Cp", "Tcgen05CpPlan", "plan_tcgen05_cp", "cp_element_format",
           "encode_smem_desc", "desc_swizzle_code"]


@dataclass(frozen=True)
class MiddleIter:
    """One loop of cps: `extent` steps, moving the source by `src_step_bytes` and tmem by
    `tmem_step_cols` columns and `tmem_step_lanes` lanes (4x256b only)."""

    extent: int
    src_step_bytes: int
    tmem_step_cols: int
    tmem_step_lanes: int = 0


@dataclass(frozen=True)
class Cp:
    """One instruction: source byte offset (from the shared buffer's base), tmem column and lane
    (relative to the tmem buffer's address)."""

    src_offset: int
    col: int
    lane: int = 0


@dataclass(frozen=True)
class Tcgen05CpPlan:
    """Everything the emitter needs. Byte offsets are relative to the shared buffer's base; tmem columns
    are 32-bit columns relative to the tmem buffer's address. `cps[0]` starts at `start_offset_bytes`,
    `tmem_col0`."""

    cp_shape: CpShape
    elem_bits: int
    swizzle: SwizzleMode
    sbo_bytes: int
    lbo_bytes: int
    start_offset_bytes: int
    tmem_col0: int
    cps: tuple[Cp, ...]
    cta_group: int
    middle: tuple[MiddleIter, ...]
    row_pitch_bytes: int
    src_format: str | None = None  # "b6x16_p32" / "b4x16_p64": the cp decompresses (.b8x16.<format>)

    @property
    def shape(self) -> str:
        return self.cp_shape.name

    @property
    def multicast(self) -> str | None:
        return self.cp_shape.multicast

    @property
    def num_cps(self) -> int:
        return len(self.cps)

    def descriptor_template(self) -> int:
        """The descriptor with start address 0; the emitter patches bits [0, 14) per cp."""
        return encode_smem_desc(0, self.lbo_bytes, self.sbo_bytes, self.swizzle)


# -----------------------------------------------------------------------------------------------------
# Helpers
# -----------------------------------------------------------------------------------------------------
_PITCH_TO_MODE = {16: SwizzleMode.NONE, 32: SwizzleMode.B32, 64: SwizzleMode.B64, 128: SwizzleMode.B128}
_MULTICASTS = ("R[4 : 32@TLane] (32x128b.warpx4), R[2 : 64@TLane] (64x128b.warpx2::02_13), "
               "R[2 : 32@TLane] (64x128b.warpx2::01_23) or none (128x256b, 128x128b, 4x256b)")


def _swizzle_words(mode: SwizzleMode) -> str:
    return "no swizzle" if mode is SwizzleMode.NONE else f"{mode.value} swizzle"


def _bytes(elems: int, bits: int, check: str, what: str) -> int:
    if (elems * bits) % 8:
        raise Decline(check, f"{what} of {elems} {bits}-bit elements is not a whole number of bytes")
    return elems * bits // 8


def _iters_text(iters: Sequence[Iter]) -> str:
    return "[" + ", ".join(str(it) for it in iters) + "]" if iters else "[]"


def _fused(iters: Sequence[Iter]) -> tuple[Iter, ...]:
    return TileLayout(tuple(iters)).canonicalize().shard


def _split_at_broadcast(lay: TileLayout) -> tuple[list[tuple[str, int]], list[Iter]]:
    """Split the shard at stride-0 iters: the sequence of ("run", product) / ("broadcast", extent)
    pieces, and the iters with nonzero stride."""
    seq: list[tuple[str, int]] = []
    keep: list[Iter] = []
    run = 1
    for it in lay.shard:
        if it.stride == 0:
            if run > 1:
                seq.append(("run", run))
            seq.append(("broadcast", it.extent))
            run = 1
        else:
            run *= it.extent
            keep.append(it)
    if run > 1:
        seq.append(("run", run))
    return seq, keep


def _three_parts(side: str, iters: Sequence[Iter], shape: tuple[int, int, int], sh: CpShape):
    try:
        grouped, seps = TileLayout(tuple(iters)).group(shape)
    except LayoutError as e:
        raise Decline("group", f"{side} iters {_iters_text(iters)} do not group into ({shape[0]} rows, "
                                 f"{shape[1]} middle, {shape[2]} elements per {128 * sh.chunks}-bit row) "
                                 f"for .{sh.ptx}: {e}") from None
    return tuple(_fused(grouped.shard[seps[i]:seps[i + 1]]) for i in range(3))


def _align_middles(t_mid: Sequence[Iter], s_mid: Sequence[Iter]) -> tuple[list[Iter], list[Iter]]:
    """Sub-group both middles at the union of their cumulative (outer-first) extent boundaries."""
    def bounds(iters):
        return list(itertools.accumulate((it.extent for it in iters), lambda a, b: a * b))

    cuts = sorted(set(bounds(t_mid)) | set(bounds(s_mid)))
    shape, prev = [], 1
    for c in cuts:
        if c % prev:
            raise Decline("middle", f"tmem middle {_iters_text(t_mid)} and source middle "
                                      f"{_iters_text(s_mid)} have boundaries {prev} and {c} that do not "
                                      f"nest, so their iters cannot be paired")
        shape.append(c // prev)
        prev = c

    def subgroup(side, iters):
        if not shape:
            return []
        grouped, seps = TileLayout(tuple(iters)).group(shape)  # cannot fail: cuts refine its bounds
        out = []
        for i in range(len(shape)):
            seg = _fused(grouped.shard[seps[i]:seps[i + 1]])
            if len(seg) != 1:
                raise Decline("middle", f"{side} middle segment {i} is {_iters_text(seg)}, not one iter")
            out.append(seg[0])
        return out

    return subgroup("tmem", t_mid), subgroup("source", s_mid)


def _lanes_fit(sh: CpShape, lanes: tuple[Iter, ...]) -> bool:
    """E. The leading tmem lane iters are the shape's rows; only a shape with a lane offset range
    (4x256b) may have further lane iters, which become middles."""
    n = len(sh.lanes)
    return lanes[:n] == sh.lanes and (len(lanes) == n or sh.max_lane_offset > 0)


# -----------------------------------------------------------------------------------------------------
# Plan
# -----------------------------------------------------------------------------------------------------
def cp_element_format(elem_bits: int, src_packing: str | None) -> tuple[int, str | None]:
    """A. (element bits the plan works in, tcgen05.cp source format) for the copied element type and the
    shared buffer's packing (dialect.types.PACKINGS)."""
    if src_packing in ("b6x16_p32", "b4x16_p64"):
        # 16 elements per 16-byte unit in, 16 8-bit containers (4 tmem columns) out: 8-bit geometry on
        # both sides. The tmem buffer's type says so for 6-bit elements; for 4-bit ones only this copy
        # does (the one home of that assumption, docs/tcgen05.md §8)
        return 8, src_packing
    if elem_bits == 6:
        raise Decline("dtype", "packed 6-bit elements do not split into 128-bit rows (16 bytes hold 21.3 of "
                                 "them); tcgen05.cp reads 6-bit data in the .b6x16_p32 form: declare the shared "
                                 "buffer with packing b6x16_p32")
    if elem_bits not in (4, 8, 16, 32):
        raise Decline("dtype", f"{elem_bits}-bit elements are not supported; need 4, 6, 8, 16 or 32")
    return elem_bits, None


def plan_tcgen05_cp(src_layout: "TileLayout | ComposedLayout", src_shape: Sequence[int],
                    src_region: Sequence[Sequence[int]], src_swizzle_of_buffer: "SwizzleMode | None",
                    dst_layout: TileLayout, dst_shape: Sequence[int], dst_region: Sequence[Sequence[int]],
                    elem_bits: int, cta_group: int = 1, src_format: str | None = None) -> Tcgen05CpPlan:
    """Plan the copy of `src_region` of a shared buffer into `dst_region` of a tmem buffer (steps A-I).

    `src_swizzle_of_buffer` is the buffer's declared swizzle (None: take it from `src_layout`, which is
    that of a ComposedLayout, NONE for a plain TileLayout). `elem_bits` and `src_format` come from
    cp_element_format. Raises Decline(check, reason).
    """
    # A. dtype: one 128-bit row chunk must hold a whole number of elements.
    if elem_bits not in (4, 8, 16, 32):
        raise Decline("dtype", f"{elem_bits}-bit elements are not supported; need 4, 8, 16 or 32 "
                                 "(6-bit data: see cp_element_format)")
    if cta_group not in (1, 2):
        raise Decline("cta_group", f"cta_group must be 1 or 2, got {cta_group}")

    if isinstance(src_layout, ComposedLayout):
        layout_swizzle, src_tile = src_layout.swizzle, src_layout.inner
    else:
        layout_swizzle, src_tile = SwizzleMode.NONE, src_layout
    buffer_swizzle = layout_swizzle if src_swizzle_of_buffer is None else src_swizzle_of_buffer
    if buffer_swizzle is not layout_swizzle:
        raise Decline("swizzle", f"the buffer declares {_swizzle_words(buffer_swizzle)} but its layout "
                                   f"composes {_swizzle_words(layout_swizzle)}")
    if any(it.axis is not m for it in src_tile.shard + src_tile.replica) or set(src_tile.offset) - {m}:
        raise Decline("axes", f"shared-memory layout {src_tile} must live on axis m only")
    if src_tile.replica:
        raise Decline("axes", f"shared-memory layout {src_tile} must have no replica")
    if any(it.axis not in (TLane, TCol) for it in dst_layout.shard):
        raise Decline("axes", f"tmem layout {dst_layout} must map its shard onto TLane and TCol")

    # A. slice both layouts to their regions and canonicalize.
    try:
        s = src_tile.slice(src_shape, src_region).canonicalize()
    except LayoutError as e:
        raise Decline("region", f"source: {e}") from None
    try:
        t = dst_layout.slice(dst_shape, dst_region).canonicalize()
    except LayoutError as e:
        raise Decline("region", f"tmem: {e}") from None
    if s.shard_extent() != t.shard_extent():
        raise Decline("region", f"source region has {s.shard_extent()} elements, tmem region "
                                  f"{t.shard_extent()}")

    # B. router: the replica is the multicast.
    candidates = shapes_for_replica(t.replica)
    if not candidates:
        raise Decline("router", f"tmem replica {replica_text(t.replica)} is no tcgen05.cp multicast; "
                                  f"the shapes write {_MULTICASTS}")

    # C. permute: TLane iters first, then by descending stride; the source follows by groups.
    perm = sorted(range(len(t.shard)),
                  key=lambda i: (0 if t.shard[i].axis is TLane else 1, -t.shard[i].stride))
    try:
        s_grouped, seps = s.group([it.extent for it in t.shard])
    except LayoutError as e:
        raise Decline("group", f"source {s} does not group by the tmem iters {_iters_text(t.shard)}: "
                                 f"{e}") from None
    s = s_grouped.permute_by_groups(seps, perm).canonicalize()
    t = t.permute(perm).canonicalize()

    # D. drop broadcast: stride-0 pieces must line up on both sides, then they are dropped.
    seq_t, keep_t = _split_at_broadcast(t)
    seq_s, keep_s = _split_at_broadcast(s)
    if seq_t != seq_s:
        raise Decline("broadcast", f"stride-0 pieces differ: tmem {seq_t}, source {seq_s}")
    keep_t = _fused(keep_t)

    # E. shape: the rows are the leading lane iters; wider rows first.
    lanes = tuple(itertools.takewhile(lambda it: it.axis is TLane, keep_t))
    fits = [sh for sh in candidates if _lanes_fit(sh, lanes)]
    if not fits:
        by_rows: dict[tuple[Iter, ...], list[str]] = {}
        for sh in candidates:
            by_rows.setdefault(sh.lanes, []).append(f".{sh.ptx}")
        want = " or ".join(f"{_iters_text(r)} ({', '.join(n)})" for r, n in by_rows.items())
        raise Decline("router", f"tmem rows {_iters_text(lanes)} with {replica_text(t.replica)} fit no "
                                  f"tcgen05.cp shape: need {want}")
    args = (s, t, keep_s, keep_t, elem_bits, buffer_swizzle, cta_group, src_format)
    for sh in fits[:-1]:
        try:
            return _plan_shape(sh, *args)
        except Decline:
            pass  # a wider row declined: the next shape may fit
    return _plan_shape(fits[-1], *args)  # its reason stands: the narrowest shape accepts the most copies


def _plan_shape(sh: CpShape, s: TileLayout, t: TileLayout, keep_s: Sequence[Iter], keep_t: Sequence[Iter],
                elem_bits: int, buffer_swizzle: SwizzleMode, cta_group: int,
                src_format: str | None) -> Tcgen05CpPlan:
    """Steps E-I for one shape."""
    epc = 128 // elem_bits   # elements per 16-byte chunk
    epr = epc * sh.chunks    # elements per row of one cp
    e32 = 32 // elem_bits    # elements per 32-bit tmem column

    # E. group both into (rows, middle, elements per row).
    total = math.prod(it.extent for it in keep_t)
    if total % (sh.rows * epr):
        raise Decline("group", f"{total} copied elements are not a multiple of {sh.rows} rows x {epr} "
                                 f"elements ({128 * sh.chunks} bits per row of .{sh.ptx})")
    n_mid = total // (sh.rows * epr)
    _, t_mid, t_col = _three_parts("tmem", keep_t, (sh.rows, n_mid, epr), sh)
    s_lane, s_mid, s_col = _three_parts("source", keep_s, (sh.rows, n_mid, epr), sh)
    if t_col != (Iter(epr, 1, TCol),):
        raise Decline("group", f"tmem row of .{sh.ptx} must be ({epr}, 1@TCol), got {_iters_text(t_col)}")
    if sh.chunks == 1 and s_col != (Iter(epc, 1, m),):
        raise Decline("group", f"source chunk must be {epc} contiguous elements ({epc}, 1), "
                                 f"got {_iters_text(s_col)}")
    if sh.chunks == 2:
        if s_col == (Iter(epr, 1, m),):
            chunk_step = 16
        elif len(s_col) == 2 and s_col[0].extent == 2 and s_col[1] == Iter(epc, 1, m):
            chunk_step = _bytes(s_col[0].stride, elem_bits, "lbo", "second chunk step")
        else:
            raise Decline("group", f"source row of .{sh.ptx} must be two 16-byte chunks of {epc} contiguous "
                                     f"elements, ({epr}, 1) or (2, LBO), ({epc}, 1); got {_iters_text(s_col)}")

    # F. rows: the source rows as (rows / 8, 8) -> SBO and row pitch P -> swizzle mode.
    if sh.rows >= 8:
        rows, rseps = TileLayout(s_lane).group([sh.rows // 8, 8])
        outer, inner = _fused(rows.shard[rseps[0]:rseps[1]]), _fused(rows.shard[rseps[1]:rseps[2]])
    else:
        outer, inner = (), s_lane
    if len(outer) > 1 or len(inner) != 1:
        raise Decline("group", f"source rows {_iters_text(s_lane)} do not form {max(sh.rows // 8, 1)} "
                                 f"group(s) x {min(sh.rows, 8)} rows with one stride each")
    pitch = _bytes(inner[0].stride, elem_bits, "swizzle", "row pitch")
    mode = _PITCH_TO_MODE.get(pitch)
    if mode is None:
        raise Decline("swizzle", f"row pitch {pitch} B is not 16, 32, 64 or 128 B")
    if mode is not buffer_swizzle:
        has = "none" if buffer_swizzle is SwizzleMode.NONE else buffer_swizzle.value
        raise Decline("swizzle", f"row pitch {pitch} B implies {_swizzle_words(mode)} but the buffer "
                                   f"has {has}")
    atom = 8 * pitch
    # one 8-row group (4x256b): SBO is never used; encode the dense group stride
    sbo = _bytes(outer[0].stride, elem_bits, "alignment.sbo", "SBO") if outer else atom
    lbo = 0
    if sh.chunks == 2:
        if mode is SwizzleMode.NONE:
            lbo = chunk_step
            if lbo % 16 or not 0 <= lbo < 1 << 18:
                raise Decline("lbo", f"a 256-bit row's second chunk is {lbo} B after its first; LBO must "
                                       f"be a 16-byte multiple in [0, 2^18)")
        elif chunk_step != 16:
            raise Decline("lbo", f"with {_swizzle_words(mode)} the second chunk of a 256-bit row is read "
                                   f"16 B after the first (LBO unused), but the source puts it "
                                   f"{chunk_step} B after")
        else:
            lbo = 16  # "assumed 1" (PTX), the field CUTLASS's K-major canonical form writes

    # G. align middles: pair the middle iters 1-1.
    t_mid, s_mid = _align_middles(t_mid, s_mid)
    middle = []
    for i, (ti, si) in enumerate(zip(t_mid, s_mid)):
        if ti.extent != si.extent:
            raise Decline("middle", f"middle {i}: tmem extent {ti.extent} != source extent {si.extent}")
        step = _bytes(si.stride, elem_bits, "alignment.middle", f"middle {i} source step")
        if ti.axis is TLane:  # only a shape with a lane offset range keeps lane iters past its rows (E)
            middle.append(MiddleIter(ti.extent, step, 0, ti.stride))
            continue
        if (ti.stride * elem_bits) % 32:
            raise Decline("alignment.tmem_col", f"middle {i}: tmem step {ti.stride} elements is not a "
                                                  f"whole number of 32-bit columns")
        middle.append(MiddleIter(ti.extent, step, ti.stride * elem_bits // 32))

    # H. alignment.
    col_elems = t.offset_on(TCol)
    if col_elems % e32:
        raise Decline("alignment.tmem_col", f"tmem column offset of {col_elems} {elem_bits}-bit "
                                              f"elements is not a whole 32-bit column ({e32} per column)")
    col0, lane0 = col_elems // e32, t.offset_on(TLane)
    if sh.max_lane_offset == 0 and lane0:
        raise Decline("router", f".{sh.ptx} writes all 128 lanes, so the tmem lane offset must be 0, "
                                  f"got {lane0}")
    if sbo % 16 or sbo < 0 or sbo >= 1 << 18:
        raise Decline("alignment.sbo", f"SBO {sbo} B must be a 16-byte multiple in [0, 2^18)")
    if mode is not SwizzleMode.NONE and sbo % atom:
        raise Decline("alignment.sbo", f"SBO {sbo} B is not a multiple of the {atom} B "
                                         f"{mode.value} swizzle atom")
    start = _bytes(s.offset_on(m), elem_bits, "alignment.src_start", "source start")
    need = 16 if mode is SwizzleMode.NONE else atom
    if start % need or start < 0:
        what = ("16 B" if mode is SwizzleMode.NONE else
                f"the {atom} B {mode.value} swizzle atom (8 x {pitch} B)")
        raise Decline("alignment.src_start", f"source start {start} B is not aligned to {what}")
    for i, mi in enumerate(middle):
        if mi.src_step_bytes % 16:
            raise Decline("alignment.middle", f"middle {i}: source step {mi.src_step_bytes} B is not "
                                                f"16 B aligned")
    ncols, row_bytes = 4 * sh.chunks, 16 * sh.chunks
    cps = []
    for idx in itertools.product(*(range(mi.extent) for mi in middle)):
        src = start + sum(i * mi.src_step_bytes for i, mi in zip(idx, middle))
        col = col0 + sum(i * mi.tmem_step_cols for i, mi in zip(idx, middle))
        lane = lane0 + sum(i * mi.tmem_step_lanes for i, mi in zip(idx, middle))
        if col % 4:
            raise Decline("alignment.tmem_col", f"cp at middle index {idx} writes tmem column {col}, "
                                                  f"not a multiple of 4")
        if col < 0 or col + ncols > TMEM_COLUMNS:
            raise Decline("alignment.tmem_col", f"cp at middle index {idx} writes tmem columns "
                                                  f"[{col}, {col + ncols}), outside [0, {TMEM_COLUMNS})")
        if not 0 <= lane <= sh.max_lane_offset:
            raise Decline("router", f"cp at middle index {idx} starts at tmem lane {lane}; .{sh.ptx} "
                                      f"writes lanes L0 + 32r, so L0 must be in [0, {sh.max_lane_offset}]")
        if src < 0 or (mode is not SwizzleMode.NONE and src % atom + row_bytes > pitch):
            raise Decline("alignment.middle", f"cp at middle index {idx} starts at source byte {src}, "
                                                f"outside row 0 of a {atom} B {mode.value} swizzle atom" +
                            (f" (a 256-bit row needs {row_bytes} B of it)" if sh.chunks == 2 else ""))
        cps.append(Cp(src, col, lane))

    # I. result.
    return Tcgen05CpPlan(cp_shape=sh, elem_bits=elem_bits, swizzle=mode, sbo_bytes=sbo, lbo_bytes=lbo,
                         start_offset_bytes=start, tmem_col0=col0, cps=tuple(cps), cta_group=cta_group,
                         middle=tuple(middle), row_pitch_bytes=pitch, src_format=src_format)
