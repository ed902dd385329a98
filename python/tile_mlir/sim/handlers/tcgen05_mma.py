"""tcgen05.mma (sm_100a): every dense kind (tf32, f16, f8f6f4, i8) and the block-scaled ones
(mxf8f6f4, mxf4, mxf4nvf4), A from shared memory or tensor memory, cta_group::1 and ::2.

Semantics from the PTX ISA tcgen05 chapter (§9.7.16.10): instruction descriptor
(smem_desc.decode_idesc, Tables 42-44), shapes (Table 39), the data-path layouts of D for each M
and cta_group (:func:`d_lanes`), block scaling with the scale factors in tensor memory
(:func:`scale_factors`); what PTX leaves open is docs/emulator.md A33-A39.  D is computed by
mma_numerics (MMA-Sim's Blackwell model; i8 exact).

Asynchrony: an MMA joins the issuing thread's tcgen05 pending list (handlers/tcgen05_async.py) like a
tcgen05.cp, so it completes at the thread's next ``tcgen05.commit`` of its cta_group, in issue
order with the cps before it (a scale-factor cp followed by the MMA that reads it is the usual
pipeline).  Shared-memory operands are read at issue (later stores into them before completion
are write-after-read races, as for cp); tensor-memory inputs (D for accumulation, A of the .ts
form, scale factors) are read when the MMA completes, after the writes of everything issued
before it; D's cells are tagged at issue, so a tcgen05.ld of them needs a wait on the mbarrier
of that commit or of any later commit of the issuer (each covers all its prior tcgen05 operations)
and tcgen05.fence::after_thread_sync.

cta_group::2 (two CTAs of a cluster, A33): each CTA's tensor core computes its own M/2 rows of D
from its M/2 rows of A (its own shared or tensor memory at the descriptor's offset / address) and
all N columns of B, of which each CTA's shared memory holds N/2; D lands in each CTA's tensor
memory.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import findings, mma_numerics, pure_memo
from ..errors import EmulationError
from ..memory import POISON, cells_at
from ..mma_operands import element_addresses
from ..smem_desc import (BLOCK_SCALED_KINDS, VERSION_RULE, check_for_mma, decode as decode_desc,
                         decode_idesc, unversioned, version_message)
from .mma_smem import read_operand
from . import tcgen05_async as aop  # the pending list and races an MMA joins
from . import tcgen05_chain
from .tcgen05_cp import decompress_b4, decompress_b6

KINDS = ("tf32", "f16", "f8f6f4", "i8") + BLOCK_SCALED_KINDS
#: kind -> K of one instruction (dense)
K_OF = {"tf32": 8, "f16": 16, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32, "mxf4": 64, "mxf4nvf4": 64}
F8F6F4 = {0: "e4m3", 1: "e5m2", 3: "e2m3", 4: "e3m2", 5: "e2m1"}
ATYPES = {"tf32": {2: "tf32"}, "f16": {0: "f16", 1: "bf16"}, "f8f6f4": F8F6F4,
          "i8": {0: "u8", 1: "s8"}, "mxf8f6f4": F8F6F4, "mxf4": {1: "e2m1x2"},
          "mxf4nvf4": {1: "e2m1x2"}}
DTYPES = {"tf32": {1: "f32"}, "f16": {0: "f16", 1: "f32"}, "f8f6f4": {0: "f16", 1: "f32"},
          "i8": {2: "s32"}, "mxf8f6f4": {1: "f32"}, "mxf4": {1: "f32"}, "mxf4nvf4": {1: "f32"}}
#: element type -> bits of one element in shared memory (6/4-bit f8f6f4 types: 16 per 16 bytes)
SMEM_BITS = {"tf32": 32, "f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "e2m3": 8, "e3m2": 8,
             "e2m1": 8, "u8": 8, "s8": 8, "e2m1x2": 4}
SUB_BYTE = {"e2m3": decompress_b6, "e3m2": decompress_b6, "e2m1": decompress_b4}
#: block-scaled kind -> {vector size qualifier (None: none given): scales per row per MMA}
SCALE_VEC = {"mxf8f6f4": {"scale_vec::1X": 1, "block32": 1},
             "mxf4": {"scale_vec::2X": 2, "block32": 2, None: 2},
             "mxf4nvf4": {"scale_vec::2X": 2, "block32": 2, "scale_vec::4X": 4, "block16": 4}}


def shape_error(kind: str, cg: int, m: int, n: int, mn_major_b8: bool) -> str | None:
    """Why (M, N) is not a shape of ``kind`` with ``cta_group::cg`` (PTX ISA Table 39), or None."""
    block = kind in BLOCK_SCALED_KINDS
    ms = ((128,) if block else (64, 128)) if cg == 1 else (128, 256)
    if m not in ms:
        return f"M = {m} is invalid (cta_group::{cg}{' block-scaled' if block else ''}: M in {ms})"
    if kind == "i8":
        ok = (n in (8, 16, 24) or (32 <= n <= 256 and n % 16 == 0)) if cg == 1 else \
            (32 <= n <= 256 and n % 32 == 0)
    else:
        step = 16 if (cg == 2 or mn_major_b8) else 8
        ok = step <= n <= 256 and n % step == 0
    return None if ok else f"N = {n} is invalid for .kind::{kind} with cta_group::{cg}"


def d_lanes(m_total: int, cg: int, n: int, lane0: int):
    """(lane, column offset) arrays, (M/cg) x N, of D[m][n] in each CTA of the pair (PTX ISA "Data path layout organization"; the M = 64 and cta_group::2 M = 128 maps as CUTLASS
    draws them, A34): M = 128 (cg 1) / 256 (cg 2): lane m, column n; M = 64: lane (m mod 16) +
    32(m / 16) + lane0 (0 or 16), column n; M = 128 with cg 2: lane m + 64(n / (N/2)), column
    n mod N/2.  ``m`` counts the CTA's own rows."""
    rows = m_total // cg
    m = np.arange(rows)[:, None]
    c = np.arange(n)[None, :]
    if m_total == 64:
        return np.broadcast_to(lane0 + (m % 16) + 32 * (m // 16), (rows, n)), \
            np.broadcast_to(c, (rows, n))
    if cg == 2 and m_total == 128:
        half = n // 2
        return m + 64 * (c // half), np.broadcast_to(c % half, (rows, n))
    return np.broadcast_to(m, (rows, n)), np.broadcast_to(c, (rows, n))


class MmaSpec:
    __slots__ = ("line", "cg", "kind", "block_scale", "nsf", "a_tmem", "scale_d_imm")


def decode_mma(d, inst):
    p = inst.parts
    if len(p) > 2 and p[2] in ("ws", "sp"):
        raise d.error(f"tcgen05.mma.{p[2]} is not emulated by tile-sim")
    s = MmaSpec()
    s.line = inst.line
    s.cg = aop.cta_group(d, inst)
    if s.cg is None:
        raise d.error("tcgen05.mma needs .cta_group::1 or ::2")
    kinds = [q[6:] for q in p if q.startswith("kind::")]
    if len(kinds) != 1 or kinds[0] not in KINDS:
        raise d.error(f"tcgen05.mma needs one .kind of {', '.join(KINDS)}")
    s.kind = kinds[0]
    s.block_scale = "block_scale" in p
    if s.block_scale != (s.kind in BLOCK_SCALED_KINDS):
        raise d.error(f".kind::{s.kind} " + ("needs .block_scale" if s.kind in BLOCK_SCALED_KINDS
                                             else "takes no .block_scale"))
    vec = [q for q in p if q.startswith("scale_vec::") or q in ("block16", "block32")]
    s.nsf = None
    if s.block_scale:
        table = SCALE_VEC[s.kind]
        v = vec[0] if len(vec) == 1 else (None if not vec else "?")
        if v not in table:
            raise d.error(f"invalid scale vector size {vec} for .kind::{s.kind} (valid: "
                          f"{', '.join('.' + k for k in table if k)})")
        s.nsf = table[v]
    known = {"tcgen05", "mma", f"cta_group::{s.cg}", f"kind::{s.kind}", "block_scale", *vec}
    extra = [q for q in p if q not in known and not q.startswith("collector::a::")]
    if extra:
        raise d.error(f"tcgen05.mma qualifier(s) {['.' + q for q in extra]} are not emulated "
                      f"(.ashift, .ws and .sp are declined)")
    ops = inst.operands
    if len(ops) < 5:
        raise d.error("tcgen05.mma needs [d-tmem], a-desc|[a-tmem], b-desc, idesc, ...")
    dta, _ = d.addr_expr(ops[0])
    s.a_tmem = ops[1][0] == "addr"
    a_e = d.addr_expr(ops[1])[0] if s.a_tmem else d.src(ops[1], 64)
    b_e, i_e = d.src(ops[2], 64), d.src(ops[3], 32)
    rest = ops[4:]
    sfa_e = sfb_e = "None"
    mask_e = "None"
    if s.block_scale:
        if len(rest) != 3 or rest[0][0] != "addr" or rest[1][0] != "addr":
            raise d.error("block-scaled tcgen05.mma needs [scale-A-tmem], [scale-B-tmem], "
                          "enable-input-d after idesc")
        sfa_e, sfb_e = d.addr_expr(rest[0])[0], d.addr_expr(rest[1])[0]
        rest = rest[2:]
    elif rest and rest[0][0] == "vec":
        if len(rest[0][1]) != 4 * s.cg:
            raise d.error(f"disable-output-lane takes {4 * s.cg} registers with "
                          f"cta_group::{s.cg}, got {len(rest[0][1])}")
        mask_e = "(" + ", ".join(d.src(o, 32) for o in rest[0][1]) + ",)"
        rest = rest[1:]
    if not 1 <= len(rest) <= 2:
        raise d.error("expected enable-input-d {, scale-input-d}")
    en_e = d.src(rest[0], 1)
    s.scale_d_imm = 0
    if len(rest) == 2:
        if rest[1][0] != "imm" or not 0 <= rest[1][1] <= 15:
            raise d.error("scale-input-d must be an immediate in 0..15")
        if s.kind not in ("tf32", "f16"):
            raise d.error("scale-input-d is only for .kind::tf32 and .kind::f16")
        s.scale_d_imm = rest[1][1]
    aop.observe(d.M)
    return d.compile([f"_mma(M, t, _spec, {dta}, {a_e}, {b_e}, {i_e}, {sfa_e}, {sfb_e}, "
                      f"{mask_e}, {en_e})"], {"_mma": exec_mma, "_spec": s})


def _types(s, idesc):
    k = s.kind
    errs = []
    if idesc.reserved:
        errs.append(f"reserved bits are set (0x{idesc.raw:08x})")
    if idesc.sparse:
        errs.append("sparsity (bit 2) is not emulated")
    if k not in BLOCK_SCALED_KINDS and idesc.ws_shift:
        errs.append("bits 30-31 (.ws B-reuse shift) must be 0 without .ws")
    at, bt = ATYPES[k].get(idesc.atype), ATYPES[k].get(idesc.btype)
    dt = DTYPES[k].get(idesc.dtype)
    if at is None or bt is None:
        errs.append(f"atype {idesc.atype} / btype {idesc.btype} invalid for .kind::{k}")
    if dt is None:
        errs.append(f"dtype {idesc.dtype} invalid for .kind::{k}")
    if k == "f16" and dt == "f16" and "bf16" in (at, bt):
        errs.append("an f16 D takes f16 inputs only")
    if k == "f16" and at and bt and at != bt:
        errs.append("A and B must have the same type for .kind::f16")
    if k != "i8" and k not in BLOCK_SCALED_KINDS and idesc.saturate:
        errs.append("the saturate bit (3) is for .kind::i8 only")
    if k == "i8" and (idesc.negate_a or idesc.negate_b):
        errs.append("negate bits must be 0 for .kind::i8")
    if k in ("mxf4", "mxf4nvf4") and (idesc.transpose_a or idesc.transpose_b):
        errs.append("transpose bits must be 0 for .kind::mxf4 / mxf4nvf4")
    if k in BLOCK_SCALED_KINDS:
        if idesc.k96:
            errs.append("K = 96 (bit 31) is sm_103a only")
        if idesc.scale_type == 0 and not (k == "mxf4nvf4" and s.nsf == 4):
            errs.append("UE4M3 scales (bit 23 = 0) need .kind::mxf4nvf4 with .block16")
        ids = {1: (0, 1, 2, 3), 2: (0, 2), 4: (0,)}[s.nsf]
        if idesc.sfa_id not in ids or idesc.sfb_id not in ids:
            errs.append(f"scale-factor IDs ({idesc.sfa_id}, {idesc.sfb_id}) must be in {ids}")
    if (at in SUB_BYTE and idesc.transpose_a) or (bt in SUB_BYTE and idesc.transpose_b):
        errs.append("MN-major 6- and 4-bit operands are not emulated")
    if errs:
        raise EmulationError("invalid tcgen05.mma instruction descriptor: " + "; ".join(errs))
    return at, bt, dt


def exec_mma(M, t, s, d_taddr, a_src, b_desc, idesc_v, sfa_addr, sfb_addr, mask, enable):
    aop.check_cta_group(M, s.cg, s.line)
    idesc = decode_idesc(idesc_v, s.kind)
    at, bt, dt = _types(s, idesc)
    k = K_OF[s.kind]
    err = shape_error(s.kind, s.cg, idesc.m, idesc.n, bool(idesc.transpose_b) and
                      SMEM_BITS[bt] == 8)
    if err:
        raise EmulationError(f"tcgen05.mma: {err} (idesc 0x{idesc.raw:08x})")
    m_total, n = idesc.m, idesc.n
    rows = m_total // s.cg
    ctas = aop.cta_pair(M, t, s.cg)
    L0, C0 = (d_taddr >> 16) & 0xFFFF, d_taddr & 0xFFFF
    if L0 not in ((0, 16) if m_total == 64 else (0,)):
        raise EmulationError(f"tcgen05.mma D address 0x{d_taddr:08x}: lane field {L0} must be 0"
                             + (" or 16" if m_total == 64 else ""))
    bdd = decode_desc(b_desc)
    _check(M, bdd, "B", s.line)
    add = None if s.a_tmem else decode_desc(a_src)
    if add is not None:
        _check(M, add, "A", s.line)
    if s.a_tmem and not (m_total == 128 * s.cg):
        raise EmulationError(f"tcgen05.mma with A in tensor memory is emulated for M = 128 "
                             f"(cta_group::1) and M = 256 (cta_group::2) only, not M = {m_total}")
    # shared-memory operands, read at issue: A (own rows) per CTA, B as N/cg columns per CTA
    spans = []
    per_cta_b = [read_operand(M, t, c, bdd, n // s.cg, k, SMEM_BITS[bt], not idesc.transpose_b,
                              "tcgen05.mma B", s.line, spans) for c in ctas]
    b_raw = np.concatenate(per_cta_b)
    b = _containers(b_raw, bt, ctas, bdd, n // s.cg, k, not idesc.transpose_b)
    a_smem = [None] * len(ctas)
    if add is not None:
        for i, c in enumerate(ctas):
            raw = read_operand(M, t, c, add, rows, k, SMEM_BITS[at], not idesc.transpose_a,
                               "tcgen05.mma A", s.line, spans)
            a_smem[i] = _containers(raw, at, [c], add, rows, k, not idesc.transpose_a)
    lanes, cols = [], []
    for r, c in enumerate(ctas):
        L, C = d_lanes(m_total, s.cg, n, L0)
        err = c.tmem.check_cols(C0, C0 + int(C.max()) + 1)
        if err:
            raise EmulationError(f"tcgen05.mma D columns of CTA {c.idx}: {err}")
        lanes.append(L)
        cols.append(np.broadcast_to(C[:1] + C0, C.shape))  # (each d_lanes column map: one row, broadcast)
    disabled = _mask_lanes(mask, s.cg)

    def read_c(r):
        """(D's cells before, C) in CTA r, as the MMA reads them when it completes."""
        c = ctas[r]
        tm = c.tmem
        ix = cells_at(lanes[r], cols[r])
        old = tm.cells[ix].astype(np.uint32)
        cin = (old & 0xFFFF) if dt == "f16" else old
        if not enable:
            cin = np.zeros_like(cin)
        elif not tm.written[ix].all():
            M.warn(f"line {s.line}: tcgen05.mma in CTA {c.idx} accumulates onto TMEM cells "
                   f"that were never written (poison 0x{POISON:08X})", key=("mmapoison", s.line))
        return old, cin

    def read_sf(r):
        if not s.block_scale:
            return {}
        tm = ctas[r].tmem
        return dict(sfa=scale_factors(tm, sfa_addr, rows, s.nsf, idesc.sfa_id, "A"),
                    sfb=scale_factors(tm, sfb_addr, n, s.nsf, idesc.sfb_id, "B",
                                      half=(s.cg == 2 and m_total == 128)).T)

    def compute():
        writes = []
        for r, c in enumerate(ctas):
            L, C = lanes[r], cols[r]
            a = a_smem[r] if a_smem[r] is not None else _a_from_tmem(c.tmem, a_src, at, rows, k)
            old, cin = read_c(r)
            sf = read_sf(r)
            if sf:
                sf.update(block=k // s.nsf, stype="ue8m0" if idesc.scale_type else "ue4m3")
            dres = pure_memo.call(  # (explore: looked up when the inputs repeat)
                mma_numerics.tcgen05, s.kind, dt, at, bt, a, b.T, cin,
                m=64 if rows == 64 else 128, n=n, k=k,
                negate_a=bool(idesc.negate_a), negate_b=bool(idesc.negate_b),
                saturate=bool(idesc.saturate), scale_d=s.scale_d_imm if enable else 0, **sf)
            if disabled is not None:
                dres = np.where(disabled[r][L], old, dres)
            writes.append((c, L.reshape(-1), np.ascontiguousarray(C).reshape(-1),
                           dres.astype(np.uint32).reshape(-1)))
        return writes

    rec = aop.AsyncOp(M, "tcgen05.mma", s.line, s.cg, t, compute)
    if not idesc.saturate:  # (the one bit a chain's key leaves out: it is i8's, never fused)
        sf_spans = [_sf_span(sfa_addr, rows), _sf_span(sfb_addr, n)] if s.block_scale else []
        rec.chain = tcgen05_chain.link(s, s.kind, dt, at, bt, k, idesc, d_taddr, ctas, lanes, cols,
                                       a_smem, b.T, enable, disabled, read_c, read_sf, sf_spans)
    for r, c in enumerate(ctas):
        aop.tag_dest(rec, c, lanes[r], cols[r])
    for c, lo, hi in spans:
        aop.watch_reads(rec, c, lo, hi)
    aop.issue(t, rec)
    M.progress += 1


def _sf_span(taddr, rows):
    """(first, end) of the tensor-memory columns a scale-factor set may occupy (scale_factors:
    column base + r / 32 for MN index r < rows)."""
    c0 = taddr & 0xFFFF
    return c0, c0 + (rows + 31) // 32


def _check(M, dd, which, line):
    errs = check_for_mma(dd)
    if errs:
        raise EmulationError(f"invalid tcgen05.mma {which} descriptor: " + "; ".join(errs) +
                             f" [{dd}]")
    if unversioned(dd):
        findings.report(M, VERSION_RULE, f"line {line}: " + version_message(dd, f"tcgen05.mma "
                                                                             f"{which}"), line=line)


def _containers(raw, etype, ctas, dd, rows, k, k_major):
    """8-bit containers (MMA-Sim's fp6/fp4 operand form) of 6- and 4-bit f8f6f4 elements, which
    shared memory holds 16 per 16 bytes (``.b6x16_p32`` / ``.b4x16_p64``, A35); other types as
    read."""
    dec = SUB_BYTE.get(etype)
    if dec is None:
        return raw
    out = []
    for c in ctas:
        addr, _ = element_addresses(dd.start, rows, k, 8, k_major, dd.lbo, dd.sbo, dd.swizzle)
        base, pos = addr & ~15, addr & 15
        chunks = c.smem.np[base[..., None] + np.arange(16)]
        vals = dec(chunks)  # (rows, k, 16)
        out.append(np.take_along_axis(vals, pos[..., None], axis=-1)[..., 0].astype(np.uint32))
    return np.concatenate(out)


def _a_from_tmem(tm, a_taddr, at, rows, k):
    """A of the .ts form (M = 128 per CTA): row m in lane m, its K elements packed into 32-bit
    columns from the address's column on, low bits first (A36)."""
    L0, C0 = (a_taddr >> 16) & 0xFFFF, a_taddr & 0xFFFF
    bits = {"e2m1x2": 4}.get(at, min(SMEM_BITS[at], 32))
    per = 32 // bits
    ncol = k // per
    err = tm.check_cols(C0, C0 + ncol)
    if err:
        raise EmulationError(f"tcgen05.mma A in tensor memory: {err}")
    if L0:
        raise EmulationError(f"tcgen05.mma A address 0x{a_taddr:08x}: lane field must be 0")
    words = tm.cells[np.arange(rows)[:, None], C0 + np.arange(ncol)[None, :]].astype(np.uint64)
    shifts = (np.arange(per, dtype=np.uint64) * bits)
    vals = (words[..., None] >> shifts) & np.uint64((1 << bits) - 1)
    return vals.reshape(rows, k).astype(np.uint32)


def scale_factors(tm, taddr, rows, nsf, sf_id, which, half=False):
    """rows x nsf scale-factor bytes from tensor memory (A37): for MN index r, the word at lane
    (r mod 32) + 32q of column base + r / 32, bytes sf_id .. sf_id + nsf - 1; every lane quarter q
    must hold the same copy (PTX: the scales are duplicated to all 32-lane partitions).  ``half``:
    B of cta_group::2 with M = 128, two copies: column n in lanes (n' mod 32) + 64(n / (N/2)) + 32q,
    q in {0, 1}, column base + n' / 32 for n' = n mod N/2."""
    if (taddr >> 16) & 0x3FFF:
        raise EmulationError(f"scale-factor-{which} address 0x{taddr:08x}: lane field must be 0")
    C0 = taddr & 0xFFFF  # bits 30-31 (CUTLASS puts the SF ID there) are ignored (A37)
    copies, col = _sf_cells(C0, rows, half)
    err = tm.check_cols(C0, int(col.max()) + 1)
    if err:
        raise EmulationError(f"scale factors {which} in tensor memory: {err}")
    shifts = 8 * (sf_id + np.arange(nsf, dtype=np.uint32))
    words = tm.cells[copies, col]  # (copies, rows): every copy's word of each MN index
    got = (words[:, :, None] >> shifts) & 0xFF
    if (got != got[:1]).any():
        raise EmulationError(f"scale factors {which} at column {C0} differ between the lane "
                             f"quarters (PTX ISA: they must be duplicated to all lane partitions)")
    return got[0]


@functools.lru_cache(maxsize=256)
def _sf_cells(C0, rows, half):
    """(lanes of each copy, column) of scale_factors' MN indices, (copies, rows) and (1, rows); shared, read
    only."""
    r = np.arange(rows)
    if half:
        h = rows // 2
        rr, g = r % h, r // h
        copies = np.stack([(rr % 32) + 64 * g + 32 * q for q in range(2)])
        col = C0 + rr // 32
    else:
        copies = np.stack([(r % 32) + 32 * q for q in range(4)])
        col = C0 + r // 32
    col = col[None, :]
    copies.flags.writeable = col.flags.writeable = False
    return copies, col


def _mask_lanes(mask, cg):
    """Per CTA of the pair, a (128,) bool array of the lanes disable-output-lane keeps, or None:
    bit i of element j is lane 32j + i; with cta_group::2 elements 0-3 are the even CTA's and 4-7
    the odd CTA's (A38)."""
    if mask is None:
        return None
    bits = np.array([[(w >> i) & 1 for i in range(32)] for w in mask], dtype=bool).reshape(-1)
    return [bits[128 * r:128 * r + 128] for r in range(cg)]
