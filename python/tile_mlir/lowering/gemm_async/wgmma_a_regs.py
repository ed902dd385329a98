"""Plan of wgmma's A operand from registers (the "RS" form, sm_90a), pure Python.

`wgmma.mma_async.sync.aligned.m64nNkK.<d>.<a>.<b> d, {a0, a1, a2, a3}, b-desc, ...`: each thread of the
warpgroup supplies its part of the 64 x K A tile in four 32-bit registers (PTX ISA "Register Fragments",
wgmma matrix A; docs/gemm.md §3c). For thread t = 32 w + l of the warpgroup and value v:

    f16 / bf16 (K 16, 8 values): row 16 w + l / 4 + 8 ((v >> 1) & 1),  k 2 (l % 4) + (v & 1) + 8 (v >> 2)
    tf32       (K 8, 4 values):  row 16 w + l / 4 + 8 (v & 1),         k (l % 4) + 4 (v >> 1)
    8-bit      (K 32, 16 values): row 16 w + l / 4 + 8 ((v >> 2) & 1), k 4 (l % 4) + (v & 3) + 16 (v >> 3)

value v in register v / (32 / bits), the lower value in the lower bits. A register tile packs 32 / bits
slots into one 32-bit word, the lower slot in the lower bits (docs/registers.md §2, §6), so the plan asks,
per K-step and register, that its values sit in the slots of one word in that order, at the same word in
every thread. The f16/bf16 map is the f32 accumulator's on 16 columns (docs/registers.md §1): an
accumulator converted slot for slot (tile.convert) is the A of the next wgmma, as FlashAttention-3 feeds P.

Checks: `a-fragment` (an element held by another thread than the one the instruction reads it from; a
register split across words or out of order; a word that differs between threads).
"""
from __future__ import annotations

from ...lazy import numpy as np  # imported at first use (tile-opt --help never calls it)

from ...dialect.decline import Decline
from ...layout import laneid, reg, warpid
from .layout_eval import axis_offsets
from .operand_plan import Operand, matrix_of

__all__ = ["a_fragment_coords", "plan_register_a"]


def a_fragment_coords(type_a: str):
    """(row, k) int arrays [4 warps, 32 lanes, values] of A's register fragment for one K-step."""
    w = np.arange(4)[:, None, None]
    lane = np.arange(32)[None, :, None]
    base = 16 * w + lane // 4
    if type_a in ("f16", "bf16"):
        v = np.arange(8)[None, None, :]
        row, k = base + 8 * ((v >> 1) & 1), 2 * (lane % 4) + (v & 1) + 8 * (v >> 2)
    elif type_a == "tf32":
        v = np.arange(4)[None, None, :]
        row, k = base + 8 * (v & 1), (lane % 4) + 4 * (v >> 1)
    else:
        v = np.arange(16)[None, None, :]
        row, k = base + 8 * ((v >> 2) & 1), 4 * (lane % 4) + (v & 3) + 16 * (v >> 3)
    shape = (4, 32, v.shape[-1])
    return np.broadcast_to(row, shape), np.broadcast_to(k, shape)


def plan_register_a(a: Operand, type_a: str, bits: int, k_step: int, warp0: int) -> tuple[tuple[int, ...], ...]:
    """Per K-step, the thread's four 32-bit words (register-tile word indices) that are A's registers.
    `warp0`: the accumulator's first warp (A must be held by the same warpgroup). Raises Decline."""
    layout = a.layout
    if set(layout.axes()) - {warpid, laneid, reg} or layout.replica:
        raise Decline("a-fragment", f"A's layout {layout} must map onto warpid, laneid and reg without replicas")
    offs = axis_offsets(layout, a.shape)
    zero = np.zeros(a.shape, dtype=np.int64)
    w_of, l_of, s_of = (matrix_of("a", offs.get(ax, zero), a.region) for ax in (warpid, laneid, reg))
    per = 32 // bits
    row, k = a_fragment_coords(type_a)
    want_w = np.arange(4)[:, None, None] + warp0
    want_l = np.arange(32)[None, :, None]
    v = np.arange(row.shape[-1])
    steps = []
    for s in range(w_of.shape[1] // k_step):
        ks = k + s * k_step
        got_w, got_l, got_s = w_of[row, ks], l_of[row, ks], s_of[row, ks]
        bad = np.argwhere((got_w != want_w) | (got_l != want_l))
        if len(bad):
            w, lane, x = (int(i) for i in bad[0])
            raise Decline("a-fragment", f"K-step {s}: wgmma reads A's element ({int(row[w, lane, x])}, "
                            f"{int(ks[w, lane, x])}) from warp {warp0 + w} lane {lane} (value {x}), the layout "
                            f"gives it to warp {int(got_w[w, lane, x])} lane {int(got_l[w, lane, x])}")
        slots = got_s[0, 0]
        if (got_s != slots[None, None, :]).any():
            w, lane, x = (int(i) for i in np.argwhere(got_s != slots[None, None, :])[0])
            raise Decline("a-fragment", f"K-step {s}: A's value {x} sits in slot {int(got_s[w, lane, x])} in warp "
                            f"{warp0 + w} lane {lane} but in slot {int(slots[x])} in warp {warp0} lane 0: every "
                            "thread must keep it in the same slot")
        words = slots[::per] // per
        want = np.repeat(words, per) * per + v % per
        if (slots != want).any():
            x = int(np.argmax(slots != want))
            raise Decline("a-fragment", f"K-step {s}: A's register {x // per} packs values {x - x % per}.."
                            f"{x - x % per + per - 1} ({bits}-bit) into one 32-bit word, lowest first; the layout "
                            f"puts value {x} in slot {int(slots[x])}, not {int(want[x])}")
        steps.append(tuple(int(x) for x in words))
    return tuple(steps)
