"""tcgen05.{ld, st, wait, fence}: registers to and from a warp's lane quarter of tensor memory
(PTX ISA §9.7.16.8; docs/tcgen05.md §11; the 16-lane maps and packing are docs/emulator.md A13,
A15, A16).  A tcgen05.ld of cells an asynchronous operation writes is checked by
tcgen05_async.check_tmem_read."""

from __future__ import annotations

import numpy as np

from .. import memory as mem
from ..errors import EmulationError
from . import ld_poison, tcgen05_async as aop


LDST_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
REGS_PER_X = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def thread_map(shape, nregs, imm=0):
    """(rows, cols) arrays of shape (32, nregs): TMEM position of register i of thread t relative
    to taddr (docs/emulator.md A15; docs/tcgen05.md §11)."""
    t = np.arange(32)[:, None]
    i = np.arange(nregs)[None, :]
    if shape == "32x32b":
        return np.broadcast_to(t, (32, nregs)), np.broadcast_to(i, (32, nregs))
    if shape == "16x64b":
        return np.broadcast_to((t >> 2) + 8 * (t & 1), (32, nregs)), 2 * i + ((t >> 1) & 1)
    if shape == "16x128b":
        j, h = i >> 1, i & 1
        return (t >> 2) + 8 * h, 4 * j + (t & 3)
    if shape == "16x256b":
        j, h, k = i >> 2, (i >> 1) & 1, i & 1
        return (t >> 2) + 8 * h, 8 * j + 2 * (t & 3) + k
    if shape == "16x32bx2":
        return np.broadcast_to(t & 15, (32, nregs)), i + np.where(t >= 16, imm, 0)
    raise ValueError(shape)


def _ldst_decode(d, inst, is_ld):
    p = inst.parts
    shapes = [q for q in p if q in LDST_SHAPES]
    if len(shapes) != 1:
        raise d.error(f"needs one shape of {LDST_SHAPES}")
    shape = shapes[0]
    xs = [q for q in p if q.startswith("x") and q[1:].isdigit()]
    if len(xs) != 1:
        raise d.error("needs a .xN qualifier")
    num = int(xs[0][1:])
    if num not in (1, 2, 4, 8, 16, 32, 64, 128):
        raise d.error(f".x{num} is invalid (N must be a power of 2 up to 128)")
    nregs = num * REGS_PER_X[shape]
    if nregs > 128:
        raise d.error(f".{shape}.x{num} needs {nregs} registers per thread (> 128): invalid")
    pack = ("pack::16b" in p) if is_ld else ("unpack::16b" in p)
    ops = d.operands(2, 3)
    if is_ld:  # ld [d], [taddr](, imm)
        regs, addr, rest = ops[0], ops[1], ops[2:]
    elif len(ops) == 3:  # st [taddr], imm, r (16x32bx2: the offset precedes the registers, as ptxas takes it)
        addr, regs, rest = ops[0], ops[2], ops[1:2]
    else:
        addr, regs, rest = ops[0], ops[1], ()
    imm = 0
    if shape == "16x32bx2":
        if len(rest) != 1 or rest[0][0] != "imm":
            raise d.error("16x32bx2 needs an immediate half-split offset")
        imm = rest[0][1]
        if not 0 <= imm < 1 << 32:  # (a .b32 immediate: the column offset of the second half)
            raise d.error(f"16x32bx2: the half-split offset {imm} is not a 32-bit unsigned immediate")
    elif rest:
        raise d.error("unexpected extra operand")
    rl = regs[1] if regs[0] == "vec" else [regs]
    if len(rl) != nregs:
        raise d.error(f".{shape}.x{num} needs {nregs} registers, got {len(rl)}")
    rows, cols = thread_map(shape, nregs, imm)
    ta, _ = d.addr_expr(addr)
    fa = d.compile([f"return {ta}"])
    return shape, num, nregs, pack, rl, np.array(rows), np.array(cols), fa


def _region(M, w, parts, fa, rows, cols, pack, line, what):
    a = aop.uniform(parts, fa, f"{what} taddr")
    L, C = (a >> 16) & 0xFFFF, a & 0xFFFF
    q = w.rank
    if L // 32 != q:
        M.warn(f"line {line}: {what} taddr lane field {L} is not inside warp {w.idx}'s lane quarter "
               f"{32 * q}..{32 * q + 31} (warp rank {q} in its warpgroup); accepted as relative "
               f"lane {L % 32} of that quarter (hardware behaviour inferred, "
               f"docs/emulator.md A13)", key=("lanefield", line, w.cta.idx, w.idx))
    base = 32 * q + (L % 32)
    R = base + rows
    if R.max() >= 32 * q + 32:
        raise EmulationError(f"{what} at lane offset {L % 32} touches lane {int(R.max())}, outside "
                             f"warp rank {q}'s lanes {32 * q}..{32 * q + 31} (a warp may access only "
                             f"its own lane quarter)")
    if pack:
        Cc = C + np.stack([2 * cols, 2 * cols + 1], axis=-1)
        Rr = np.broadcast_to(R[..., None], Cc.shape)
    else:
        Cc, Rr = C + cols, R
    if Cc.max() >= mem.TMEM_COLS:
        raise EmulationError(f"{what} column {int(Cc.max())} is outside TMEM's 512 columns")
    tm = w.cta.tmem
    own = tm.owner[Cc]
    if (own < 0).any():
        bad = int(Cc[own < 0].min())
        raise EmulationError(f"{what} accesses unallocated TMEM column {bad} "
                             f"({tm.check_cols(bad, bad + 1)})")
    return Rr, Cc


def _slot_runs(slots):
    """(slot range, register range) of the destinations' runs of consecutive slots (a sink ends one): a
    thread's values stored a slice at a time."""
    runs, i = [], 0
    while i < len(slots):
        if slots[i] is None:
            i += 1
            continue
        j = i
        while j + 1 < len(slots) and slots[j + 1] is not None and slots[j + 1] == slots[j] + 1:
            j += 1
        runs.append((slots[i], slots[j] + 1, i, j + 1))
        i = j + 1
    return runs


def decode_ld(d, inst):
    shape, num, nregs, pack, rl, rows, cols, fa = _ldst_decode(d, inst, True)
    slots = [None if o[0] == "sink" else d.slot(o) for o in rl]
    runs = _slot_runs(slots)
    M = d.M
    line = inst.line

    def f(w, parts):
        Rr, Cc = _region(M, w, parts, fa, rows, cols, pack, line, "tcgen05.ld")
        tm = w.cta.tmem
        aop.check_tmem_read(M, w, parts, Rr, Cc, line)
        if not tm.written[Rr, Cc].all():
            M.warn(f"line {line}: tcgen05.ld in CTA {w.cta.idx} warp {w.idx} reads TMEM cells "
                   f"that were never written (poison 0x{mem.POISON:08X})",
                   key=("poison", line, w.cta.idx, w.idx))
        vals = tm.cells[Rr, Cc].astype(np.int64)
        if pack:
            M.warn(f"line {line}: .pack::16b bit placement assumed (lower column -> low 16 bits); "
                   f"PTX shows it only in a figure", key=("pack", line))
            vals = (vals[..., 0] & 0xFFFF) | ((vals[..., 1] & 0xFFFF) << 16)
        # plain values where nothing can read them early, or where an explored schedule's reads
        # before the wait would repeat a finding its default schedule made at this line (only a
        # new (rule, line) counts there): guarded values cost every use of them
        plain = M.ld_plain or (M.known_findings is not None
                               and ("tcgen05.wait::ld", line) in M.known_findings)
        rows_ = vals.tolist()
        for t in parts:  # unreadable until tcgen05.wait::ld (ld_poison.py)
            row = rows_[t.lane]
            if plain:  # (no instruction can read them early: ld_poison.never_read_unwaited)
                r = t.r
                for a, b, i, j in runs:
                    r[a:b] = row[i:j]
            else:
                ld_poison.poison_ld(M, t, slots, row, line)
            aop.THREAD.of(t).ld_pending = True
    return f, None


def decode_st(d, inst):
    shape, num, nregs, pack, rl, rows, cols, fa = _ldst_decode(d, inst, False)
    read = d.compile([f"return ({', '.join(d.src(o, 32) for o in rl)},)"])  # (a thread's sources in one call)
    M = d.M
    line = inst.line

    def f(w, parts):
        Rr, Cc = _region(M, w, parts, fa, rows, cols, pack, line, "tcgen05.st")
        tm = w.cta.tmem
        vals = np.zeros((32, nregs), dtype=np.int64)
        for t in parts:
            vals[t.lane] = read(t)
        lanes = [t.lane for t in parts]
        if pack:
            M.warn(f"line {line}: .unpack::16b bit placement assumed (low 16 bits -> lower "
                   f"column, upper 16 bits of each cell zero); PTX shows it only in a figure",
                   key=("unpack", line))
            v2 = np.stack([vals & 0xFFFF, (vals >> 16) & 0xFFFF], axis=-1)
            Rs, Cs, Vs = Rr[lanes], Cc[lanes], v2[lanes]
        else:
            Rs, Cs, Vs = Rr[lanes], Cc[lanes], vals[lanes]
        tm.cells[Rs, Cs] = Vs.astype(np.uint32)
        tm.written[Rs, Cs] = True
        tm.src[Rs, Cs] = 0
        M.progress += 1
    return f, None


def decode_wait(d, inst):
    if inst.parts[1] == "wait::st":  # tcgen05.st writes TMEM at issue: nothing is left to wait for
        return (lambda w, parts: None), None

    def f(w, parts):
        for t in parts:
            aop.THREAD.of(t).ld_pending = False
            ld_poison.land_ld(t)
    return f, None


def decode_fence(d, inst):
    kind = inst.parts[1]
    if kind == "fence::after_thread_sync":
        return d.compile(["_state(t).synced = dict(t.seen)"], {"_state": aop.THREAD.of})
    if kind == "fence::before_thread_sync":
        return d.compile([])
    raise d.error(f"unknown tcgen05 fence .{kind}")


