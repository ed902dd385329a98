"""The tcgen05.ld / tcgen05.st family of the differential fuzzer (bench/fuzz.py): random register layouts
and tensor-memory layouts that each ld/st shape moves, and invalid ones the dispatch must reject.

A family module provides INVALID_KINDS, INVALID_CHECK, CHECK_RE, random_case(ch, invalid, idx),
run_case(case, seed=, ptxas_exe=) and label(case, outcome) (the hook: /tmp/coord/fuzz.md, bench/fuzz.py).

A valid case is built from a shape's fragment (docs/registers.md §3): the tile's rows are (warps, 16-lane
halves, the fragment's rows), its columns (16x32bx2's two halves, atoms along the columns, the
fragment's columns, the elements of one 32-bit word); each dim gets its register-side stride (warpid,
laneid, reg) and its tmem-side stride (TLane, TCol), so both layouts are the fragment by construction.
Drawn: shape, 8/16/32-bit elements (16-bit alone in their columns: .pack::16b), 1..8 atoms, both or one
lane half (offset 0 or 16), a column offset, scope warp (any of warps 0..3) or warpgroup, cta_group 2 in
about 1/6, a conversion of f32 to bf16/f16/e4m3/e5m2 in about 1/4. run_case (e2e_ldst_kernels) checks
every tmem cell against the tmem layout's apply() and the round trip against the input.
"""
from __future__ import annotations

import re

from e2e_ldst_kernels import LdStCase, run_case  # noqa: F401  (run_case: part of the family interface)

__all__ = ["INVALID_KINDS", "INVALID_CHECK", "CHECK_RE", "random_case", "run_case", "label", "SHAPES"]

SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
# the kernel's first copy_async is the tcgen05.st: its row of the dispatch's failure table
CHECK_RE = re.compile(r"reg->tmem: (?:declined|rejected): ([\w.-]+)")
INVALID_KINDS = ("lane_quarter", "transpose", "scope_thread", "replica", "spread_warps")
INVALID_CHECK = {"lane_quarter": "lane-quarter", "transpose": "shape", "scope_thread": "exec_scope",
                 "replica": "replica", "spread_warps": "scope"}
ELEMS = {32: "f32", 16: "bf16", 8: "ui8"}

# shape -> (rows: [(extent, register side, tmem lane stride)], cols: [(extent, register side, column)],
# registers per x1, columns per x1): a register side is ("laneid", stride) or ("regi", register stride)
FRAG = {
    "32x32b": ([(32, ("laneid", 1), 1)], [], 1, 1),
    "16x64b": ([(2, ("laneid", 1), 8), (8, ("laneid", 4), 1)], [(2, ("laneid", 2), 1)], 1, 2),
    "16x128b": ([(2, ("regi", 1), 8), (8, ("laneid", 4), 1)], [(4, ("laneid", 1), 1)], 2, 4),
    "16x256b": ([(2, ("regi", 2), 8), (8, ("laneid", 4), 1)], [(4, ("laneid", 1), 2), (2, ("regi", 1), 1)], 4, 8),
    "16x32bx2": ([(16, ("laneid", 1), 1)], [], 1, 1),
}


def random_case(ch, invalid: str | None, idx: int) -> LdStCase:
    shape = ch.pick(SHAPES)
    if invalid in ("lane_quarter", "spread_warps", "replica"):
        shape = "32x32b"
    bits = ch.pick((32, 32, 16, 8))
    pack = bits == 16 and shape != "16x32bx2" and ch.bool(0.5)
    epw = 2 if pack else 32 // bits          # elements per register
    unit = 32 // bits                       # TCol units per 32-bit column
    rows, cols, rpx, width = FRAG[shape]
    natoms = ch.pick((1, 2, 4, 8)) if width <= 4 else ch.pick((1, 2, 4))
    wide = shape != "32x32b"
    halves = ch.pick((1, 2)) if wide else 1
    lane_off = 16 * ch.int(0, 1) if wide and halves == 1 else 0
    scope = "warp" if (ch.bool(0.2) or invalid == "lane_quarter") and invalid != "spread_warps" else "warpgroup"
    nwarps = 1 if scope == "warp" else 4
    warp0 = ch.int(0, 2 if invalid == "lane_quarter" else 3) if scope == "warp" else 0  # (+32 lanes stays in tmem)
    cg = 2 if ch.bool(1 / 6) and invalid is None else 1
    col0 = ch.int(0, 8)
    per_half = natoms * rpx                 # registers of one lane half
    split = 2 if shape == "16x32bx2" else 1
    imm = natoms + ch.int(0, 4) if split == 2 else 0  # 16x32bx2: the second half's column offset
    # dims: (extent, register axis, register stride in elements, tmem axis, tmem stride in TCol units)
    col_scale = 2 if pack else 1             # columns per register column
    d = [(nwarps, "warpid", 1, "TLane", 32)]
    if halves == 2:
        d.append((2, "reg", per_half * epw, "TLane", 16))
    for ext, (ax, s), lane in rows:
        d.append((ext, "laneid" if ax == "laneid" else "reg", s if ax == "laneid" else s * epw, "TLane", lane))
    nrows = 1
    for x in d:
        nrows *= x[0]
    c = []
    if split == 2:
        c.append((2, "laneid", 16, "TCol", imm * unit * col_scale))
    c.append((natoms, "reg", rpx * epw, "TCol", width * unit * col_scale))
    for ext, (ax, s), col in cols:
        c.append((ext, "laneid" if ax == "laneid" else "reg", s if ax == "laneid" else s * epw,
                  "TCol", col * unit * col_scale))
    if epw > 1:  # the elements of one register: positions of one column, or (packed) two columns
        c.append((epw, "reg", 1, "TCol", unit if pack else 1))
    ncols = 1
    for x in c:
        ncols *= x[0]
    dims = d + c
    reg_strides = [f"{s}@{ax}" for _, ax, s, _, _ in dims]
    tmem_strides = [f"{s}@{ax}" for _, _, _, ax, s in dims]
    ext = ", ".join(str(x[0]) for x in dims)
    reg_off = [f"{warp0}@warpid"] if warp0 else []
    tm_off = [f"{32 * warp0 + lane_off + (32 if invalid == 'lane_quarter' else 0)}@TLane"] if \
        (warp0 or lane_off or invalid == "lane_quarter") else []
    if col0:
        tm_off.append(f"{col0 * unit}@TCol")
    reg = f"S[({ext}) : ({', '.join(reg_strides)})]" + (f" + O[{', '.join(reg_off)}]" if reg_off else "")
    tmem = f"S[({ext}) : ({', '.join(tmem_strides)})]" + (f" + O[({', '.join(tm_off)})]" if len(tm_off) > 1
                                                          else f" + O[{tm_off[0]}]" if tm_off else "")
    if invalid == "transpose":  # registers of a thread along rows, lanes along columns
        reg, tmem = "S[(32, 32) : (1@reg, 1@laneid)]", "S[(32, 32) : (1@TLane, 1@TCol)]"
        nrows, ncols, bits, scope = 32, 32, 32, "warp"
    elif invalid == "replica":
        tmem = f"S[(32, {ncols}) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"
        reg = f"S[(32, {ncols}) : (1@laneid, 1@reg)]"
        nrows, bits, scope, pack = 32, 32, "warp", False
    elif invalid == "spread_warps":
        reg = reg.replace("1@warpid", "2@warpid")
    if invalid == "scope_thread":
        scope = "thread"
    elem = ELEMS[bits]
    convert = None
    if bits == 32 and invalid is None and ch.bool(0.25):
        convert = ch.pick((("bf16", "rn"), ("bf16", "rz"), ("f16", "rn"), ("f8E4M3FN", "rn_satfinite"),
                           ("f8E5M2", "rn_satfinite")))
    block = 256 if invalid == "spread_warps" else 128  # (warps 0, 2, 4, 6 exist: the scope check declines)
    case = LdStCase(f"ldst{idx}", elem, (nrows, ncols), tmem, reg, reg, block=block, scope=scope, cta_group=cg,
                    convert=convert)
    case.expect = {"shape": shape, "pack": pack}
    return case


def label(case, outcome) -> str:
    m = re.search(r"tcgen05\.ld\.sync\.aligned\.(\w+)\.x\d+(\.pack::16b)?", outcome.ptx)
    return f"ld/st {m.group(1)}{' pack' if m.group(2) else ''}" if m else "ld/st ?"
