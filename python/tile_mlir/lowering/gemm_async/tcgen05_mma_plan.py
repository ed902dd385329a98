"""Plan of `tcgen05.mma.cta_group::N.kind::K[.block_scale]` (sm_100a) for one gemm_async (pure Python).

D[M, N] (+)= A[M, K] . B[N, K]^T, issued by one thread; the op's K is split into K-steps of 256 bits of A
per row, one instruction each (docs/gemm.md §3). Per CTA, d is (M / cta_group) x N in tensor memory, a
is (M / cta_group) x K in shared or tensor memory, b is (N / cta_group) x K in shared memory (with
cta_group 2 each CTA of the pair holds its share; PTX ISA "Matrix shape", CUTLASS's 2-SM split).

Steps:
A. kind: from the element types (kinds.derive_kind) or the op's `kind`; D's element type fits it
   ("kind", "d-type").
B. shape: M, N per kind and cta_group as the PTX ISA's shape table allows ("shape").
C. D's layout in tensor memory: every element at the lane/column the ISA's data-path layout for this M and
   cta_group puts it ("d-layout"): M=128 (and 256 with cta_group 2): lane m, column n; M=64: layout F,
   lane (m % 16) + 32 (m / 16) (+16 for the upper half), column n; M=128 with cta_group 2: layout B,
   lane m + 64 (n / (N/2)), column n % (N/2). 16-bit D takes one column per element (low half).
D. operands: shared-memory A and B through operand_plan (their descriptors); A in tensor memory (the
   .ts form, 128 rows per CTA) at D's lanes, K along columns, 8 columns per K-step ("a-tmem-layout").
E. block scaling: scale_vec and scale type per kind ("scale"); scale factor (r, j) scales K elements
   [j * scale_vec, (j + 1) * scale_vec) of the buffers' K (a K region starting at k0 reads blocks from
   k0 / scale_vec); each K-step's scale factors at lane r % 32 of all four lane quarters, column
   base + r / 32, byte sf_id + j (PTX ISA "Block Scaling", CUTLASS's tmem_sf_frg; "sf-layout"). A
   buffer may hold more rows or blocks than one MMA reads (a 128x4 atom also serves N < 128).
F. the instruction descriptors, one per K-step (block-scaled ones differ in their SF ids).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...dialect.enums import MemScope
from ...lazy import numpy as np  # imported at first use (tile-opt --help never calls it)

from ...dialect.decline import Decline
from ...layout import TCol, TileLayout, TLane
from .kinds import E4M3, E8M0, Kind, derive_kind
from .layout_eval import axis_offsets, replica_offsets
from .operand_plan import Operand, SmemOperand, matrix_of, matrix_region, plan_smem_operand

__all__ = ["Tcgen05MmaPlan", "plan_tcgen05_mma", "instr_desc"]

# ASSUMPTION, where PTX is silent (docs/gemm.md §5): with cta_group 2, each CTA's
# tensor core computes its M/2 rows for all N columns and reads scale factors from its own tensor memory
# only, so each CTA holds SFB for all N columns (and SFA for its own rows), SFB in CUTLASS's "2x2"
# placement when M = 128 (_sf_map). Used by plan_tcgen05_mma's step E only.


@dataclass(frozen=True)
class Tcgen05MmaPlan:
    kind: str
    block_scale: str | None      # "block16" | "block32" (block-scaled kinds), else None
    cta_group: int
    m: int
    n: int
    k: int
    idescs: tuple[int, ...]      # one per K-step
    a_smem: SmemOperand | None   # A in shared memory, or
    a_tmem_cols: tuple[int, ...] | None  # A in tensor memory: 32-bit column offset per K-step
    b_smem: SmemOperand
    d_offset: int                # added to D's tmem address: lane << 16 | column
    sfa_cols: tuple[int, ...] = ()  # per K-step, added to the scale-factor buffers' addresses
    sfb_cols: tuple[int, ...] = ()

    @property
    def steps(self) -> int:
        return len(self.idescs)


def instr_desc(kind: Kind, a_elem: str, b_elem: str, d_elem: str | None, m: int, n: int, a_mn: bool, b_mn: bool,
               scale_elem: str | None = None, sfa_id: int = 0, sfb_id: int = 0) -> int:
    """The 32-bit instruction descriptor (PTX ISA "Instruction descriptor", Tables 42-44). Block-scaled
    kinds write M >> 7 at bit 27 (PTX), not CUTLASS's M >> 4 at bit 24: the same bits for M = 128 and 256."""
    d = kind.codes[a_elem] << 7 | kind.codes[b_elem] << 10 | int(a_mn) << 15 | int(b_mn) << 16 | (n >> 3) << 17
    if kind.block_scaled:
        return d | sfb_id << 4 | int(scale_elem == E8M0) << 23 | (m >> 7) << 27 | sfa_id << 29
    return d | kind.d_codes[d_elem] << 4 | (m >> 4) << 24


def _n_ok(kind: Kind, cta_group: int, n: int, b_mn_8bit: bool) -> tuple[bool, str]:
    if kind.name == "i8":
        ok = (n in (8, 16, 24) or (n % 16 == 0 and 32 <= n <= 256)) if cta_group == 1 else \
             (n % 32 == 0 and 32 <= n <= 256)
        return ok, ("8, 16, 24, then 32..256 step 16" if cta_group == 1 else "32..256 step 32")
    if b_mn_8bit:
        return (n % 16 == 0 and 16 <= n <= 256, "16..256 step 16") if cta_group == 1 else \
               (n % 32 == 0 and 32 <= n <= 256, "32..256 step 32")
    step = 8 * cta_group
    return n % step == 0 and step <= n <= 256, f"{step}..256 step {step}"


def _d_map(md: int, n: int, cta_group: int):
    """(lane, column) of D[m, n] relative to D's base, per CTA (step C)."""
    mi, ni = np.arange(md)[:, None], np.arange(n)[None, :]
    if md == 64 and cta_group == 1:  # layout F
        return np.broadcast_to((mi % 16) + 32 * (mi // 16), (md, n)), np.broadcast_to(ni, (md, n))
    if md == 64:  # M = 128, cta_group 2: layout B
        half = n // 2
        return mi + 64 * (ni // half), ni % half
    return np.broadcast_to(mi, (md, n)), np.broadcast_to(ni, (md, n))


def _tmem_axes(name: str, op: Operand, check: str):
    """(TLane offsets, TCol offsets, layout) of a tmem operand's region, or Decline(check)."""
    layout = op.layout
    if not isinstance(layout, TileLayout) or set(layout.axes()) - {TLane, TCol}:
        raise Decline(check, f"{name}'s tensor-memory layout {layout} must map onto TLane and TCol")
    offs = axis_offsets(layout, op.shape)
    zero = np.zeros(op.shape, dtype=np.int64)
    return (matrix_of(name, offs.get(TLane, zero), op.region),
            matrix_of(name, offs.get(TCol, zero), op.region), layout)


def _plan_d(d: Operand, md: int, n: int, cta_group: int) -> int:
    """Step C: D's address offset (lane << 16 | column)."""
    lanes, tcol, layout = _tmem_axes("d", d, "d-layout")
    if layout.replica:
        raise Decline("d-layout", f"d's layout {layout} has replicas; D has one place per element")
    per_col = 1 if d.bits == 32 else 2  # 16-bit D: one element per 32-bit column, in its low half
    want_lane, want_col = _d_map(md, n, cta_group)
    lane0, tcol0 = int(lanes[0, 0]), int(tcol[0, 0])
    if tcol0 % per_col:
        raise Decline("d-layout", f"d starts at element column {tcol0}, not the low half of a 32-bit column")
    allowed = (0, 16) if (md == 64 and cta_group == 1) else (0,)
    if lane0 not in allowed:
        raise Decline("d-layout", f"d starts at lane {lane0}; this M and cta_group put D at lane "
                        f"{' or '.join(map(str, allowed))}")
    bad = np.argwhere((lanes - lane0 != want_lane) | (tcol - tcol0 != want_col * per_col))
    if len(bad):
        i, j = (int(v) for v in bad[0])
        layout_name = {64: "F" if cta_group == 1 else "B"}.get(md, "D" if cta_group == 1 else "A")
        raise Decline("d-layout", f"d's element ({i}, {j}) is at lane {int(lanes[i, j])}, element column "
                        f"{int(tcol[i, j])}; M = {md * cta_group} with cta_group {cta_group} (PTX data-path layout "
                        f"{layout_name}) writes it at lane {lane0 + int(want_lane[i, j])}, column "
                        f"{tcol0 // per_col + int(want_col[i, j])}")
    return lane0 << 16 | tcol0 // per_col  # (the verifier keeps the columns inside tensor memory)


def _plan_a_tmem(a: Operand, kind: Kind, md: int, k: int, d_lane0: int) -> tuple[int, ...]:
    """Step D, .ts form (`tcgen05.mma ... [d-tmem], [a-tmem], b-desc, idesc`): A[m, k] at D's lane of row m, K
    packed along the columns from a-tmem's column, every element of every row checked. PTX ISA 9.2 §9.7.16.10
    ("the A matrix has shape MxK, in either Tensor Memory or Shared Memory"; anchor
    #tcgen05-mma-instructions), §9.7.16.10.5 (the data-path layouts, #tcgen05-data-path-layout-organization:
    M = 128 with cta_group::1 is layout D, row m in lane m, Figure 211; M = 256 with cta_group::2 layout A, each
    CTA's 128 rows likewise; A and D "must use the same Tensor Memory lane alignment"), §9.7.16.10.4 (packing,
    #tcgen05-packing-formats: sub-word elements of A packed contiguously into each 32-bit word, low bits first;
    6- and 4-bit ones of .kind::mxf8f6f4 in 8-bit containers). The ISA draws the other placements (M = 64,
    M = 128 with cta_group::2) only in figures, so they are declined; tile-sim's reading is docs/emulator.md
    A36."""
    if md != 128:
        raise Decline("a-tmem-layout", f"A in tensor memory needs 128 rows per CTA (M = 128, or 256 with "
                        f"cta_group 2), got {md}: PTX gives A's lanes for M = 64 and for M = 128 with cta_group 2 "
                        "only in figures")
    lanes, tcol, layout = _tmem_axes("a", a, "a-tmem-layout")
    if layout.replica:
        raise Decline("a-tmem-layout", f"a's layout {layout} has replicas")
    lane0, tcol0 = int(lanes[0, 0]), int(tcol[0, 0])
    mi, ki = np.arange(md)[:, None], np.arange(k)[None, :]
    bad = np.argwhere((lanes - lane0 != mi) | (tcol - tcol0 != ki))
    if lane0 != d_lane0 or len(bad):
        i, j = (int(v) for v in bad[0]) if len(bad) else (0, 0)
        raise Decline("a-tmem-layout", f"a's element ({i}, {j}) is at lane {int(lanes[i, j])}, element column "
                        f"{int(tcol[i, j])}: A in tensor memory sits at D's lanes (row m at lane "
                        f"{d_lane0 + i}) with K packed along the columns from its first")
    bits = kind.geometry_bits  # (6-/4-bit elements of f8f6f4 sit in 8-bit containers in tensor memory too)
    if (tcol0 * bits) % 32:
        raise Decline("a-tmem-layout", f"a starts inside a 32-bit column (element column {tcol0})")
    col0 = tcol0 * bits // 32
    return tuple(col0 + s * 8 for s in range(k // kind.k_elems))


def _sf_map(rows: int, dup2x2: bool):
    """(lane, column) of scale-factor row r relative to the buffer's base, and the lane replicas: "4x1
    duplicated" (lane r % 32 in all four quarters, column r / 32) or, for SFB with M = 128 and cta_group 2,
    "2x2" (lane r % 32 + 64 (r / (N/2)) in two quarters, column (r % (N/2)) / 32: D's layout B)."""
    r = np.arange(rows)[:, None]
    if dup2x2:
        half = rows // 2
        return r % 32 + 64 * (r // half), (r % half) // 32, [0, 32]
    return r % 32, r // 32, [0, 32, 64, 96]


def _plan_sf(name: str, sf: Operand, rows: int, kb0: int, steps: int, nsf: int, ids: tuple[int, ...],
             dup2x2: bool):
    """Step E: per K-step (column offset, sf_id) of a scale-factor buffer; K-step s reads K-blocks
    kb0 + s * nsf .. + nsf - 1 of rows 0 .. rows - 1 (kb0: the K region's start in scale blocks)."""
    lanes, tcol, layout = _tmem_axes(name, sf, "sf-layout")
    if sf.bits != 8:
        raise Decline("scale", f"{name} must hold 8-bit scale factors, got {sf.elem}")
    if lanes.shape[0] < rows or lanes.shape[1] < kb0 + steps * nsf:
        raise Decline("sf-layout", f"{name} is {list(lanes.shape)}; the MMA reads rows 0..{rows - 1} x K-blocks "
                        f"{kb0}..{kb0 + steps * nsf - 1} (the K region's scale_vec blocks)")
    lanes, tcol = lanes[:rows], tcol[:rows]  # (a 128x4 atom also holds the scale factors of N < 128)
    want_lane, want_col, quarters = _sf_map(rows, dup2x2)
    reps = replica_offsets(layout)
    if sorted(r.get(TLane, 0) for r in reps) != quarters or any(set(r) - {TLane} for r in reps):
        raise Decline("sf-layout", f"{name} must be duplicated to lane quarters "
                        f"{', '.join(f'+{q}' for q in quarters)} (R[{len(quarters)} : 32@TLane]), got "
                        f"{layout.replica_text() or 'no replica'}")
    out = []
    for s in range(steps):
        blocks = slice(kb0 + s * nsf, kb0 + (s + 1) * nsf)
        ln, tc = lanes[:, blocks], tcol[:, blocks]
        base = int(tc[0, 0])
        col, sf_id = base // 4, base % 4
        if sf_id not in ids:
            raise Decline("sf-layout", f"{name}'s K-step {s} starts at byte {sf_id} of a column; this scale_vec "
                            f"reads {nsf} scale factor(s) from byte {' or '.join(map(str, ids))}")
        want_tc = (col + want_col) * 4 + sf_id + np.arange(nsf)[None, :]
        bad = np.argwhere((ln != want_lane) | (tc != want_tc))
        if len(bad):
            i, j = (int(v) for v in bad[0])
            raise Decline("sf-layout", f"{name}'s scale factor ({i}, {kb0 + s * nsf + j}) is at lane {int(ln[i, j])}, "
                            f"element column {int(tc[i, j])}; the MMA reads it at lane {int(want_lane[i, 0])}, "
                            f"column {col + int(want_col[i, 0])}, byte {sf_id + j}")
        out.append((col, sf_id))
    return out


def plan_tcgen05_mma(d: Operand, a: Operand, b: Operand, cta_group: int, kind_attr: str | None = None,
                     sfa: Operand | None = None, sfb: Operand | None = None,
                     scale_vec: int = 32) -> Tcgen05MmaPlan:
    """Steps A-F. Raises Decline(check, reason)."""
    block_scaled = sfa is not None
    # A. kind
    packed4 = a.packing is None and b.packing is None
    kind = derive_kind(a.elem, b.elem, packed4 and a.bits == 4, block_scaled, scale_vec,
                       sfa.elem if sfa else None, kind_attr)
    d_codes = kind.d_codes
    if d.elem not in d_codes:
        raise Decline("d-type", f".kind::{kind.name} accumulates into {' / '.join(d_codes)}, d is {d.elem}")
    for name, op in (("a", a), ("b", b)):
        if op.bits in (4, 6) and kind.geometry_bits == 8 and op.scope == MemScope.SHARED and op.packing is None:
            raise Decline("kind", f"{name} holds packed {op.bits}-bit data; .kind::{kind.name} reads "
                            f"{op.bits}-bit operands from shared memory padded to 8-bit slots: declare "
                            f"packing b{op.bits}x16_p{128 - 16 * op.bits}")
    # B. shape
    if cta_group not in (1, 2):
        raise Decline("shape", f"cta_group must be 1 or 2, got {cta_group}")
    d_mat = matrix_of("d", np.zeros(d.shape, dtype=np.int8), d.region)
    a_mat = matrix_of("a", np.zeros(a.shape, dtype=np.int8), a.region)
    b_mat = matrix_of("b", np.zeros(b.shape, dtype=np.int8), b.region)
    md, n = d_mat.shape
    m = md * cta_group
    k = a_mat.shape[1]
    if a_mat.shape[0] != md:
        raise Decline("shape", f"a has {a_mat.shape[0]} rows, d {md}: each CTA supplies M / cta_group rows")
    if b_mat.shape != (n // cta_group, k) or n % cta_group:
        raise Decline("shape", f"b is {list(b_mat.shape)}; with a of K = {k} and d of N = {n} it must be "
                        f"[{n // cta_group}, {k}] (N / cta_group x K)")
    ms = ((128,) if block_scaled else (64, 128)) if cta_group == 1 else (128, 256)
    if m not in ms:
        raise Decline("shape", f".kind::{kind.name} with cta_group {cta_group} takes M = "
                        f"{' or '.join(map(str, ms))}, got M = {m} (d has {md} rows per CTA)")
    if k % kind.k_elems:
        raise Decline("shape", f"K = {k} is not a multiple of .kind::{kind.name}'s K = {kind.k_elems}")
    steps = k // kind.k_elems
    # C. D's layout
    d_offset = _plan_d(d, md, n, cta_group)
    # D. operands
    mn_ok = {name: None if op.elem in kind.mn_major else
             f".kind::{kind.name} cannot transpose {op.elem} operands (PTX \"Transpose and Negate\")"
             for name, op in (("A", a), ("B", b))}
    if kind.name == "tf32":
        mn_ok = dict.fromkeys(mn_ok, "tf32 operands transpose only with the 128B_base32B swizzle, which "
                              "gemm_async does not lay out yet: make them K-major")
    a_smem = a_tmem = None
    if a.scope == MemScope.SHARED:
        a_smem = plan_smem_operand("A", a.layout, a.shape, a.region, kind.geometry_bits, kind.k_elems,
                                   a.align, mn_ok["A"])
    else:
        a_tmem = _plan_a_tmem(a, kind, md, k, d_offset >> 16)
    b_smem = plan_smem_operand("B", b.layout, b.shape, b.region, kind.geometry_bits, kind.k_elems,
                               b.align, mn_ok["B"])
    b_mn_8bit = b_smem.major == "MN" and b.bits == 8
    ok, allowed = _n_ok(kind, cta_group, n, b_mn_8bit)
    if not ok:
        raise Decline("shape", f".kind::{kind.name} with cta_group {cta_group}"
                        f"{' and MN-major 8-bit B' if b_mn_8bit and kind.name != 'i8' else ''} takes N = "
                        f"{allowed}, got {n}")
    a_mn = a_smem is not None and a_smem.major == "MN"
    b_mn = b_smem.major == "MN"
    # E, F. block scaling and the instruction descriptors
    if not block_scaled:
        idesc = instr_desc(kind, a.elem, b.elem, d.elem, m, n, a_mn, b_mn)
        return Tcgen05MmaPlan(kind.name, None, cta_group, m, n, k, (idesc,) * steps, a_smem, a_tmem, b_smem,
                              d_offset)
    if sfa.elem != sfb.elem or sfa.elem not in (E8M0, E4M3):
        raise Decline("scale", f"scale factors must both be {E8M0} (UE8M0) or both {E4M3} (UE4M3), got "
                        f"{sfa.elem} and {sfb.elem}")
    vecs = {"mxf8f6f4": (32,), "mxf4": (32,), "mxf4nvf4": (32, 16)}[kind.name]
    if scale_vec not in vecs:
        raise Decline("scale", f".kind::{kind.name} takes scale_vec {' or '.join(map(str, vecs))}, got {scale_vec}")
    if sfa.elem == E4M3 and not (kind.name == "mxf4nvf4" and scale_vec == 16):
        raise Decline("scale", "UE4M3 scale factors need .kind::mxf4nvf4 with scale_vec 16")
    nsf = kind.k_elems // scale_vec
    ids = {1: (0, 1, 2, 3), 2: (0, 2), 4: (0,)}[nsf]
    k0 = matrix_region(a.region)[1][0]
    if k0 != matrix_region(b.region)[1][0] or k0 % kind.k_elems:
        raise Decline("sf-layout", f"a's K region starts at {k0}, b's at {matrix_region(b.region)[1][0]}: with "
                        f"scale factors (indexed by the buffers' K) both must start at one multiple of {kind.k_elems}")
    sfa_steps = _plan_sf("sfa", sfa, md, k0 // scale_vec, steps, nsf, ids, False)
    sfb_steps = _plan_sf("sfb", sfb, n, k0 // scale_vec, steps, nsf, ids, md == 64 and cta_group == 2)
    idescs = tuple(instr_desc(kind, a.elem, b.elem, None, m, n, a_mn, b_mn, sfa.elem, sa[1], sb[1])
                   for sa, sb in zip(sfa_steps, sfb_steps))
    return Tcgen05MmaPlan(kind.name, f"block{scale_vec}", cta_group, m, n, k, idescs, a_smem, a_tmem, b_smem,
                          d_offset, tuple(c for c, _ in sfa_steps), tuple(c for c, _ in sfb_steps))
