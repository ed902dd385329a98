"""mma.sync: the warp-level matrix multiply-accumulate of sm_80 and later (PTX ISA "Warp-level
Matrix Multiply-Accumulate Instructions: mma"), with the register fragments of the ISA's figures.

Forms (``.row.col`` only, the one layout the ISA allows outside m8n8k4 .f16)::

    mma.sync.aligned.m16n8k{8,16}.row.col.{f16,f32}.f16.f16.{f16,f32}       (D and C alike)
    mma.sync.aligned.m16n8k{8,16}.row.col.f32.bf16.bf16.f32
    mma.sync.aligned.m16n8k{4,8}.row.col.f32.tf32.tf32.f32
    mma.sync.aligned.m8n8k4 / m16n8k{4,8,16}.row.col.f64.f64.f64.f64           (m16n8k*: sm_90+)
    mma.sync.aligned.m16n8k{16,32}.row.col.{f16,f32}.{e4m3,e5m2}x2.{f16,f32}  (sm_89+)
    mma.sync.aligned.{m8n8k16,m16n8k16,m16n8k32}.row.col{.satfinite}.s32.{s8,u8}x2.s32
    mma.sync.aligned.{m8n8k32,m16n8k32,m16n8k64}.row.col{.satfinite}.s32.{s4,u4}x2.s32
    mma.sync.aligned.{m8n8k128,m16n8k128,m16n8k256}.row.col.s32.b1.b1.s32.{xor,and}.popc

Fragments, lane L of the warp, g = L >> 2, t = L % 4 (the ISA's groupID / threadID_in_group); an
element narrower than 32 bits sits ``per = 32 / bits`` to a register, element e in bits
[e·bits, (e+1)·bits):

* A (M x K), packed: register j holds row g + 8(j mod M/8), columns 4·per·(j div M/8) + per·t + e;
  32/64-bit (tf32, f64): row g + 8(j mod M/8), column t + 4(j div M/8);
* B (K x N), packed: register j holds rows 4·per·j + per·t + e of column g; 32/64-bit: row t + 4j;
* C, D (M x N): element i is row g + 8(i div 2), column 2t + (i mod 2) (M = 16; i < 4) or row g,
  column 2t + i (M = 8; i < 2); f16 two to a register, low half first.

(:func:`fragment`; test/python/sim/test_mma_sync.py checks these against the ISA's figures as
tables.)  The arithmetic is mma_numerics.mma_sync (MMA-Sim's per-architecture model) of the GPU
the launch emulates (``run_ptx(device=...)``, by default the module's ``.target``): the ISA leaves
it to the implementation, and an sm_80 module on an H100 computes as Hopper does.

Refused: m8n8k4 with .f16 (the sm_70 quad-pair form: MMA-Sim has it for Volta and Turing only),
mma.sp (sparse: no model of its arithmetic), the block-scaled and
kind::f8f6f4 forms of sm_120 (no sm_80 / sm_90a / sm_100a target has them), fp8 on sm_90 /
sm_100 targets (MMA-Sim measured fp8 mma.sync on Ada only).
"""

from __future__ import annotations

import numpy as np

from .. import mma_numerics, pure_memo
from ..errors import EmulationError

#: element type -> bits
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8,
        "s4": 4, "u4": 4, "b1": 1}
#: element-type class -> the (M, N, K) the ISA defines for it
SHAPES = {"f16": {(16, 8, 8), (16, 8, 16)}, "bf16": {(16, 8, 8), (16, 8, 16)},
          "tf32": {(16, 8, 4), (16, 8, 8)}, "f64": {(8, 8, 4), (16, 8, 4), (16, 8, 8), (16, 8, 16)},
          "e4m3": {(16, 8, 16), (16, 8, 32)}, "e5m2": {(16, 8, 16), (16, 8, 32)},
          "s8": {(8, 8, 16), (16, 8, 16), (16, 8, 32)}, "u8": {(8, 8, 16), (16, 8, 16), (16, 8, 32)},
          "s4": {(8, 8, 32), (16, 8, 32), (16, 8, 64)}, "u4": {(8, 8, 32), (16, 8, 32), (16, 8, 64)},
          "b1": {(8, 8, 128), (16, 8, 128), (16, 8, 256)}}
#: atype -> the (dtype, ctype) pairs the ISA allows
DC = {"f16": {("f16", "f16"), ("f32", "f32")},
      "bf16": {("f32", "f32")}, "tf32": {("f32", "f32")}, "f64": {("f64", "f64")},
      "e4m3": {("f32", "f32"), ("f16", "f16")}, "e5m2": {("f32", "f32"), ("f16", "f16")},
      **{t: {("s32", "s32")} for t in ("s8", "u8", "s4", "u4", "b1")}}
_CLASS = {"f16": "f", "bf16": "f", "tf32": "f", "f64": "d", "e4m3": "f8", "e5m2": "f8",
          "s8": "i", "u8": "i", "s4": "i", "u4": "i", "b1": "b"}

_TABLES: dict = {}


def fragment(role: str, m: int, n: int, k: int, bits: int):
    """(row, col) arrays of shape (32 lanes, registers, elements per register) of fragment
    ``role`` ("a", "b" or "c") for elements of ``bits`` bits (C/D: 16, 32 or 64)."""
    key = (role, m, n, k, bits)
    hit = _TABLES.get(key)
    if hit is not None:
        return hit
    per = max(1, 32 // bits)
    lane = np.arange(32)[:, None, None]
    g, t = lane >> 2, lane & 3
    e = np.arange(per)[None, None, :]
    if role == "c":
        nel = m * n // 32
        i = np.arange(nel).reshape(-1, per)[None]  # element i of the fragment, per to a register
        row = g + 8 * (i // 2) if m == 16 else g + 0 * i
        col = 2 * t + (i % 2 if m == 16 else i)
    elif role == "a":
        nreg = m * k // (32 * per)
        j = np.arange(nreg)[None, :, None]
        h, kb = j % (m // 8), j // (m // 8)
        row = g + 8 * h + 0 * e
        col = (4 * per * kb + per * t + e) if per > 1 else (t + 4 * kb + 0 * e)
    else:
        nreg = k * n // (32 * per)
        j = np.arange(nreg)[None, :, None]
        row = (4 * per * j + per * t + e) if per > 1 else (t + 4 * j + 0 * e)
        col = g + 0 * j + 0 * e
    row, col = np.broadcast_arrays(row, col)
    hit = _TABLES[key] = (row.copy(), col.copy())
    return hit


def _gather_plan(fr, bits, base):
    """Flat (lane, register column, shift, row, col) arrays of a fragment whose registers start
    at column ``base`` of the lanes' register matrix: element e of register j of lane L is bits
    [e·bits, (e+1)·bits) of column base + j, at (row, col) of the matrix."""
    rows, cols = fr
    lanes, nreg, per = rows.shape
    L, j, e = np.meshgrid(np.arange(lanes), np.arange(nreg), np.arange(per), indexing="ij")
    shift = (e * bits if per > 1 else 0 * e).astype(np.uint64)
    return (L.ravel(), (base + j).ravel(), shift.ravel(), np.uint64((1 << bits) - 1 if bits < 64
            else (1 << 64) - 1), rows.ravel(), cols.ravel())


def _scatter(regs, plan, shape):
    lane, col, shift, emask, row, mcol = plan
    out = np.zeros(shape, np.uint64)
    out[row, mcol] = (regs[lane, col] >> shift) & emask
    return out


def _form(d, inst):
    p = inst.parts
    if "sp" in p or any(q.startswith("sp::") for q in p):
        raise d.error("mma.sp (sparse MMA) is not supported by tile-sim")
    if any(q.startswith("kind::") or q.startswith("block_scale") for q in p):
        raise d.error("the kind:: / block_scale forms of mma.sync (sm_120) are not supported")
    if "sync" not in p or "aligned" not in p:
        raise d.error("mma needs .sync.aligned")
    shape = next((q for q in p if q.startswith("m") and "n" in q and "k" in q), None)
    try:
        m, rest = shape[1:].split("n")
        n, k = (int(x) for x in rest.split("k"))
        m = int(m)
    except (TypeError, ValueError, AttributeError):
        raise d.error("mma.sync: missing or malformed shape .mMnNkK") from None
    layouts = [q for q in p if q in ("row", "col")]
    sat = "satfinite" in p
    bitop = next((q for q in p if q in ("xor", "and")), None)
    types = [q for q in p if q in BITS or q == "f32" or q == "s32"]
    known = {"mma", "sync", "aligned", shape, "row", "col", "satfinite", "xor", "and", "popc",
             *types}
    extra = [q for q in p if q not in known]
    if extra:
        raise d.error(f"mma.sync: unknown qualifier(s) {', '.join('.' + q for q in extra)}")
    if len(types) != 4:
        raise d.error("mma.sync needs .dtype.atype.btype.ctype")
    dtype, atype, btype, ctype = types
    return (m, n, k), layouts, sat, bitop, dtype, atype, btype, ctype


def _check(d, inst, mnk, layouts, sat, bitop, dtype, atype, btype, ctype):
    cls = _CLASS.get(atype)
    if cls is None or _CLASS.get(btype) != cls or (cls in ("f", "d") and btype != atype):
        raise d.error(f"mma.sync: .{atype} A with .{btype} B is not an ISA form")
    if mnk == (8, 8, 4) and atype == "f16":
        raise d.error("mma.sync.m8n8k4 with .f16 (the sm_70 quad-pair form) is not supported by "
                      "tile-sim: MMA-Sim measured it on Volta and Turing only")
    if mnk not in SHAPES[atype]:
        raise d.error(f"mma.sync: shape m{mnk[0]}n{mnk[1]}k{mnk[2]} is not defined for .{atype}")
    if (dtype, ctype) not in DC[atype]:
        raise d.error(f"mma.sync: .{dtype} D with .{ctype} C is not an ISA form for .{atype}")
    if layouts != ["row", "col"]:
        raise d.error("mma.sync: this shape takes .row.col")
    if sat and cls != "i":
        raise d.error("mma.sync: .satfinite is for the integer forms")
    if (cls == "b") != (bitop is not None) or (cls == "b" and "popc" not in inst.parts):
        raise d.error("mma.sync: the .b1 form needs .xor.popc or .and.popc, and only it")
    arch = mma_numerics.mma_sync_arch(d.M.device)  # the GPU's arithmetic, not the .target's
    if cls == "f8" and arch not in ("Ada Lovelace", "RTX Blackwell"):
        raise d.error(f"mma.sync with .{atype}: tile-sim has no model of fp8 mma.sync on "
                      f"{arch} (MMA-Sim measured it on Ada only)")
    if (atype == "f64" and mnk != (8, 8, 4)
            and mma_numerics.mma_sync_arch(d.M.module.target) in ("Ampere", "Ada Lovelace")):
        raise d.error("mma.sync .f64 m16n8k* needs sm_90 or later")
    return arch


def decode_mma(d, inst):
    mnk, layouts, sat, bitop, dtype, atype, btype, ctype = _form(d, inst)
    arch = _check(d, inst, mnk, layouts, sat, bitop, dtype, atype, btype, ctype)
    m, n, k = mnk
    ab = BITS[atype]
    dbits, cbits = (64 if dtype == "f64" else 16 if dtype == "f16" else 32,
                    64 if ctype == "f64" else 16 if ctype == "f16" else 32)
    fa, fb = fragment("a", m, n, k, ab), fragment("b", m, n, k, ab)
    fc, fd = fragment("c", m, n, k, cbits), fragment("c", m, n, k, dbits)
    ops = d.operands(4)
    rw = 64 if ab == 64 else 32
    srcs, gathers, base = [], [], 0
    for op, fr, what, width, bits in ((ops[1], fa, "A", rw, ab), (ops[2], fb, "B", rw, ab),
                                      (ops[3], fc, "C", 64 if cbits == 64 else 32, cbits)):
        regs = op[1] if op[0] == "vec" else [op]
        if len(regs) != fr[0].shape[1]:
            raise d.error(f"mma.sync: {what} takes {fr[0].shape[1]} registers, got {len(regs)}")
        srcs += [d.src(o, width) for o in regs]
        gathers.append(_gather_plan(fr, bits, base))
        base += len(regs)
    get_all = d.compile([f"return ({', '.join(srcs)},)"])  # A, B and C of one lane
    dregs = ops[0][1] if ops[0][0] == "vec" else [ops[0]]
    if len(dregs) != fd[0].shape[1]:
        raise d.error(f"mma.sync: D takes {fd[0].shape[1]} registers, got {len(dregs)}")
    dslots = [None if o[0] == "sink" else d.slot(o) for o in dregs]
    dmask = (1 << (64 if dbits == 64 else 32)) - 1
    shapes = ((m, k), (k, n), (m, n))

    def f(w, parts):
        if len(parts) != 32:
            raise EmulationError("mma.sync.aligned: all 32 lanes of the warp must execute it")
        parts = sorted(parts, key=lambda t: t.lane)
        regs = np.array([get_all(t) for t in parts], dtype=np.uint64)  # (lane, register)
        a, b, c = (_scatter(regs, g, shape) for g, shape in zip(gathers, shapes))
        dd = pure_memo.call(  # (explore: looked up when the inputs repeat)
            mma_numerics.mma_sync, arch, dtype, atype, btype, a, b,
            c if dtype == "f64" else c.astype(np.uint32), saturate=sat,
            bitop=bitop).astype(np.uint64)
        vals = dd[fd[0], fd[1]]  # (32, registers, per)
        if vals.shape[2] > 1:
            vals = vals[:, :, 0] | (vals[:, :, 1] << np.uint64(16))
        else:
            vals = vals[:, :, 0]
        out = vals.tolist()
        for t in parts:
            r = t.r
            for s, v in zip(dslots, out[t.lane]):
                if s is not None:
                    r[s] = v & dmask
    return f, None
