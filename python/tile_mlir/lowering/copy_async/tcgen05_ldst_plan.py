"""Plan for tensor memory <-> registers by `tcgen05.ld` / `tcgen05.st` (pure Python, no MLIR).

One instruction is issued by a whole warp (`.sync.aligned`) with one `taddr`; warp w reaches only the
lanes 32 (w % 4) .. +31 of tensor memory (its lane quarter). Thread t's register i of
`tcgen05.{ld,st}.<shape>.xN` is the cell (L0 + row(t, i), C0 + col(t, i)) of the shape's fragment map
(docs/registers.md §3; the maps are in SHAPES). `.xN` repeats the shape's x1 atom N times along the
columns. The plan is the same for both directions; `tcgen05.wait::ld` / `wait::st` are the emitter's.

Algorithm
---------
A. dtype: 8, 16 or 32-bit elements; the tmem layout has no replica ("dtype", "replica").
B. slice both layouts to their regions and tabulate them element by element over the region's flat
   index (layout.offsets_table; the register side through layout.fragment_of); no two elements may
   share a tmem cell ("slice").
C. words: each register word (warp, lane, reg * bits / 32) must hold 32 / bits elements of the copy,
   all from one tmem word: the same 32-bit column in the same positions (unpacked), or, for 16-bit
   elements alone in the low half of their columns, columns c and c + 1 to the low and high half
   (`.pack::16b` / `.unpack::16b`, docs/registers.md §4) ("words").
D. threads: the warps are those of the scope (one warp, or four consecutive ones), every thread holds
   the same register words, and every tmem lane a warp's words name is in its lane quarter
   ("scope", "threads", "lane-quarter"). The warps' tables relative to their quarters are equal: one
   code sequence serves them all ("warps").
E. shape: for each shape, a register word can be register i of the atom at (L0, C0) when its cells
   minus row(t, i), col(t, i) are (L0, C0) in all 32 threads, L0 one of LANE_OFFSETS[shape]; whole
   atoms (all rpx registers present) are taken leftmost first, and they must take every word ("shape"). Of the shapes that fit, the one with the
   fewest instructions wins, ties in SHAPES order.
F. .num: atoms with the same L0 (and 16x32bx2 offset) adjacent along the columns merge; a run of k
   atoms is cut into powers of two, largest first, each at most max_registers / rpx atoms (the budget
   rule: one instruction moves at most 128 registers per thread, the PTX limit of .num, and fewer in a
   CTA so large that ptxas could not compile it: instruction_registers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...lazy import numpy as np  # imported at first use (tile-opt --help never calls it)

from ...dialect.decline import Decline
from ...dialect.enums import Scope
from ...layout import FragmentError, LayoutError, TCol, TileLayout, TLane, fragment_of
from ...layout.fragment import WARP_SIZE, offsets_table
from ...target import register_budget

__all__ = ["LdStInstr", "Tcgen05LdStPlan", "plan_tcgen05_ldst", "SHAPES", "REGISTER_BUDGET",
           "instruction_registers",
           "LANE_OFFSETS", "fragment_map"]

REGISTER_BUDGET = 128  # registers per thread of one tcgen05.ld/st (PTX: .num up to x128 of 1 register)
# ptxas compiles a tcgen05.ld only with registers to spare beyond the instruction's own (its C7602 message
# asks for 146 for a .x128 load, 18 more); we leave 32
LDST_HEADROOM = 32


def instruction_registers(threads: int) -> int:
    """The most registers per thread one tcgen05.ld/st moves in a CTA of `threads` threads: a power of two
    at most REGISTER_BUDGET that leaves LDST_HEADROOM of the thread's register budget (32 at 1024 threads)."""
    n = REGISTER_BUDGET
    while n + LDST_HEADROOM > register_budget(threads):
        n //= 2
    return n


# shape -> (registers per thread of .x1, lanes, columns of one x1 atom); PTX ISA "tcgen05.ld" / Matrix
# fragments (docs/tcgen05.md §11). Order: the preference among shapes that need as many instructions.
SHAPES = {
    "32x32b": (1, 32, 1),
    "16x256b": (4, 16, 8),
    "16x128b": (2, 16, 4),
    "16x64b": (1, 16, 2),
    "16x32bx2": (1, 16, 1),
}
# The taddr lane offsets (inside the warp's quarter) the plans use: a 32-lane shape covers the quarter,
# a 16-lane shape its upper or lower half, as CUTLASS and Triton issue them (docs/registers.md §5: PTX
# states no lane alignment; other offsets are untested on silicon and not used).
LANE_OFFSETS = {"32x32b": (0,), "16x256b": (0, 16), "16x128b": (0, 16), "16x64b": (0, 16), "16x32bx2": (0, 16)}


def fragment_map(shape: str) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of thread t's register i of the x1 atom, arrays of shape (32, rpx); 16x32bx2's second
    half (threads 16..31) is at column 0 here: its immediate offset is added by the plan."""
    t = np.arange(WARP_SIZE)[:, None]
    rpx = SHAPES[shape][0]
    i = np.arange(rpx)[None, :]
    if shape == "32x32b":
        return np.broadcast_to(t, (32, rpx)), np.broadcast_to(i * 0, (32, rpx))
    if shape == "16x64b":
        return (t >> 2) + 8 * (t & 1) + 0 * i, ((t >> 1) & 1) + 0 * i
    if shape == "16x128b":
        return (t >> 2) + 8 * (i & 1), (t & 3) + 0 * i
    if shape == "16x256b":
        return (t >> 2) + 8 * ((i >> 1) & 1), 2 * (t & 3) + (i & 1)
    if shape == "16x32bx2":
        return (t & 15) + 0 * i, 0 * t + 0 * i
    raise ValueError(shape)


@dataclass(frozen=True)
class LdStInstr:
    """One tcgen05.ld/st: taddr = buffer address + lane (32 (w % 4) + lane_offset) + column `col` (32-bit
    columns); register i of every thread is word regs[i] of its register tile."""

    lane_offset: int
    col: int
    num: int
    regs: tuple[int, ...]
    imm: int = 0  # 16x32bx2: the second half's column offset (immHalfSplitoff)


@dataclass(frozen=True)
class Tcgen05LdStPlan:
    shape: str
    pack: bool  # .pack::16b (ld) / .unpack::16b (st)
    warps: tuple[int, ...]  # the warps (warpid) that issue the instructions
    words: int  # 32-bit words of the register tile per thread (the tile's registers)
    instrs: tuple[LdStInstr, ...]


def _sliced(layout, shape, region, what) -> TileLayout:
    try:
        return layout.slice(shape, region).canonicalize()
    except LayoutError as e:
        raise Decline("slice", f"{what} region: {e}") from None


def plan_tcgen05_ldst(tmem_layout: TileLayout, tmem_shape: Sequence[int], tmem_region,
                      reg_layout: TileLayout, reg_shape: Sequence[int], reg_region, elem_bits: int,
                      scope: str, max_registers: int = REGISTER_BUDGET) -> Tcgen05LdStPlan:
    # A. dtype
    if elem_bits not in (8, 16, 32):
        raise Decline("dtype", f"tcgen05.ld/st move 32-bit words of 8, 16 or 32-bit elements, not {elem_bits}-bit")
    if tmem_layout.replica:
        raise Decline("replica", f"the tmem layout has a replica ({tmem_layout.replica_text()}): which copy a "
                        "warp reads would depend on its quarter; give the tile one copy")
    # B. slice and tabulate
    t_lay = _sliced(tmem_layout, tmem_shape, tmem_region, "tmem")
    r_lay = _sliced(reg_layout, reg_shape, reg_region, "register")
    if t_lay.shard_extent() != r_lay.shard_extent():
        raise Decline("slice", f"regions hold {t_lay.shard_extent()} and {r_lay.shard_extent()} elements")
    try:
        frag = fragment_of(r_lay)
    except FragmentError as e:
        raise Decline("register-layout", str(e)) from None
    tt = offsets_table(t_lay)
    zero = np.zeros(t_lay.shard_extent(), dtype=np.int64)
    t_lane, t_elem_col = tt.get(TLane, zero), tt.get(TCol, zero)
    cell = t_lane * (1 << 20) + t_elem_col
    if np.unique(cell).size != cell.size:
        raise Decline("slice", "two elements of the tmem region share a tmem cell: the tmem layout must be "
                        "injective over the region")
    # C. words
    epw = 32 // elem_bits
    r_word, r_sub = frag.slot // epw, frag.slot % epw
    t_col, t_sub = t_elem_col // epw, t_elem_col % epw
    pack = elem_bits == 16 and bool((t_sub == 0).all()) and bool((r_sub == 1).any())
    if pack:  # register halves h <- columns c + h (low halves)
        base_col = t_col - r_sub
    else:
        if not (t_sub == r_sub).all():
            x = int(np.nonzero(t_sub != r_sub)[0][0])
            raise Decline("words", f"element {x} is at position {int(r_sub[x])} of its register but "
                            f"{int(t_sub[x])} of its tmem column: a {elem_bits}-bit register and column must "
                            "hold the same elements in the same order (or, for 16-bit elements alone in the low "
                            "half of their columns, pairs of columns: .pack::16b)")
        base_col = t_col
    thread = frag.warp * WARP_SIZE + frag.lane
    key = thread * (int(r_word.max()) + 1) + r_word
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.nonzero(np.r_[True, ks[1:] != ks[:-1]])[0]
    counts = np.diff(np.r_[starts, ks.size])
    if (counts != epw).any():
        x = int(order[starts[np.nonzero(counts != epw)[0][0]]])
        raise Decline("words", f"register word {int(r_word[x])} of warp {int(frag.warp[x])} lane "
                        f"{int(frag.lane[x])} holds {int(counts[np.nonzero(counts != epw)[0][0]])} elements of "
                        f"the copy, not {epw}: tcgen05.ld/st move whole 32-bit registers")
    w_lane = t_lane[order]
    w_col = base_col[order]
    if epw > 1:
        seg = np.repeat(np.arange(starts.size), counts)
        for name, arr in (("lane", w_lane), ("column", w_col)):
            first = arr[starts][seg]
            if (arr != first).any():
                x = int(order[np.nonzero(arr != first)[0][0]])
                raise Decline("words", f"the elements of register word {int(r_word[x])} (warp "
                                f"{int(frag.warp[x])} lane {int(frag.lane[x])}) are in different tmem {name}s; "
                                "one register moves one 32-bit column" + (" pair" if pack else ""))
    heads = order[starts]
    W_thread, W_word = thread[heads], r_word[heads]
    W_lane, W_col = t_lane[heads], base_col[heads]
    # D. threads and warps
    warps = tuple(sorted(set(int(w) for w in W_thread // WARP_SIZE)))
    want = 1 if scope == Scope.WARP else 4
    if len(warps) != want or warps[-1] - warps[0] != want - 1:
        raise Decline("scope", f"scope \"{scope}\" issues from {want} consecutive warp(s), but the register "
                        f"layout puts elements in warps {list(warps)}")
    words = sorted(set(int(r) for r in W_word))
    n_threads = len(warps) * WARP_SIZE
    if W_word.size != n_threads * len(words):
        raise Decline("threads", f"every thread of warps {list(warps)} must hold the same register words "
                        f"(the instruction moves the same registers in all of them): {W_word.size} words over "
                        f"{n_threads} threads and {len(words)} distinct words")
    quarter = 32 * ((W_thread // WARP_SIZE) % 4)
    rel = W_lane - quarter
    if ((rel < 0) | (rel >= 32)).any():
        x = int(np.nonzero((rel < 0) | (rel >= 32))[0][0])
        w = int(W_thread[x] // WARP_SIZE)
        raise Decline("lane-quarter", f"warp {w} holds an element of tmem lane {int(W_lane[x])}, but a warp "
                        f"reaches only the lanes of its quarter, {32 * (w % 4)}..{32 * (w % 4) + 31} (warp % 4)")
    # tables [warp, lane, word index] of (lane in quarter, column)
    widx = {r: i for i, r in enumerate(words)}
    lane_tab = np.zeros((len(warps), WARP_SIZE, len(words)), dtype=np.int64)
    col_tab = np.zeros_like(lane_tab)
    wi = W_thread // WARP_SIZE - warps[0]
    li = W_thread % WARP_SIZE
    ri = np.array([widx[int(r)] for r in W_word], dtype=np.int64)
    lane_tab[wi, li, ri] = rel
    col_tab[wi, li, ri] = W_col
    if not ((lane_tab == lane_tab[0]).all() and (col_tab == col_tab[0]).all()):
        raise Decline("warps", "the warps' elements differ beyond their lane quarters: one code sequence, issued "
                        "by every warp with its quarter's lanes, must serve them all")
    # E. shape, F. .num
    fits, why = [], []
    for shape in SHAPES:
        try:
            fits.append(_instrs(shape, lane_tab[0], col_tab[0], words, 2 if pack else 1, max_registers))
        except Decline as e:
            why.append(f"{shape}: {e.reason}")
    if not fits:
        raise Decline("shape", "no tcgen05.ld/st shape covers the copy; " + "; ".join(why))
    shape, instrs = min(fits, key=lambda f: len(f[1]))  # (min is stable: ties go to SHAPES order)
    return Tcgen05LdStPlan(shape, pack, warps, -(-frag.slots_per_thread // epw), tuple(instrs))


def _instrs(shape: str, lanes: np.ndarray, cols: np.ndarray, words: list[int], f: int, max_registers: int):
    """E + F for one shape over one warp's tables [lane, word index] -> (shape, [LdStInstr])."""
    rpx, _, width = SHAPES[shape]
    if shape == "16x32bx2" and f == 2:
        raise Decline("shape", "16x32bx2 with .pack::16b is not emitted: PTX does not say whether "
                        "immHalfSplitoff counts packed or physical columns (docs/registers.md §5)")
    rows, acol = fragment_map(shape)
    # every (atom, register) each word could be; an atom is (L0, C0, imm)
    cands: dict[tuple[int, int, int], dict[int, int]] = {}
    for k, word in enumerate(words):
        lk, ck = lanes[:, k], cols[:, k]
        for i in range(rpx):
            L = lk - rows[:, i]
            C = ck - f * acol[:, i]
            if (L != L[0]).any() or int(L[0]) not in LANE_OFFSETS[shape]:
                continue
            if shape == "16x32bx2":
                imm = int(C[16] - C[0])
                if (C[:16] != C[0]).any() or (C[16:] != C[16]).any() or imm < 0:
                    continue
            elif (C != C[0]).any():
                continue
            else:
                imm = 0
            cands.setdefault((int(L[0]), int(C[0]), imm), {})[i] = word
    # leftmost whole atoms first (a translation tiling by rectangles is found left to right)
    atoms: dict[tuple[int, int, int], dict[int, int]] = {}
    taken: set[int] = set()
    for atom in sorted(cands, key=lambda a: (a[1], a[0], a[2])):
        slot = cands[atom]
        if len(slot) == rpx and not taken.intersection(slot.values()):
            atoms[atom] = slot
            taken.update(slot.values())
    if len(taken) != len(words):
        word = next(w for w in words if w not in taken)
        raise Decline("shape", f"register word {word} is in no whole {shape} atom at lane offset "
                        f"{' or '.join(map(str, LANE_OFFSETS[shape]))} of the quarter")
    step = f * width
    if shape == "16x32bx2":
        step = f  # x1 is one column per half
    max_n = max_registers // rpx
    out: list[LdStInstr] = []
    keys = sorted(atoms, key=lambda a: (a[0], a[2], a[1]))
    run: list[tuple[int, int, int]] = []
    for a in keys + [None]:
        if a is not None and run and (a[0], a[2]) == (run[-1][0], run[-1][2]) and a[1] == run[-1][1] + step:
            run.append(a)
            continue
        while run:
            n = min(max_n, 1 << (len(run).bit_length() - 1))
            piece, run = run[:n], run[n:]
            regs = tuple(atoms[p][i] for p in piece for i in range(rpx))
            out.append(LdStInstr(piece[0][0], piece[0][1], n, regs, piece[0][2]))
        if a is not None:
            run = [a]
    return shape, out
