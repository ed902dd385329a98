"""The tcgen05.cp family of the differential fuzzer (bench/fuzz.py, test_fuzz_differential.py): random
shared -> tensor memory copy_async cases for every cp shape, and invalid ones the dispatch must reject.

A family module provides INVALID_KINDS, INVALID_CHECK, CHECK_RE, random_case(ch, invalid, idx),
run_case(case, seed=, ptxas_exe=) and label(case, outcome) (the hook: /tmp/coord/fuzz.md, bench/fuzz.py).
`ch` chooses: ch.int(lo, hi) inclusive, ch.pick(seq), ch.bool(p).

Valid cases are valid by construction: a shape (128x256b, 128x128b, 4x256b, 64x128b.warpx2::02_13 / ::01_23,
32x128b.warpx4) picks the tmem layout's rows and replica (docs/tcgen05.md §7); dtype bits 4 (packed, or
padded b4x16_p64), 6 (b6x16_p32), 8, 16, 32; K-major shared layouts with swizzle 32B/64B/128B or
core-matrix layouts without; rows and K starting on swizzle atoms; 1..8 cps along K; tmem columns at
multiples of 4, tiles contiguous or spaced; the block-scaled scale-factor layouts; cta_group 2 in about
1/6. The expectation is e2e_kernels.expected (numpy from logical coordinates), so a case checks every
lane of tensor memory and the tcgen05.ld readback.
"""
from __future__ import annotations

import re

from e2e_kernels import Case, run_case  # noqa: F401  (run_case: part of the family interface)

__all__ = ["INVALID_KINDS", "INVALID_CHECK", "CHECK_RE", "random_case", "run_case", "label", "RngChooser",
           "SHAPES"]

CHECK_RE = re.compile(r"smem->tmem: (?:declined|rejected): ([\w.]+)")

ELEMS = {4: ("ui4", "f4E2M1FN"), 6: ("f6E2M3FN", "f6E3M2FN", "i6"), 8: ("ui8", "f8E4M3FN"), 16: ("bf16", "f16"),
         32: ("f32", "i32")}
SF_ELEMS = ("f8E8M0FNU", "f8E4M3FN", "ui8")  # UE8M0 / UE4M3 scale factors (their bytes)
PITCH = {"none": 16, "32B": 32, "64B": 64, "128B": 128}
SHAPES = ("128x256b", "128x128b", "4x256b", "64x128b.warpx2::02_13", "64x128b.warpx2::01_23", "32x128b.warpx4")
_ROWS = {"128x256b": 128, "128x128b": 128, "4x256b": 4, "64x128b.warpx2::02_13": 64,
         "64x128b.warpx2::01_23": 64, "32x128b.warpx4": 32}
_W4 = " + R[4 : 32@TLane]"

INVALID_KINDS = ("mid_atom_row", "mid_atom_col", "wrong_swizzle", "missing_replica", "scope_warp",
                 "dtype_6bit", "unaligned_column", "replica_no_multicast", "lbo_swizzled_4x256b",
                 "row_too_narrow_4x256b")
# the planner check (or dispatch predicate) each invalid kind must be rejected by
INVALID_CHECK = {"mid_atom_row": "alignment.src_start", "mid_atom_col": "alignment.src_start",
                 "wrong_swizzle": "swizzle", "missing_replica": "router", "scope_warp": "exec_scope",
                 "dtype_6bit": "dtype", "unaligned_column": "alignment.tmem_col",
                 "replica_no_multicast": "validate_smem_tmem_copy", "lbo_swizzled_4x256b": "lbo",
                 "row_too_narrow_4x256b": "group"}


class RngChooser:
    """Choices from a numpy Generator (bench/fuzz.py); hypothesis supplies its own with the same API."""

    def __init__(self, rng):
        self.rng = rng

    def int(self, lo, hi):  # inclusive
        return int(self.rng.integers(lo, hi + 1))

    def pick(self, seq):
        return seq[int(self.rng.integers(0, len(seq)))]

    def bool(self, p=0.5):
        return bool(self.rng.random() < p)


def label(case: Case, outcome) -> str:
    """The shape (and multicast) of the emitted cps, e.g. "cp 64x128b.warpx2::01_23"."""
    quals = {ln.split()[0].split(".", 3)[3] for ln in outcome.cp_lines}  # drop tcgen05.cp.cta_group::N
    shapes = {q.split(".b8x16")[0] for q in quals}
    return "cp " + "+".join(sorted(shapes))


# ----------------------------------------------------------------------------------------------------
# valid cases
# ----------------------------------------------------------------------------------------------------
def _shared_layout(gbits, mode, rows, k):
    """K-major (kmajor_layout) when swizzled; without swizzle the core-matrix layout: 16-byte K chunks,
    each `rows` x 16 B contiguous (a 256-bit row's two chunks are then rows x 16 B apart: LBO)."""
    epc = 128 // gbits
    if mode == "none":
        nk = k // epc
        return f"S[({rows}, {nk}, {epc}) : ({epc}, {rows * epc}, 1)]" if nk > 1 else f"S[({rows}, {epc}) : ({epc}, 1)]"
    from tile_mlir.layout import SwizzleMode, kmajor_layout
    return str(kmajor_layout([rows, k], gbits, SwizzleMode(mode)))


def _tmem(shape, tiles, gap, epr, tw):
    """(tmem layout, tmem shape) for `tiles` tiles of one cp row each (epr elements), `gap` x epr apart,
    or for gap 0 one contiguous row of tw elements."""
    rows = _ROWS[shape]
    if shape == "4x256b":
        return f"S[(4, 32, {tw}) : (32@TLane, 1@TLane, 1@TCol)]", (4, 32, tw)
    if shape.endswith("01_23"):
        return f"S[(2, 32, {tw}) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]", (64, tw)
    rep = {"64x128b.warpx2::02_13": " + R[2 : 64@TLane]", "32x128b.warpx4": _W4}.get(shape, "")
    if gap:
        return f"S[({rows}, {tiles}, {epr}) : (1@TLane, {gap * epr}@TCol, 1@TCol)]{rep}", (rows, tiles, epr)
    return f"S[({rows}, {tw}) : (1@TLane, 1@TCol)]{rep}", (rows, tw)


def _valid_case(ch, idx, shape=None, scale_factors=True) -> Case:
    shape = shape or ch.pick(SHAPES)
    if scale_factors and shape in ("32x128b.warpx4", "64x128b.warpx2::01_23") and ch.bool(0.15):
        return _scale_factor_case(ch, shape, idx)
    bits = ch.pick((4, 6, 8, 16, 32))
    elem = ch.pick(ELEMS[bits])
    meta = {}
    if bits == 4 and ch.bool(0.35):
        meta["packing"] = "b4x16_p64"   # padded 4-bit, decompressed to 8-bit containers
    gbits = 8 if bits == 6 or meta else bits  # geometry: padded units move as 16 one-byte slots
    nch = 2 if shape.endswith("256b") else 1
    mode = ch.pick(("none", "32B", "64B", "128B"))
    epc = 128 // gbits
    epr = epc * nch            # elements per cp row
    e32 = 32 // gbits
    rows_cp = _ROWS[shape]
    swz = mode != "none"
    atom_k = PITCH[mode] * 8 // gbits if swz else epr
    per_atom = atom_k // epr   # cps per swizzle atom row (1 without swizzle)
    for _ in range(8):
        if per_atom > 1 and ch.bool(0.5):
            n_cps = ch.int(1, per_atom)                     # K steps inside one atom
        else:
            n_cps = per_atom * ch.int(1, max(1, 8 // per_atom))  # whole atoms
        kw = n_cps * epr
        atoms = -(-kw // atom_k)
        k = (atoms + ch.int(0, 2)) * atom_k
        rows = rows_cp if rows_cp >= 64 else ch.pick((8, 16, 32) if rows_cp == 4 else (32, 64, 96, 128))
        rows = max(rows, rows_cp)
        if rows * k * gbits // 8 <= 32768:
            break
    else:
        n_cps, kw, atoms, k, rows = 1, epr, 1, atom_k, max(rows_cp, 8)
    lay = _shared_layout(gbits, mode, rows, k)
    r0 = (8 * ch.int(0, (rows - rows_cp) // 8)) if swz else ch.int(0, rows - rows_cp)
    k0 = atom_k * ch.int(0, k // atom_k - atoms) if swz else epc * ch.int(0, (k - kw) // epc)
    src_region = ((r0, k0), (rows_cp, kw))
    # tmem: n cps; tiles gap cp-rows apart (gap 0: one contiguous row); 128x128b gets tiles 2 chunks
    # apart so that no 256-bit row exists (else the planner takes 128x256b)
    single_lane_iter = shape in ("128x256b", "128x128b", "64x128b.warpx2::02_13", "32x128b.warpx4")
    gap = 2 if shape == "128x128b" else (ch.pick((0, 0, 2)) if single_lane_iter else 0)
    span = (n_cps - 1) * 4 * nch * max(gap, 1) + 4 * nch
    c0 = 4 * ch.int(0, (512 - span) // 4 // (2 if ch.bool(0.7) else 1))
    if gap:
        tiles = min(n_cps + c0 // (4 * nch * gap) + 1, 512 // (4 * nch * gap))
        t0 = min(c0 // (4 * nch * gap), tiles - n_cps)
        tmem, tshape = _tmem(shape, tiles, gap, epr, 0)
        dst_region = ((0, t0, 0), (rows_cp, n_cps, epr))
    else:
        tw = min(c0 * e32 + kw + 4 * e32 * ch.int(0, 2), 512 * e32)
        tmem, tshape = _tmem(shape, 0, 0, epr, tw)
        if shape == "4x256b":
            dst_region = ((0, ch.int(0, 31), c0 * e32), (4, 1, kw))
        else:
            dst_region = ((0, c0 * e32), (rows_cp, kw))
    cg = 2 if ch.bool(1 / 6) else 1
    return Case(f"fz{idx}", elem, (rows, k), lay, tshape, tmem, src_region=src_region, dst_region=dst_region,
                cta_group=cg, meta=meta)


def _scale_factor_case(ch, shape, idx) -> Case:
    """Block-scaled MMA scale factors (docs/gemm.md §5, docs/gemm-walkthrough.md §1): 128x4 atoms of 512 B in
    shared memory, (r % 32) * 16 + (r / 32) * 4 + j; SFA "4x1" by 32x128b.warpx4 (lane r % 32 in every
    quarter, column r / 32), SFB "2x2" for cta_group 2 by 64x128b.warpx2::01_23 (lane r % 32 + 64 h + 32 q,
    column (r % half) / 32)."""
    elem = ch.pick(SF_ELEMS)
    if shape == "32x128b.warpx4":
        n = 128 * ch.int(1, 4)
        smem = f"S[({n // 128}, 4, 32, 4) : (512, 4, 16, 1)]" if n > 128 else "S[(4, 32, 4) : (4, 16, 1)]"
        tmem = f"S[({n // 32}, 32, 4) : (4@TCol, 1@TLane, 1@TCol)]{_W4}"
    else:
        # one cp per 128 rows of each half: the two halves' atoms of a cp sit 512 B apart (one 8-row
        # group stride for all 64 rows), successive 128-row blocks 1024 B apart
        n = 256 * ch.int(1, 2)
        half = n // 2
        smem = (f"S[(2, {half // 128}, 4, 32, 4) : (512, 1024, 4, 16, 1)]" if half > 128 else
                "S[(2, 4, 32, 4) : (512, 4, 16, 1)]")
        tmem = f"S[(2, {half // 32}, 32, 4) : (64@TLane, 4@TCol, 1@TLane, 1@TCol)] + R[2 : 32@TLane]"
    return Case(f"fz{idx}", elem, (n, 4), smem, (n, 4), tmem, cta_group=2 if ch.bool(1 / 3) else 1)


# ----------------------------------------------------------------------------------------------------
# invalid cases
# ----------------------------------------------------------------------------------------------------
def t2d_text(rows, cols):
    return f"S[({rows}, {cols}) : (1@TLane, 1@TCol)]{_W4}"


def _forced_mid_atom(ch, bits, elem, mode, what, idx):
    """An invalid swizzled copy: start mid-atom by rows (1..7) or by K (16 B .. P - 16 B)."""
    epc = 128 // bits
    atom_k = PITCH[mode] * 8 // bits
    rows, k = 64, 2 * atom_k
    lay = _shared_layout(bits, mode, rows, k)
    if what == "row":
        region = ((ch.int(1, 7), 0), (32, epc))
    else:
        region = ((0, epc * ch.int(1, atom_k // epc - 1)), (32, epc))
    return Case(f"fz{idx}", elem, (rows, k), lay, (32, epc), t2d_text(32, epc), src_region=region)


def _invalid_case(ch, invalid, idx) -> Case:
    case = _valid_case(ch, idx, "32x128b.warpx4", scale_factors=False)
    gbits = case.tbits
    epc, e32 = 128 // gbits, 32 // gbits
    kw = case.src_region[1][1]
    if invalid in ("mid_atom_row", "mid_atom_col"):
        bits = ch.pick((8, 16, 32))
        case = _forced_mid_atom(ch, bits, ch.pick(ELEMS[bits]), ch.pick(("32B", "64B", "128B")),
                                "row" if invalid == "mid_atom_row" else "col", idx)
    elif invalid == "wrong_swizzle":
        # rows pitch P of K-major data, declared with another swizzle (or none)
        bits = ch.pick((8, 16, 32))
        epc = 128 // bits
        true_mode = ch.pick(("32B", "64B", "128B"))
        other = ch.pick([x for x in PITCH if x != true_mode])
        kk = PITCH[true_mode] * 8 // bits
        body = f"S[(32, {kk}) : ({kk}, 1)]"
        case = Case(f"fz{idx}", ch.pick(ELEMS[bits]), (32, kk), body if other == "none" else f"Swizzle<{other}> o {body}",
                    (32, epc), t2d_text(32, epc), src_region=((0, 0), (32, epc)))
    elif invalid == "missing_replica":  # 32 rows without a multicast: no shape writes them
        case.tmem_layout = case.tmem_layout.replace(_W4, "")
    elif invalid == "replica_no_multicast":
        case.tmem_layout = case.tmem_layout.replace(_W4, f" + R[2 : {ch.pick((8, 16))}@TLane]")
    elif invalid == "scope_warp":
        case.meta["scope"] = "warp"
    elif invalid == "dtype_6bit":  # packed 6-bit data in shared memory (no packing b6x16_p32)
        case = Case(f"fz{idx}", ch.pick(ELEMS[6]), (32, 64), "S[(32, 64) : (64, 1)]", (32, 64), t2d_text(32, 64),
                    meta={"packing": None})
    elif invalid == "unaligned_column":
        bad = 4 * ch.int(0, 100) + ch.int(1, 3)   # whole 32-bit column, not a multiple of 4
        tw = (bad + 4) * e32 + kw
        case.tmem_shape, case.tmem_layout = (32, tw), t2d_text(32, tw)
        case.dst_region = ((0, bad * e32), (32, kw))
    elif invalid == "lbo_swizzled_4x256b":  # 256-bit rows whose chunks are not adjacent in a swizzled row
        bits = ch.pick((8, 16, 32))
        epc = 128 // bits
        mode = ch.pick(("64B", "128B"))
        row = PITCH[mode] * 8 // bits
        apart = epc * ch.int(2, row // epc - 1)
        case = Case(f"fz{idx}", ch.pick(ELEMS[bits]), (4, 2 * epc), f"Swizzle<{mode}> o S[(4, 2, {epc}) : ({row}, {apart}, 1)]",
                    (4, 2 * epc), f"S[(4, {2 * epc}) : (32@TLane, 1@TCol)]")
    elif invalid == "row_too_narrow_4x256b":  # 4 lanes 32 apart, 128 bits per row
        bits = ch.pick((8, 16, 32))
        epc = 128 // bits
        case = Case(f"fz{idx}", ch.pick(ELEMS[bits]), (4, epc), f"S[(4, {epc}) : ({epc}, 1)]", (4, epc),
                    f"S[(4, {epc}) : (32@TLane, 1@TCol)]")
    case.meta["invalid"] = invalid
    return case


def random_case(ch, invalid: str | None = None, idx: int = 0) -> Case:
    """A random smem -> tmem copy: valid by construction (invalid=None) or one of INVALID_KINDS, which
    the dispatch must reject by INVALID_CHECK[invalid]."""
    return _valid_case(ch, idx) if invalid is None else _invalid_case(ch, invalid, idx)
