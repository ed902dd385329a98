"""ldmatrix and stmatrix: warp-collective matrix loads and stores between shared memory and the
fragment registers of a warp (PTX ISA "Warp Level Matrix Load Instruction: ldmatrix" and "...Store
Instruction: stmatrix").

Forms (PTX ISA syntax; sm_100a adds the 8-bit ones)::

    ldmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16           r, [p];
    ldmatrix.sync.aligned.m16n16.num.trans{.ss}.b8            r, [p];   num = .x1 | .x2
    ldmatrix.sync.aligned.m16n16.num.trans{.ss}.b8x16.src_fmt r, [p];   num = .x1 | .x2
    ldmatrix.sync.aligned.m8n16.num{.ss}.b8x16.src_fmt        r, [p];
    stmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16           [p], r;
    stmatrix.sync.aligned.m16n8.num.trans{.ss}.b8             [p], r;
    num = .x1 | .x2 | .x4;  ss = .shared{::cta} (none: generic, which must point into shared);
    src_fmt = .b6x16_p32 | .b4x16_p64 (decompressed to 8-bit containers as tcgen05.cp does)

Every matrix is a set of 16-byte rows, each at an address one thread gives: rows 0-7 of the first
8-row matrix from threads 0-7, of the second from 8-15 and so on (16-row matrices: threads 0-15,
16-31); the addresses of the other threads are ignored.  A row address must be 16-byte aligned.

The fragments (:func:`table`), per thread T of the warp, register k, byte j of the register:

* m8n8 .b16 (ISA figure "ldmatrix fragment for 8x8 matrix"): a group of four threads holds a row;
  thread T holds row T/4, elements 2(T%4) and 2(T%4)+1 (low half first) of matrix k; .trans: that
  element (r, c) of the register view is element (c, r) of the matrix in memory;
* m16n16 .trans .b8 (16 rows of 16 bytes per matrix, 2 registers per matrix): "each thread loads 4
  consecutive columns across 2 rows": register k of matrix k/2 holds, in bytes j = 0..3, rows
  T/4 and T/4 + 8 of the register view (j >> 1), columns 4(T%4) + 2(k%2) + (j & 1); transposed
  from memory, so the byte comes from row 16(k/2) + 4(T%4) + 2(k%2) + (j & 1), byte T/4 + 8(j >> 1);
* m8n16 .b8x16: "each thread loads 4 consecutive columns": register k holds bytes 4(T%4)..+3 of
  row T/4 of matrix k (after decompression);
* stmatrix m16n8 .trans .b8 (8 rows of 16 bytes per matrix, one register each): byte j of
  register k goes to row 8k + 2(T%4) + (j & 1), byte T/4 + 8(j >> 1).

The ISA draws the 8-bit layouts only in figures; the bytes above are those figures as NVIDIA's
CUTLASS spells them in its copy traits for SM100_U8x{4,8,16}_{LD,ST}SM_T and SM100_SU{4,6}_DU8x16
(test/python/sim/test_matrix_tables.py checks them against those layouts evaluated literally).
"""

from __future__ import annotations

import numpy as np

from ..errors import EmulationError
from ..memory import own_offset
from ..state import shared_observe_load, shared_write
from .tcgen05_cp import DECOMPRESS  # the decompressions tcgen05.cp shares

NUMS = {"x1": 1, "x2": 2, "x4": 4}
SRC_FMTS = ("b6x16_p32", "b4x16_p64")


def table(op: str, shape: str, num: int, trans: bool) -> np.ndarray:
    """(32 lanes, registers, 4 bytes) -> index 16 * row + byte into the instruction's rows."""
    T = np.arange(32)[:, None, None]
    j = np.arange(4)[None, None, :]
    if shape == "m8n8":  # b16: two halves per register
        k = np.arange(num)[None, :, None]
        h, b = j >> 1, j & 1
        r, c = T // 4, 2 * (T % 4) + h  # element (r, c) of matrix k in the register view
        if trans:
            r, c = c, r
        return 16 * (8 * k + r) + 2 * c + b
    if shape == "m16n16":
        k = np.arange(2 * num)[None, :, None]
        return 16 * (16 * (k >> 1) + 4 * (T % 4) + 2 * (k & 1) + (j & 1)) + T // 4 + 8 * (j >> 1)
    if shape == "m8n16":
        k = np.arange(num)[None, :, None]
        return 16 * (8 * k + T // 4) + 4 * (T % 4) + j
    if shape == "m16n8":
        k = np.arange(num)[None, :, None]
        return 16 * (8 * k + 2 * (T % 4) + (j & 1)) + T // 4 + 8 * (j >> 1)
    raise ValueError(shape)


def rows_of(shape: str, num: int) -> int:
    """How many 16-byte rows (= address-giving threads) the instruction moves."""
    return {"m8n8": 8, "m16n16": 16, "m8n16": 8, "m16n8": 8}[shape] * num


def _form(d, inst, op):
    """(shape, num, trans, src_fmt, space) of an ld/stmatrix, checked against the ISA's forms."""
    p = inst.parts
    name = f"{op}matrix"
    if "sync" not in p or "aligned" not in p:
        raise d.error(f"{name} needs .sync.aligned")
    shapes = ("m8n8", "m16n16", "m8n16") if op == "ld" else ("m8n8", "m16n8")
    shape = next((q for q in p if q in shapes), None)
    numq = [q for q in p if q in NUMS]
    if shape is None or len(numq) != 1:
        raise d.error(f"{name} needs a shape {'/'.join('.' + s for s in shapes)} and .x1/.x2/.x4")
    num = NUMS[numq[0]]
    trans = "trans" in p
    fmt = [q for q in p if q in SRC_FMTS]
    typ = p[-1] if not fmt else p[-2]
    space = "shared" if ("shared" in p or "shared::cta" in p) else "generic"
    known = {name, "sync", "aligned", shape, numq[0], "trans", "shared", "shared::cta", typ, *fmt}
    extra = [q for q in p if q not in known]
    if extra:
        raise d.error(f"{name}: unknown qualifier(s) {', '.join('.' + q for q in extra)}")
    want = {"m8n8": "b16", "m16n16": ("b8x16" if fmt else "b8"), "m8n16": "b8x16",
            "m16n8": "b8"}[shape]
    if typ != want:
        raise d.error(f"{name}.{shape} takes .{want}, not .{typ}")
    if (typ == "b8x16") != bool(fmt):
        raise d.error(f"{name}: .b8x16 needs a source format .b6x16_p32 or .b4x16_p64")
    if shape in ("m16n16", "m16n8") and not trans:
        raise d.error(f"{name}.{shape} needs .trans (PTX ISA: mandatory for the 8-bit shapes)")
    if shape == "m8n16" and trans:
        raise d.error(f"{name}.m8n16 takes no .trans")
    if shape == "m16n16" and num == 4:
        raise d.error(f"{name}.m16n16 takes .x1 or .x2 only")
    return shape, num, trans, (fmt[0] if fmt else None), space


def _regs(d, op, n, name):
    regs = op[1] if op[0] == "vec" else [op]
    if len(regs) != n:
        raise d.error(f"{name} needs {{{n} registers}}, got {len(regs)}")
    return regs


def _row_targets(M, w, parts, ae, nrows, space, name):
    """[(thread, CTA, shared offset)] of each row, from the addresses of threads 0..nrows-1."""
    by_lane = {t.lane: t for t in parts}
    out = []
    for i in range(nrows):
        t = by_lane.get(i)
        if t is None:
            raise EmulationError(f"{name}: lane {i} gives the address of row {i} but is not "
                                 f"executing it")
        a = ae(t)
        if space == "generic":
            if M.classify_generic(a) != "generic_shared":
                raise EmulationError(f"{name}: generic address 0x{a:x} of row {i} (lane {i}) is "
                                     f"not in the shared window (undefined behaviour)")
            cta, off = M.shared_target(t, a, "generic")
            if cta is not t.cta:
                raise EmulationError(f"{name}: row {i}'s address 0x{a:x} is in CTA rank "
                                     f"{cta.rank}'s shared memory, not the executing CTA's")
        else:
            cta, off = t.cta, own_offset(t.cta, a)
        if off % 16:
            raise EmulationError(f"{name}: row {i}'s shared address 0x{off:x} (lane {i}) is not "
                                 f"16-byte aligned")
        if off < 0 or off + 16 > cta.smem.size:
            cta.smem.check(off, 16)
        out.append((t, cta, off))
    return out


def decode_ldmatrix(d, inst):
    shape, num, trans, fmt, space = _form(d, inst, "ld")
    name = "ldmatrix"
    tab = table("ld", shape, num, trans)
    dsts = _regs(d, d.operands(2)[0], tab.shape[1], name)
    slots = [None if o[0] == "sink" else d.slot(o) for o in dsts]
    ae = d.compile([f"return {d.addr_expr(d.operands(2)[1])[0]}"])
    nrows = rows_of(shape, num)
    M = d.M
    decomp = DECOMPRESS.get(fmt)

    def f(w, parts):
        rows = np.empty((nrows, 16), np.uint8)
        for i, (t, cta, off) in enumerate(_row_targets(M, w, parts, ae, nrows, space, name)):
            if M.hooks.shared_load:
                shared_observe_load(M, t, cta, off, 16, name)
            rows[i] = np.frombuffer(bytes(cta.smem.buf[off:off + 16]), np.uint8)
        if decomp is not None:
            rows = decomp(rows)
        regs = rows.reshape(-1)[tab].astype(np.uint32)
        vals = regs[..., 0] | regs[..., 1] << 8 | regs[..., 2] << 16 | regs[..., 3] << 24
        for t in parts:
            r = t.r
            for s, v in zip(slots, vals[t.lane].tolist()):
                if s is not None:
                    r[s] = v
    return f, None


def decode_stmatrix(d, inst):
    shape, num, trans, _, space = _form(d, inst, "st")
    name = "stmatrix"
    tab = table("st", shape, num, trans)
    addr, src = d.operands(2)
    getters = [d.compile([f"return {d.src(o, 32)}"]) for o in _regs(d, src, tab.shape[1], name)]
    ae = d.compile([f"return {d.addr_expr(addr)[0]}"])
    nrows = rows_of(shape, num)
    M = d.M

    def f(w, parts):
        targets = _row_targets(M, w, parts, ae, nrows, space, name)
        vals = np.zeros((32, len(getters)), np.uint32)
        for t in parts:
            vals[t.lane] = [g(t) & 0xFFFFFFFF for g in getters]
        rows = np.zeros(nrows * 16, np.uint8)
        rows[tab] = (vals[..., None] >> (8 * np.arange(4, dtype=np.uint32))).astype(np.uint8)
        rows = rows.reshape(nrows, 16)
        for i, (t, cta, off) in enumerate(targets):
            shared_write(M, t, cta, off, 16, int.from_bytes(rows[i].tobytes(), "little"))
        M.progress += 1
    return f, None


def decode_movmatrix(d, inst):
    """movmatrix.sync.aligned.m8n8.trans.b16 d, a: the 8x8 b16 matrix held in the m8n8 fragment
    (thread T: row T/4, elements 2(T%4) and 2(T%4)+1, low half first) is transposed, d holding
    the transpose in the same fragment (PTX ISA "movmatrix")."""
    p = inst.parts
    if [q for q in p[1:] if q not in ("sync", "aligned", "m8n8", "trans", "b16")] or \
            not {"sync", "aligned", "m8n8", "trans", "b16"} <= set(p):
        raise d.error("movmatrix takes .sync.aligned.m8n8.trans.b16")
    dst, src = d.operands(2)
    get = d.compile([f"return {d.src(src, 32)}"])
    sd = None if dst[0] == "sink" else d.slot(dst)

    def f(w, parts):
        m = np.zeros((8, 8), np.uint32)
        for t in parts:
            v = get(t) & 0xFFFFFFFF
            m[t.lane // 4, 2 * (t.lane % 4)] = v & 0xFFFF
            m[t.lane // 4, 2 * (t.lane % 4) + 1] = v >> 16
        tr = m.T
        if sd is not None:
            for t in parts:
                r, c = t.lane // 4, 2 * (t.lane % 4)
                t.r[sd] = int(tr[r, c]) | int(tr[r, c + 1]) << 16
    return f, None
