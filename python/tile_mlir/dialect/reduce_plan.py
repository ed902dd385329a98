"""The plan of tile.reg.reduce, read from the register layouts alone (docs/registers.md §9), as the copy
planners read theirs: pure, tested without IR (test/python/dialect/test_reduce_plan.py), shared by the
op's verifier and its lowering.

A reduction of src along `axis` into dst (src's shape with that dimension 1) combines, for each output
element, the src elements that differ only along the axis, in three stages:

- A. inside a thread: the elements a thread holds of one output element (a partial), in ascending axis
  coordinate, folded in halves: while n > 1, with h = ceil(n / 2), v[i] = v[i] op v[i + h] for i < n - h
  (independent operations at each level, and pairs of adjacent slots for the packed f32x2 add);
- B. across the lanes of a warp that hold the same output element in the same partial: a butterfly,
  shfl.sync.bfly by each lane bit that leaves the output element unchanged, ascending; afterwards every
  one of those lanes holds the same value (op is commutative bit for bit);
- C. across warps, when the layout spreads the axis over warps: one lane of each lane group writes its
  partial to scratch[out * W + k] in shared memory (W warps share each output element, k the warp's
  rank among them), a named barrier of the tile's warps, every thread folds scratch[out * W + 0 .. W - 1]
  in order, and a second barrier releases the scratch.

Every thread that takes part ends holding the result; dst may put each output element in any of them
(a replicated row layout puts it in all).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..lazy import numpy as np  # imported at first use
from .decline import cached_plan, fail
from .regtile import WARP, entries, fit_linear
from .types import BufferType

__all__ = ["ReducePlan", "plan_reduce", "fold_order"]


@dataclass(frozen=True)
class ReducePlan:
    """groups[g]: the src slots of partial g in ascending axis coordinate (the same in every thread);
    dst_slots[g]: the dst slot its result lands in; lane_masks: the shfl.bfly masks, ascending; warps: W,
    the warps sharing each output element (1: no shared-memory stage); then, for W > 1: first_thread and
    out_base / out_coeffs / out_slot_part (the output element of partial g in thread t: out_base +
    sum bit_b(t - first_thread) * c + out_slot_part[g]), warp_coeffs (k of warp w: sum bit_b(w - first_warp)
    * c), and threads, the count of the named barrier (the tile's warps)."""

    groups: tuple[tuple[int, ...], ...]
    dst_slots: tuple[int, ...]
    lane_masks: tuple[int, ...]
    warps: int = 1
    first_thread: int = 0
    out_base: int = 0
    out_coeffs: tuple[tuple[int, int], ...] = ()
    out_slot_part: tuple[int, ...] = ()
    warp_coeffs: tuple[tuple[int, int], ...] = ()
    threads: int = 0


def fold_order(n: int) -> list[list[tuple[int, int]]]:
    """Stage A's levels for n values: per level, the (i, j) pairs v[i] = v[i] op v[j]."""
    levels = []
    while n > 1:
        h = (n + 1) // 2
        levels.append([(i, i + h) for i in range(n - h)])
        n = h
    return levels


@cached_plan()
def plan_reduce(src: BufferType, dst: BufferType, axis: int) -> ReducePlan:
    if not 0 <= axis < len(src.shape):
        fail("axis", f"axis {axis} is not a dimension of the {len(src.shape)}-d src")
    want = tuple(1 if k == axis else d for k, d in enumerate(src.shape))
    if dst.shape != want:
        fail("shape", f"dst has shape {list(dst.shape)}: reducing src {list(src.shape)} along axis {axis} gives "
             f"{list(want)}")
    t, s, e = entries(src, "operand #1 (src)", replicas=False)
    coords = np.unravel_index(e, src.shape)
    a = coords[axis]
    out = np.ravel_multi_index([np.zeros_like(c) if k == axis else c for k, c in enumerate(coords)], dst.shape)
    groups, gid = _groups(t, s, a, out)
    threads = np.unique(t)
    row = {}  # (thread, group) -> output element
    for ti, g, o in zip(t.tolist(), gid.tolist(), out.tolist()):
        row[(ti, g)] = o
    masks = _lane_masks(threads, len(groups), row)
    shared = 1 << len(masks)
    warp_of = {}  # output element -> the warps holding it
    per_warp = {}  # (warp, output element) -> holders (lane, group) in that warp
    for (ti, g), o in row.items():
        warp_of.setdefault(o, set()).add(ti // WARP)
        per_warp[(ti // WARP, o)] = per_warp.get((ti // WARP, o), 0) + 1
    bad = next((k for k, c in per_warp.items() if c != shared), None)
    if bad is not None:
        fail("lanes", f"output element {bad[1]} is held by {per_warp[bad]} (lane, partial) pairs of warp {bad[0]}, "
             f"not the {shared} lanes of a butterfly over lane bits {list(masks)}: the lanes that share an output "
             "element must differ in whole lane bits, and hold it in the same partial")
    dst_slots = _dst_slots(dst, row, len(groups))
    nwarps = {len(w) for w in warp_of.values()}
    if len(nwarps) != 1:
        fail("warps", f"output elements are spread over {sorted(nwarps)} warps: each must be shared by as many")
    (w_share,) = nwarps
    if w_share == 1:
        return ReducePlan(groups, dst_slots, masks)
    return _cross_warp(groups, dst_slots, masks, w_share, warp_of, row, threads)


def _groups(t, s, a, out):
    """Stage A: each thread's partials as tuples of slots in ascending axis coordinate; the same set in
    every thread. Returns (groups, group index of each entry)."""
    order = np.lexsort((a, out, t))
    per_thread: dict = {}
    for i in order.tolist():
        per_thread.setdefault(int(t[i]), {}).setdefault(int(out[i]), []).append(int(s[i]))
    signature = None
    for ti, parts in per_thread.items():
        sig = tuple(sorted(tuple(v) for v in parts.values()))
        if signature is None:
            signature, first = sig, ti
        elif sig != signature:
            fail("partials", f"warp {ti // WARP} lane {ti % WARP} holds its elements in register slots grouped "
                 f"{list(sig)[:4]}..., warp {first // WARP} lane {first % WARP} in {list(signature)[:4]}...: every "
                 "thread must hold its partials in the same slots, in the same axis order (one instruction "
                 "sequence serves all)")
    index = {grp: g for g, grp in enumerate(signature)}
    slot_group = {}
    for ti, parts in per_thread.items():
        for v in parts.values():
            for sl in v:
                slot_group[sl] = index[tuple(v)]
    gid = np.array([slot_group[int(x)] for x in s.tolist()], dtype=np.int64)
    return signature, gid


def _lane_masks(threads, ngroups: int, row: dict) -> tuple[int, ...]:
    """Stage B: the lane bits b with row(t ^ 2^b, g) == row(t, g) for every thread and partial."""
    masks = []
    for b in range(5):
        if all(row.get((ti ^ (1 << b), g)) == row[(ti, g)] for ti in threads.tolist() for g in range(ngroups)):
            masks.append(1 << b)
    return tuple(masks)


def _dst_slots(dst: BufferType, row: dict, ngroups: int) -> tuple[int, ...]:
    """The dst slot of each partial: every dst element must be held only by threads that reduce it, in a slot
    that is the same for its partial in every thread."""
    t, s, e = entries(dst, "operand #0 (dst)")
    by_thread: dict = {}
    for (ti, g), o in row.items():
        by_thread.setdefault(ti, {})[o] = g
    slot_of: dict = {}
    for ti, sl, o in zip(t.tolist(), s.tolist(), e.tolist()):
        g = by_thread.get(ti, {}).get(o)
        if g is None:
            fail("layout", f"operand #0 (dst): warp {ti // WARP} lane {ti % WARP} holds output element {o}, which it "
                 "does not reduce (it holds no src element of it)")
        if slot_of.setdefault(g, sl) != sl:
            fail("layout", f"operand #0 (dst): partial {g} lands in dst slot {slot_of[g]} in one thread and {sl} in "
                 "another: the slot must be the same in every thread")
    return tuple(slot_of.get(g, -1) for g in range(ngroups))


def _cross_warp(groups, dst_slots, masks, w_share: int, warp_of: dict, row: dict, threads) -> ReducePlan:
    """Stage C's addressing: the warp's rank k among those sharing an element, and the element's index,
    each linear in the bits of the thread's (warp's) index."""
    rank: dict = {}
    for o, ws in warp_of.items():
        for k, w in enumerate(sorted(ws)):
            if rank.setdefault(w, k) != k:
                fail("warps", f"warp {w} is warp {rank[w]} of those sharing one output element and warp {k} of "
                     f"those sharing element {o}: its rank must be the same for all")
    warps = np.array(sorted(rank), dtype=np.int64)
    w0 = int(warps[0])
    _, warp_coeffs = fit_linear(warps - w0, np.array([rank[int(w)] for w in warps], dtype=np.int64),
                                "the warps' ranks")
    t0 = int(threads[0])
    ngroups = len(groups)
    base_part = np.array([row[(int(ti), 0)] for ti in threads], dtype=np.int64)
    out_base, out_coeffs = fit_linear(threads - t0, base_part, "the output element of a thread")
    slot_part = []
    for g in range(ngroups):
        vals = np.array([row[(int(ti), g)] for ti in threads], dtype=np.int64) - base_part
        if not (vals == vals[0]).all():
            fail("layout", f"partial {g}'s output element is not a thread part plus a partial part")
        slot_part.append(int(vals[0]))
    nthreads = (int(warps[-1]) - w0 + 1) * WARP
    return ReducePlan(groups, dst_slots, masks, w_share, t0, out_base, out_coeffs, tuple(slot_part), warp_coeffs,
                      nthreads)
