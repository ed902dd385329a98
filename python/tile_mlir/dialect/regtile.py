"""What an op on register tiles asks of each thread, read from the tiles' layouts alone (docs/registers.md
§8): pure functions of BufferTypes (no MLIR), shared by the tile.reg ops' verifiers and their lowering.

- `slot_map`: an elementwise op computes each dst element in the thread that holds it, from operand
  elements that thread holds itself (an operand of a smaller shape broadcasts along its extent-1 dims,
  as numpy does: a row value [M, 1] along the columns). The op is one instruction sequence for every
  thread, so the operand slot read for a dst slot must be the same in all threads.
- `coordinates`: an element's logical coordinates as a thread part plus a slot part, the thread part
  linear in the bits of the thread's index (every power-of-two fragment is): masks compare them.

Every check that fails raises Decline(check, reason).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..lazy import numpy as np  # imported at first use
from .checks import register_fragment
from .decline import cached_plan, fail
from .types import BufferType

__all__ = ["SlotMap", "Coords", "slot_map", "coordinates", "entries", "check_broadcast", "fit_linear"]

WARP = 32


@dataclass(frozen=True)
class SlotMap:
    """slots: the dst register slots the op computes, ascending; sources[k][i]: the slot of operand k read
    for dst slot slots[i]."""

    slots: tuple[int, ...]
    sources: tuple[tuple[int, ...], ...]


def entries(bt: BufferType, what: str, *, replicas: bool = True):
    """(thread, slot, element) arrays over every holder of every element (thread = 32 warp + lane, element
    the logical flat index)."""
    f = register_fragment(bt, what, replicas=replicas)
    elem = f.elem if f.elem is not None else np.arange(f.slot.size, dtype=np.int64)
    return f.warp * WARP + f.lane, f.slot, elem


def _coord(shape, flat: int) -> tuple[int, ...]:
    return tuple(int(c) for c in np.unravel_index(int(flat), shape))


def check_broadcast(dst: BufferType, bt: BufferType, what: str) -> None:
    """bt's shape is dst's, or dst's with some dimensions 1 (numpy broadcasting at equal rank)."""
    if len(bt.shape) != len(dst.shape) or any(s not in (d, 1) for s, d in zip(bt.shape, dst.shape)):
        fail("shape", f"{what} has shape {list(bt.shape)}: an operand has the dst's shape {list(dst.shape)}, or "
             "that shape with some dimensions 1 (broadcast along them)")


def _broadcast_index(dst_shape, src_shape, elem):
    coords = np.unravel_index(elem, dst_shape)
    coords = [np.zeros_like(c) if s == 1 else c for c, s in zip(coords, src_shape)]
    return np.ravel_multi_index(coords, src_shape)


@cached_plan()
def slot_map(dst: BufferType, operands: tuple[tuple[BufferType, str], ...]) -> SlotMap:
    """The slot map of an elementwise op writing `dst` from `operands`: (type, what). An operand that is the
    dst itself maps each slot to itself (same layout), so computing in place reads each slot before writing
    it."""
    dt, ds, de = entries(dst, "operand #0 (dst)")
    slots = np.unique(ds)
    sources = []
    for bt, what in operands:
        check_broadcast(dst, bt, what)
        t, s, e = entries(bt, what)
        n = max(bt.numel, 1)
        key = t * n + e
        order = np.argsort(key, kind="stable")
        keys, kslots = key[order], s[order]
        want = dt * n + _broadcast_index(dst.shape, bt.shape, de)
        pos = np.minimum(np.searchsorted(keys, want), keys.size - 1)
        found = keys[pos] == want
        if not found.all():
            i = int(np.argmin(found))
            src_e = int(_broadcast_index(dst.shape, bt.shape, de[i:i + 1])[0])
            fail("layout", f"{what}: its element {_coord(bt.shape, src_e)} is not held by warp {int(dt[i]) // WARP} "
                 f"lane {int(dt[i]) % WARP}, which computes dst element {_coord(dst.shape, de[i])}: a tile.reg op "
                 "reads only the thread's own registers (give the operand a layout, replicated where the dst's "
                 "threads share an element, that puts it there)")
        src = kslots[pos]
        pairs = np.unique(np.stack([ds, src]), axis=1)
        if pairs.shape[1] != slots.size:
            dup = pairs[0][np.nonzero(pairs[0][1:] == pairs[0][:-1])[0][0]]
            two = pairs[1][pairs[0] == dup][:2]
            fail("layout", f"{what}: dst register slot {int(dup)} reads its slot {int(two[0])} in one thread and "
                 f"{int(two[1])} in another: the slot map must be the same in every thread (one instruction "
                 "sequence serves all)")
        mapping = dict(zip(pairs[0].tolist(), pairs[1].tolist()))
        sources.append(tuple(mapping[x] for x in slots.tolist()))
    return SlotMap(tuple(slots.tolist()), tuple(sources))


@dataclass(frozen=True)
class Coords:
    """Dimension k of the element in slot slots[i] of thread t is
    base[k] + sum over (bit, c) in coeffs[k] of ((t - first_thread) >> bit & 1) * c + slot_part[k][i]."""

    first_thread: int
    base: tuple[int, ...]
    coeffs: tuple[tuple[tuple[int, int], ...], ...]
    slots: tuple[int, ...]
    slot_part: tuple[tuple[int, ...], ...]


def fit_linear(rank, value, what: str) -> tuple[int, tuple[tuple[int, int], ...]]:
    """value = base + sum of bit_b(rank) * c_b over the given (rank, value) samples (rank >= 0, one value
    per rank): (base, ((b, c_b), ...)), or Decline."""
    table = dict(zip(rank.tolist(), value.tolist()))
    base = table.get(0)
    if base is None:
        fail("layout", f"{what}: no element in the first holding thread")
    coeffs = []
    top = max(table).bit_length()
    for b in range(top):
        pair = next(((r, r ^ (1 << b)) for r in table if r >> b & 1 and (r ^ (1 << b)) in table), None)
        if pair is not None and table[pair[0]] != table[pair[1]]:
            coeffs.append((b, table[pair[0]] - table[pair[1]]))
    fit = np.full(rank.size, base, dtype=np.int64)
    for b, c in coeffs:
        fit += (rank >> b & 1) * c
    if not (fit == value).all():
        fail("layout", f"{what}: a thread's part is not linear in the bits of its index (a non-power-of-two "
             "fragment)")
    return base, tuple(coeffs)


@cached_plan()
def coordinates(bt: BufferType, what: str) -> Coords:
    """The logical coordinates of `bt`'s elements as thread part + slot part (Coords), for the threads that
    hold elements; every such thread holds the same slots."""
    t, s, e = entries(bt, what)
    threads, slots = np.unique(t), np.unique(s)
    if t.size != threads.size * slots.size:
        fail("layout", f"{what}: every thread that holds elements must hold the same register slots")
    t0 = int(threads[0])
    coords = np.unravel_index(e, bt.shape)
    row_t = np.searchsorted(threads, t)
    col_s = np.searchsorted(slots, s)
    base, coeffs, parts = [], [], []
    for k, c in enumerate(coords):
        table = np.full((threads.size, slots.size), 0, dtype=np.int64)
        table[row_t, col_s] = c
        slot_part = table[0] - table[0, 0]
        thread_part = table[:, 0]
        if not (table == thread_part[:, None] + slot_part[None, :]).all():
            fail("layout", f"{what}: dimension {k} of an element is not a thread part plus a register-slot part")
        b0, cs = fit_linear(threads - t0, thread_part, f"{what}, dimension {k}")
        base.append(b0)
        coeffs.append(cs)
        parts.append(tuple(int(x) for x in slot_part))
    return Coords(t0, tuple(base), tuple(coeffs), tuple(slots.tolist()), tuple(parts))
