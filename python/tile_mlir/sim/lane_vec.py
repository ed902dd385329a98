"""Vector lane runs: a stretch of a lane run (lane_runs.py) whose every instruction has a vector form here
is executed once for all of the run's lanes, on numpy arrays of the lanes' register values, instead of once
per lane.

What it covers is a softmax's per-element work between a tcgen05.ld and the tcgen05.st of P: mov (copies,
packing and unpacking), add / sub / mul / fma.rn.f32 and .f32x2 (with sim/contract.py's fused sums and dead
products), max / min.f32, neg.f32, ex2.approx.ftz.f32 and cvt.rn.{bf16x2,f16x2}.f32. Each form computes what
the instruction's closure computes, lane for lane:

* f32 arithmetic as sim/fast_f32.py does it (binary64, fma rounded to odd; the same numbers, as IEEE binary64
  is the same in numpy and in Python; zeros, infinities and NaNs by its rules: sim/lane_f32.py), on the lanes
  where fast_f32 would take its fast path; every other lane (a subnormal operand or result) calls the
  instruction's own scalar function (its closure's `_op`), the exact path;
* ex2.approx.ftz.f32 by approx_math.mufu_ex2, the array model the scalar path was checked against;
* max / min.f32 by the order of their bits (fast_f32.maxmin), NaN lanes by the scalar function;
* cvt to bf16 by cvt_pack's rounding on the bits; to f16 by numpy's IEEE conversion (to nearest even, with
  subnormals and overflow; test_lane_vec compares it with the scalar path over every class), NaN lanes by
  the scalar function.

The stretch's live-in registers are read from every lane at once (one tuple per lane) and must all be plain
ints below 2^64 -- a guarded value (a tcgen05.ld destination before its wait, a wgmma accumulator in flight,
an undefined register) makes the stretch run per lane as before, since its reads are counted or reported
there. The instructions are grouped by dependence level (:func:`_levels`): one numpy op runs every
instruction of one form and level, each over the lanes; the registers written are stored back per lane in
slices. Where the elements left to a scalar function come in another order than per lane, nothing
observable changes: those functions are pure (fpexact, the MUFU models); a scalar function that faults
makes the whole stretch run per lane, where it faults as before. ``ENABLED = False`` turns vector stretches
off (the tests compare both); lane_runs.py computes a stretch the slice budget cuts whole.
"""
from __future__ import annotations

import re

import numpy as np

from . import lane_f32
from .approx_math import mufu_ex2
from .codegen import compiled
from .errors import EmulationError

#: False: lane runs execute every instruction per lane
ENABLED = True
#: the shortest stretch run as vectors (below it, reading and writing back the registers costs more)
MIN_LEN = 16

_U64 = np.uint64
_INT = {int}
_EXP = 0x7F800000
_SRC_REG = re.compile(r"^r\[(\d+)\]$")
_SRC_MASKED = re.compile(r"^\(r\[(\d+)\] & (0x[0-9a-f]+)\)$")
_DST = re.compile(r"^r\[(\d+)\] = \(E\) & (0x[0-9a-f]+)$")


class _Form:
    """One instruction as vectors: its sources ((slot, mask or None) or (None, constant)), destinations
    (slot, mask), ``op(*sources) -> (destinations, bad)`` on arrays of any shape (bad: None, or the elements
    the scalar function ``scalar`` computes), and ``key``: instructions of one key run as one op."""
    __slots__ = ("inst", "srcs", "dsts", "op", "key", "scalar", "guard")

    def __init__(self, inst, srcs, dsts, op, key, scalar=None):
        self.inst, self.srcs, self.dsts, self.op, self.scalar = inst, tuple(srcs), tuple(dsts), op, scalar
        self.key = (key, tuple(m for _, m in self.srcs if _ is not None), tuple(m for _, m in self.dsts))
        self.guard = inst.guard


# ------------------------------------------------------------------------------------------ operands
def _src(dec, op, bits, ftype=False):
    """(slot, mask or None) or (None, constant) of a source operand as the decoder reads it, else None."""
    if op[0] == "reg" and op[1].key not in dec.slots:
        return None
    if op[0] not in ("reg", "imm", "fimm"):
        return None
    e = dec.src(op, bits, ftype=ftype)
    m = _SRC_REG.match(e)
    if m:
        return int(m.group(1)), None
    m = _SRC_MASKED.match(e)
    if m:
        return int(m.group(1)), int(m.group(2), 16)
    return (None, int(e)) if e.isdigit() else None


def _dst(dec, op, bits):
    """(slot, mask) of a destination as the decoder writes it, () for a sink, else None."""
    if op[0] == "sink":
        return ()
    if op[0] != "reg" or op[1].key not in dec.slots or op[1].decl.special:
        return None
    m = _DST.match(dec.dst(op, bits)("E"))
    return ((int(m.group(1)), int(m.group(2), 16)),) if m else None


def _scalar(inst, name="_op"):
    return getattr(inst.fn, "__globals__", {}).get(name)


# ------------------------------------------------------------------------------------------ numbers
def _words(kind, flips, xs):
    """One f32 word of each source (sign flips applied): the exact results' codes and the lanes where they
    hold (sim/lane_f32.py)."""
    return lane_f32.words(kind, [x ^ f if f else x for x, f in zip(xs, flips)])


def _arith_op(kind, pair, flips=()):
    """add / sub / mul / fma.rn.f32 (.f32x2: each word), as fast_f32 computes them where it takes its fast path
    (the other elements are `bad`: the scalar function computes them)."""
    flips = flips or (0,) * (3 if kind == "fma" else 2)

    def op(*xs):
        with np.errstate(all="ignore"):
            if not pair:
                c, ok = _words(kind, flips, xs)
            else:
                lo, ok_lo = _words(kind, flips, [x & 0xFFFFFFFF for x in xs])
                hi, ok_hi = _words(kind, flips, [x >> 32 for x in xs])
                c, ok = lo | (hi << 32), ok_lo & ok_hi
        return (c,), ~ok
    return op


def _key(c):
    """f32 codes in an order of their values (-0 below +0), for codes that are not NaNs."""
    return np.where(c >> 31 != 0, ~c & 0x7FFFFFFF, c | 0x80000000)


def _nan(*xs):
    bad = (xs[0] & 0x7FFFFFFF) > _EXP
    for x in xs[1:]:
        bad |= (x & 0x7FFFFFFF) > _EXP
    return bad


def _max(a, b):
    return (np.where(_key(a) >= _key(b), a, b),), _nan(a, b)


def _min(a, b):
    return (np.where(_key(a) <= _key(b), a, b),), _nan(a, b)


def _neg(a):
    return (a ^ 0x80000000,), None


def _ex2(a):
    return (mufu_ex2(a).astype(_U64),), None


def _cvt_bf16x2(a, b):
    """cvt.rn.bf16x2.f32 (a to the upper half): cvt_pack's rounding on the bits, NaN to 0x7FFF."""
    def bf16(x):
        return np.where((x & 0x7FFFFFFF) > _EXP, 0x7FFF, (x + 0x7FFF + ((x >> 16) & 1)) >> 16).astype(_U64)
    return ((bf16(a) << 16) | bf16(b),), None


def _cvt_f16x2(a, b):
    """cvt.rn.f16x2.f32 by numpy's rounding (IEEE, to nearest even; test_lane_vec checks it against the
    scalar path), NaN elements by the scalar function."""
    def f16(x):
        return x.astype(np.uint32).view(np.float32).astype(np.float16).view(np.uint16).astype(_U64)
    with np.errstate(all="ignore"):
        return ((f16(a) << 16) | f16(b),), _nan(a, b)


def _copy(v):
    return (v,), None


def _unpack(keep, ew):
    m = (1 << ew) - 1

    def op(v):
        return tuple((v >> (i * ew)) & m for i in keep), None
    return op


def _pack(ew):
    def op(*xs):
        v = xs[0]
        for i, x in enumerate(xs[1:], 1):
            v = v | (x << (i * ew))
        return (v,), None
    return op


# ------------------------------------------------------------------------------------------ forms
_F32_ARITH = {(k, "rn", t) for k in ("add", "sub", "mul", "fma") for t in ("f32", "f32x2")} | \
    {(k, "f32") for k in ("add", "sub", "mul")}  # (.rn by default; those sim/contract.py fuses are apart)
_MOV_BITS = {"b16": 16, "b32": 32, "b64": 64, "u32": 32, "s32": 32, "u64": 64, "s64": 64, "f32": 32}


def form(M, inst):
    """The vector form of a decoded instruction, or None (it runs per lane)."""
    if inst.warp or inst.fn is None:
        return None
    dec, src = M.dec, inst.src  # (the parsed instruction: its parts, operands and decoder keys)
    was, dec.inst = dec.inst, src
    try:
        return _form(dec, inst, src, tuple(src.parts), src.operands, _scalar(inst))
    except EmulationError:
        return None
    finally:
        dec.inst = was


def _form(dec, inst, src, p, ops, scalar):
    if p[0] == "mul" and id(src) in dec.dead_muls:  # (run as nothing: sim/contract.py)
        return _Form(inst, (), (), None, "dead")
    if p[0] == "mov" and len(p) == 2 and p[1] in _MOV_BITS:
        return _form_mov(dec, inst, ops, _MOV_BITS[p[1]], p[1] == "f32")
    if p == ("neg", "f32"):
        return _simple(dec, inst, ops, 32, _neg, "neg")
    if p == ("ex2", "approx", "ftz", "f32"):
        return _simple(dec, inst, ops, 32, _ex2, "ex2")
    if scalar is None:  # (the forms below call it on the elements they leave)
        return None
    fused = dec.fused.get(id(src)) if p[0] in ("add", "sub") else None
    if fused is not None:  # a * b + c of the mul feeding it (sim/contract.py), signs flipped for a sub
        mul, pos = fused
        if p not in ((p[0], "rn", "f32"), (p[0], "f32")) or len(mul.operands) != 3 or len(ops) != 3:
            return None
        srcs = [_src(dec, o, 32, ftype=True) for o in (*mul.operands[1:], ops[3 - pos])]
        dst = _dst(dec, ops[0], 32)
        sub = p[0] == "sub"
        flips = (0x80000000 if sub and pos == 2 else 0, 0, 0x80000000 if sub and pos == 1 else 0)
        if None in srcs or dst is None:
            return None
        return _Form(inst, srcs, dst, _arith_op("fma", False, flips), ("fused", flips), scalar)
    if p in _F32_ARITH:
        return _simple(dec, inst, ops, 64 if p[-1] == "f32x2" else 32, _arith_op(p[0], p[-1] == "f32x2"),
                       p, scalar, 3 if p[0] == "fma" else 2)
    if p in (("max", "f32"), ("min", "f32")):
        return _simple(dec, inst, ops, 32, _max if p[0] == "max" else _min, p, scalar, 2)
    if p == ("cvt", "rn", "bf16x2", "f32"):
        return _simple(dec, inst, ops, 32, _cvt_bf16x2, p, None, 2)
    if p == ("cvt", "rn", "f16x2", "f32"):
        return _simple(dec, inst, ops, 32, _cvt_f16x2, p, scalar, 2)
    return None


def _simple(dec, inst, ops, bits, op, key, scalar=None, nsrc=1):
    if len(ops) != nsrc + 1:
        return None
    srcs = [_src(dec, o, bits, ftype=True) for o in ops[1:]]
    dst = _dst(dec, ops[0], bits)
    if None in srcs or dst is None:
        return None
    return _Form(inst, srcs, dst, op, key, scalar)


def _form_mov(dec, inst, ops, w, ftype):
    """mov as decode_mov writes it: unpacking a register into a vector, packing a vector, a copy."""
    if len(ops) != 2:
        return None
    dd, a = ops
    if dd[0] == "vec":
        ew = w // len(dd[1])
        src = _src(dec, a, w)
        dsts = [_dst(dec, o, ew) for o in dd[1]]
        if src is None or None in dsts:
            return None
        keep = tuple(i for i, d in enumerate(dsts) if d)
        return _Form(inst, (src,), [dsts[i][0] for i in keep], _unpack(keep, ew), ("unpack", keep, ew))
    if a[0] == "vec":
        ew = w // len(a[1])
        srcs = [_src(dec, o, ew) for o in a[1]]
        dst = _dst(dec, dd, w)
        if None in srcs or dst is None:
            return None
        return _Form(inst, srcs, dst, _pack(ew), ("pack", ew, len(srcs)))
    src = _src(dec, a, w, ftype=ftype)
    dst = _dst(dec, dd, w)
    if src is None or dst is None:
        return None
    return _Form(inst, (src,), dst, _copy, "copy")


# ------------------------------------------------------------------------------------------ stretches
def lengths(M, code) -> list[int]:
    """For each PC, how many instructions from it on have a vector form (0: none)."""
    forms = [form(M, i) if ENABLED else None for i in code]
    M._vec_forms = forms
    out = [0] * (len(code) + 1)
    for pc in range(len(code) - 1, -1, -1):
        out[pc] = out[pc + 1] + 1 if forms[pc] is not None else 0
    return out[:-1]


class _Group:
    """Instructions of one key and level (_levels): one op over (lanes, members) arrays. ``srcs`` / ``dsts``:
    per operand position, the members' columns of the plan's register matrix."""
    __slots__ = ("forms", "srcs", "smasks", "dsts", "dmasks", "guard")

    def __init__(self, forms, col):
        f0 = forms[0]
        self.forms, self.guard = forms, f0.guard
        self.srcs = [np.array([col[f.srcs[i]] for f in forms], np.intp) for i in range(len(f0.srcs))]
        self.smasks = [m if s is not None else None for s, m in f0.srcs]  # (a constant's column is its value)
        self.dsts = [np.array([col[f.dsts[i][0]] for f in forms], np.intp) for i in range(len(f0.dsts))]
        self.dmasks = [m for _, m in f0.dsts]
        if self.guard is not None:
            self.guard = (col[self.guard[0]], self.guard[1])


class _Plan:
    """A stretch: its registers and constants as the columns of a (lanes, columns) matrix, the live-in slots
    (read before written; a guarded instruction's destination too) and how they are read, its groups, and
    the slots it writes and how they are written back."""
    __slots__ = ("forms", "ncols", "live", "get", "consts", "groups", "written", "wcols", "wgroups")

    def __init__(self, forms):
        self.forms = forms
        live, written = [], set()
        for f in forms:
            reads = [s for s, _ in f.srcs if s is not None]
            if f.guard is not None:
                reads += [f.guard[0]] + [s for s, _ in f.dsts]
            for s in reads:
                if s not in written and s not in live:
                    live.append(s)
            written.update(s for s, _ in f.dsts)
        col = {s: c for c, s in enumerate(live)}  # (the live-ins first: read in one assignment)
        consts = []
        for f in forms:
            for s, m in f.srcs:
                if s is None and ("c", m) not in col:
                    col[("c", m)] = len(col)
                    consts.append((col[("c", m)], m))
            for s, _ in f.dsts:
                col.setdefault(s, len(col))
        self.ncols, self.live, self.consts = len(col), live, consts
        self.get = _getter(live) if live else None
        self.groups = [_Group(fs, _Cols(col)) for fs in _levels(forms)]
        self.written, self.wgroups = _groups(written)
        self.wcols = np.array([col[s] for s in self.written], np.intp)


def _getter(slots):
    """``g(r)``: the tuple of r's values at ``slots`` (one compiled function: a lane's live-ins in one call)."""
    ns = {}
    exec(compiled(f"def _g(r):\n    return ({', '.join(f'r[{s}]' for s in slots)},)\n", "<lane_vec live-ins>"), ns)
    return ns["_g"]


def _levels(forms):
    """The stretch's instructions grouped for execution: each at level 1 + the highest level of the
    instructions before it that write what it reads or writes, or read what it writes (so that no two
    instructions of one level depend on each other, and the levels in order respect every dependence of the
    program order); a group is the instructions of one level and key (a guarded one alone), in program
    order. Dead products (no op) are left out."""
    level_w, level_r = {}, {}  # slot -> level of its last writer / of its last reader
    groups = {}
    for f in forms:
        if f.op is None:
            continue
        reads = [s for s, _ in f.srcs if s is not None] + ([f.guard[0]] if f.guard is not None else [])
        writes = [s for s, _ in f.dsts]
        lv = 1 + max([level_w.get(s, 0) for s in reads + writes] + [level_r.get(s, 0) for s in writes] + [0])
        for s in reads:
            level_r[s] = max(level_r.get(s, 0), lv)
        for s in writes:
            level_w[s] = lv
        key = (lv, f.key) if f.guard is None else (lv, f.key, id(f))
        groups.setdefault(key, []).append(f)
    return [groups[k] for k in sorted(groups, key=lambda k: k[0])]


class _Cols:
    """A source's or destination's column: a slot's, or a constant's ((None, value) sources)."""
    __slots__ = ("col",)

    def __init__(self, col):
        self.col = col

    def __getitem__(self, src):
        if isinstance(src, tuple):
            return self.col[src[0]] if src[0] is not None else self.col[("c", src[1])]
        return self.col[src]


def _groups(slots):
    """The slots sorted, and their runs of consecutive slots (slot range, column range): one slice
    assignment each when they are written back."""
    slots = sorted(slots)
    groups, i = [], 0
    while i < len(slots):
        j = i
        while j + 1 < len(slots) and slots[j + 1] == slots[j] + 1:
            j += 1
        groups.append((slots[i], slots[j] + 1, i, j + 1))
        i = j + 1
    return slots, groups


def run(M, lanes, pc, k) -> int:
    """Execute instructions pc .. pc+k-1 (all with vector forms) for ``lanes`` as vectors: k, or 0 (nothing
    done) where a live-in value is not a plain int or a scalar function faulted. The lanes' PCs are the
    caller's."""
    plans = M._vec_plans
    plan = plans.get((pc, k))
    if plan is None:
        plan = plans[(pc, k)] = _Plan(M._vec_forms[pc:pc + k])
    n = len(lanes)
    V = np.empty((n, plan.ncols), _U64)
    if plan.get is not None:
        rows = [plan.get(t.r) for t in lanes]
        for row in rows:
            if set(map(type, row)) != _INT:
                return 0
        try:
            V[:, :len(plan.live)] = rows
        except OverflowError:
            return 0
    for c, v in plan.consts:
        V[:, c] = v
    try:
        for g in plan.groups:
            _exec(M, g, V)
    except EmulationError:
        return 0  # (a scalar function faulted: the stretch runs per lane and faults there, as before)
    M.cur = plan.forms[-1].inst
    _store(plan, lanes, V)
    return len(plan.forms)


def _exec(M, g, V):
    """One group over the lanes, its destinations into V."""
    args = [V[:, c] if m is None else V[:, c] & m for c, m in zip(g.srcs, g.smasks)]
    active = None
    if g.guard is not None:
        col, neg = g.guard
        active = (V[:, col] != 0) != neg
        if not active.any():
            return
        if active.all():
            active = None
    outs, bad = g.forms[0].op(*args)
    outs = [o & m for o, m in zip(outs, g.dmasks)]
    if bad is not None:
        if active is not None:
            bad &= active[:, None]
        n, out = bad.shape[0], outs[0]
        for flat in np.flatnonzero(bad.T).tolist():  # (member by member, each lane by lane)
            c, lane = divmod(flat, n)
            f = g.forms[c]
            M.cur = f.inst
            out[lane, c] = f.scalar(*[int(x[lane, c]) for x in args]) & g.dmasks[0]
    for c, o in zip(g.dsts, outs):
        V[:, c] = o if active is None else np.where(active[:, None], o, V[:, c])


def _store(plan, lanes, V):
    """The registers the stretch wrote, back into each lane's register file."""
    if not plan.written:
        return
    groups = plan.wgroups
    for t, row in zip(lanes, V[:, plan.wcols].tolist()):
        r = t.r
        for a, b, i, j in groups:
            r[a:b] = row[i:j]
