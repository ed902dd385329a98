"""Plan of `wgmma.mma_async.sync.aligned.m64nNkK` (sm_90a) for one gemm_async (pure Python).

D[64, N] (+)= A[64, K] . B[N, K]^T by one warpgroup, A and B in shared memory through sm_90 matrix
descriptors, D in the warpgroup's registers (docs/gemm.md §3b). The op's K is split into K-steps of 256
bits (K = 16 for f16/bf16, 8 for tf32, 32 for e4m3/e5m2/s8/u8), one instruction each.

Steps:
A. types: A and B of one kind (f16/bf16 alike, tf32 = f32 buffers, e4m3/e5m2 in any pair, s8/u8 in any
   pair); D f32, or s32 for the integer kinds ("kind", "d-type").
B. shape: M = 64, N per the PTX ISA's table: 8..256 step 8 (s8/u8: 8, 16, 24, then 32..256 step 16)
   ("shape").
C. A and B: descriptors from the layouts (operand_plan, sm_90 swizzles); MN-major only for f16/bf16
   (imm-trans-a/b). A register tile as A is the RS form: its four registers per K-step from the layout
   (wgmma_a_regs; "a-fragment").
D. the accumulator: every element (row(t, v), col(t, v)) of thread t's fragment register v (PTX ISA
   "Matrix fragments for wgmma.mma_async"; docs/registers.md §1) is held by that thread,
       row = 16 w + l / 4 + 8 ((v >> 1) & 1),   col = 8 (v / 4) + 2 (l % 4) + (v & 1)
   for warp w of the warpgroup and lane l; `words[v]` is the register slot that holds it ("d-fragment").
"""
from __future__ import annotations

from dataclasses import dataclass

from ...lazy import numpy as np  # imported at first use (tile-opt --help never calls it)

from ...dialect.decline import Decline
from ...layout import laneid, reg, warpid
from .layout_eval import axis_offsets
from .operand_plan import Operand, SmemOperand, matrix_of, plan_smem_operand
from .wgmma_a_regs import plan_register_a

__all__ = ["WgmmaPlan", "plan_wgmma", "fragment_coords"]

# element type -> (wgmma type name, bits, K of one instruction, accumulator types)
_TYPES = {
    "f16": ("f16", 16, 16, ("f32",)), "bf16": ("bf16", 16, 16, ("f32",)), "f32": ("tf32", 32, 8, ("f32",)),
    "f8E4M3FN": ("e4m3", 8, 32, ("f32",)), "f8E5M2": ("e5m2", 8, 32, ("f32",)),
    "i8": ("s8", 8, 32, ("i32", "si32")), "si8": ("s8", 8, 32, ("i32", "si32")),
    "ui8": ("u8", 8, 32, ("i32", "si32")),
}
_FAMILY = {"f16": "f16", "bf16": "bf16", "tf32": "tf32", "e4m3": "fp8", "e5m2": "fp8", "s8": "int", "u8": "int"}


@dataclass(frozen=True)
class WgmmaPlan:
    n: int
    k: int
    k_step: int
    type_a: str
    type_b: str
    type_d: str         # "f32" | "s32"
    a: SmemOperand | None   # None: A from registers (a_words)
    b: SmemOperand
    words: tuple[int, ...]  # accumulator register v -> the thread's register slot (32-bit word)
    warp0: int              # the first warp of the warpgroup (a multiple of 4)
    a_words: tuple[tuple[int, ...], ...] = ()  # A from registers: per K-step, the 4 words of A's registers

    @property
    def steps(self) -> int:
        return self.k // self.k_step


def fragment_coords(n: int):
    """(row, col) arrays [4 warps, 32 lanes, N/2 registers] of the m64nN f32/s32 accumulator."""
    w = np.arange(4)[:, None, None]
    lane = np.arange(32)[None, :, None]
    v = np.arange(n // 2)[None, None, :]
    row = 16 * w + lane // 4 + 8 * ((v >> 1) & 1)
    col = 8 * (v // 4) + 2 * (lane % 4) + (v & 1)
    return np.broadcast_to(row, (4, 32, n // 2)), np.broadcast_to(col, (4, 32, n // 2))


def _n_ok(family: str, n: int) -> tuple[bool, str]:
    if family == "int":
        return n in (8, 16, 24) or (n % 16 == 0 and 32 <= n <= 256), "8, 16, 24, then 32..256 step 16"
    return n % 8 == 0 and 8 <= n <= 256, "8..256 step 8"


def _plan_fragment(d: Operand, n: int) -> tuple[tuple[int, ...], int]:
    layout = d.layout
    if set(layout.axes()) - {warpid, laneid, reg} or layout.replica:
        raise Decline("d-fragment", f"the accumulator's layout {layout} must map onto warpid, laneid and reg "
                        "without replicas")
    offs = axis_offsets(layout, d.shape)
    zero = np.zeros(d.shape, dtype=np.int64)
    w_of, l_of, r_of = (matrix_of("d", offs.get(ax, zero), d.region) for ax in (warpid, laneid, reg))
    warp0 = int(w_of.min())
    if warp0 % 4:
        raise Decline("d-fragment", f"the accumulator starts at warp {warp0}, not the first warp of a warpgroup")
    row, col = fragment_coords(n)
    want_w = np.arange(4)[:, None, None] + warp0
    want_l = np.arange(32)[None, :, None]
    got_w, got_l, got_r = w_of[row, col], l_of[row, col], r_of[row, col]
    bad = np.argwhere((got_w != want_w) | (got_l != want_l))
    if len(bad):
        w, lane, v = (int(x) for x in bad[0])
        raise Decline("d-fragment", f"wgmma's accumulator register {v} of warp {w} lane {lane} is element "
                        f"({int(row[w, lane, v])}, {int(col[w, lane, v])}), which the layout gives to warp "
                        f"{int(got_w[w, lane, v])} lane {int(got_l[w, lane, v])}")
    words = got_r[0, 0]
    if (got_r != words[None, None, :]).any():
        w, lane, v = (int(x) for x in np.argwhere(got_r != words[None, None, :])[0])
        raise Decline("d-fragment", f"accumulator register {v} sits in register slot {int(got_r[w, lane, v])} "
                        f"in warp {w} lane {lane} but in slot {int(words[v])} in warp 0 lane 0: every thread "
                        "must keep it in the same slot")
    return tuple(int(x) for x in words), warp0


def plan_wgmma(d: Operand, a: Operand, b: Operand) -> WgmmaPlan:
    """Steps A-D. Raises Decline(check, reason)."""
    # A. types
    if a.elem not in _TYPES or b.elem not in _TYPES:
        bad = a.elem if a.elem not in _TYPES else b.elem
        raise Decline("kind", f"wgmma takes f16, bf16, tf32 (f32 buffers), e4m3, e5m2, s8 or u8 operands, "
                        f"got {bad}")
    ta, bits, k_step, d_types = _TYPES[a.elem]
    tb = _TYPES[b.elem][0]
    if _FAMILY[ta] != _FAMILY[tb]:
        raise Decline("kind", f"wgmma cannot multiply {a.elem} by {b.elem}")
    if d.elem not in d_types:
        raise Decline("d-type", f"wgmma of {ta} operands accumulates into {' / '.join(d_types)} here, d is {d.elem}")
    # B. shape
    md, n = matrix_of("d", np.zeros(d.shape, dtype=np.int8), d.region).shape
    k = matrix_of("a", np.zeros(a.shape, dtype=np.int8), a.region).shape[1]
    if md != 64:
        raise Decline("shape", f"wgmma's M is 64 per warpgroup, d has {md} rows")
    ok, allowed = _n_ok(_FAMILY[ta], n)
    if not ok:
        raise Decline("shape", f"wgmma with {ta} operands takes N = {allowed}, got {n}")
    if k % k_step:
        raise Decline("shape", f"K = {k} is not a multiple of wgmma's K = {k_step} for {ta}")
    # C. operands
    mn_ok = None if ta in ("f16", "bf16") else f"wgmma transposes only f16 / bf16 operands (imm-trans), not {ta}"
    b_op = plan_smem_operand("B", b.layout, b.shape, b.region, bits, k_step, b.align, mn_ok)
    # D. the accumulator fragment
    words, warp0 = _plan_fragment(d, n)
    if a.scope == "reg":
        a_op, a_words = None, plan_register_a(a, ta, bits, k_step, warp0)
    else:
        a_op, a_words = plan_smem_operand("A", a.layout, a.shape, a.region, bits, k_step, a.align, mn_ok), ()
    return WgmmaPlan(n, k, k_step, ta, tb, "s32" if _FAMILY[ta] == "int" else "f32", a_op, b_op, words, warp0,
                     a_words)
