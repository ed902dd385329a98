"""wgmma.{fence, mma_async, commit_group, wait_group} (sm_90a warpgroup MMA).

Semantics from the PTX ISA wgmma chapter (§9.7.15): the four warps of a warpgroup execute each
instruction together; here each warp executes its part when its own lanes arrive, which is exact
because a warp's accumulator fragment holds rows 16w..16w+15 of D (w its rank in the warpgroup)
and those rows depend on its rows of A, all of B and its own registers only.

Operands: A and B through sm_90 matrix descriptors (smem_desc.decode_sm90, mma_operands' canonical
layouts, every swizzle, K- and MN-major), or A from registers; D (and C) in the registers of the
accumulator fragment (:func:`d_fragment`).  The arithmetic is mma_numerics' (MMA-Sim's Hopper model;
integer kinds exact).

Asynchrony: operands are read and D computed at issue; the accumulator registers then hold
:class:`InFlight` values until the ``wgmma.wait_group`` that retires the wgmma's group, at which the
plain results land.  In strict mode every accumulator register of a warp's wgmma holds the same
InFlight (its record's token: any use of it is an error, so its value never matters) and the
record keeps the warp's D, which a chained wgmma reads as its C directly; in lenient mode, where a
use goes on with the value, each register holds its own, an instance of a subclass made for the
record (its ``rec`` a class attribute: no attribute dict per register and lane).  Any arithmetic,
comparison or store of an InFlight register is a violation
(PTX: the registers must not be accessed until the group completes); a later wgmma of the chain
reads the pending value as its C, as PTX orders same-accumulator wgmmas.  A wgmma needs a prior
wgmma.fence in its thread; a thread that exits with wgmmas not waited for is a violation.

Kept: per thread its uncommitted wgmmas, its committed groups and whether it executed wgmma.fence.
"""

from __future__ import annotations

from itertools import repeat
from operator import is_

import numpy as np

from .. import mma_numerics
from ..errors import EmulationError
from ..guarded_int import guard_int_ops
from ..smem_desc import check_for_mma, decode_sm90
from ..state import Kept
from . import wgmma_chain
from .mma_smem import read_operand

#: (dtype, atype) -> K of the instruction; the element types wgmma takes
K_OF = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}
DTYPES = {"f16": ("f16", "f32"), "bf16": ("f32",), "tf32": ("f32",), "e4m3": ("f16", "f32"),
          "e5m2": ("f16", "f32"), "s8": ("s32",), "u8": ("s32",)}
FLOAT_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8}


def n_valid(atype: str, n: int) -> bool:
    """PTX ISA wgmma shapes: N = 8..256 step 8; s8/u8: 8, 16, 24, 32, then step 16 to 256."""
    if atype in ("s8", "u8"):
        return n in (8, 16, 24) or (32 <= n <= 256 and n % 16 == 0)
    return 8 <= n <= 256 and n % 8 == 0


_FRAGMENTS: dict = {}


def _warp_fragment(n: int, q: int):
    """d_fragment's rows for warp ``q`` of the warpgroup, its rows counted from 16q (kept: every
    wgmma asked for it again)."""
    hit = _FRAGMENTS.get((n, q))
    if hit is None:
        rr, cc = d_fragment(n)
        hit = _FRAGMENTS[(n, q)] = (rr[32 * q:32 * q + 32] - 16 * q, cc[32 * q:32 * q + 32])
    return hit


def d_fragment(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) arrays of shape (128, n/2): element v of thread t's accumulator fragment (PTX ISA
    "Register Fragments", wgmma .m64nNk*: matrix D), row 16w + l/4 + 8((v>>1)&1) and column
    8(v/4) + 2(l%4) + (v&1), w = t/32, l = t%32.  f32/s32: value v is register v; f16: register
    v/2, low half for even v."""
    t = np.arange(128)[:, None]
    v = np.arange(n // 2)[None, :]
    w, lane = t // 32, t % 32
    return 16 * w + lane // 4 + 8 * ((v >> 1) & 1), 8 * (v // 4) + 2 * (lane % 4) + (v & 1)


def a_fragment(atype: str) -> tuple[np.ndarray, np.ndarray]:
    """(row, k) arrays of shape (128, values): A from registers (PTX ISA "Register Fragments",
    matrix A): f16/bf16 8 values in 4 registers, row 16w + l/4 + 8((v>>1)&1), k 2(l%4) + (v&1) +
    8(v>>2); tf32 4 registers, row 16w + l/4 + 8(v&1), k (l%4) + 4(v>>1); 8-bit 16 values in 4
    registers, row 16w + l/4 + 8((v>>2)&1), k 4(l%4) + (v&3) + 16(v>>3).  Value v sits in register
    v / (32 / bits), at bit (v mod (32 / bits)) * bits."""
    t = np.arange(128)[:, None]
    w, lane = t // 32, t % 32
    base = 16 * w + lane // 4
    if atype in ("f16", "bf16"):
        v = np.arange(8)[None, :]
        return base + 8 * ((v >> 1) & 1), 2 * (lane % 4) + (v & 1) + 8 * (v >> 2)
    if atype == "tf32":
        v = np.arange(4)[None, :]
        return base + 8 * (v & 1), (lane % 4) + 4 * (v >> 1)
    v = np.arange(16)[None, :]
    return base + 8 * ((v >> 2) & 1), 4 * (lane % 4) + (v & 3) + 16 * (v >> 3)


# ------------------------------------------------------------------------------- state
class _ThreadState:
    __slots__ = ("pending", "groups", "fenced")

    def __init__(self, t):
        self.pending = []  # records of wgmmas not yet committed
        self.groups = []  # committed groups, oldest first
        self.fenced = False


THREAD = Kept("wgmma", "thread", _ThreadState)


@guard_int_ops
class InFlight(int):
    """The value of an accumulator register of a wgmma not yet waited for: the result's bits,
    refusing every use (the emulator's own code reads ``.value``). ``rec``, its Record: the
    instance's (a strict-mode token) or its class's (lenient mode: :func:`_lenient_class`)."""

    value = property(int.__int__)

    def _touch(self):
        rec = self.rec
        rec.M.violation(f"a register of the wgmma.mma_async at line {rec.line} is accessed before "
                        f"the wgmma.wait_group that completes it (PTX ISA: accumulator registers "
                        f"must not be accessed while the wgmma is in flight)",
                        key=("wgmma-inflight", rec.line))


def _lenient_class(rec):
    """InFlight for each register of ``rec`` in lenient mode: ``cls(v)`` is an int object without
    attributes of its own (``rec`` is the class's), as a GEMM makes one per register and lane."""
    return type("InFlight", (InFlight,), {"rec": rec, "__module__": __name__})


class Record:
    """One warp's wgmma: its D (16 x n, the C of a chained wgmma; computed when first read,
    wgmma_chain.py), each lane's accumulator values (``rows``) and, in strict mode, the token its
    registers hold."""
    __slots__ = ("M", "line", "slots", "span", "step", "frag", "wide", "_rows", "tok", "cls")

    def __init__(self, M, line, slots, span, step, frag, wide, strict):
        self.M, self.line, self.slots, self.span, self.step = M, line, slots, span, step
        self.frag, self.wide, self._rows = frag, wide, None
        self.tok = self.cls = None
        if strict:
            self.tok = int.__new__(InFlight, 0)
            self.tok.rec = self

    @property
    def d(self):
        return wgmma_chain.compute(self.step)

    @property
    def rows(self):
        """Lane -> its accumulator registers' values."""
        if self._rows is None:
            rr, cc = self.frag
            out = self.d[rr, cc].astype(np.uint64)  # (32, n/2) values
            if not self.wide:
                out = out[:, 0::2] | (out[:, 1::2] << 16)
            self._rows = out.tolist()
        return self._rows


def _span(slots):
    """(first, end) when the slots are consecutive (registers read and written as a slice)."""
    return (slots[0], slots[0] + len(slots)) if slots == list(range(slots[0], slots[0] +
                                                                     len(slots))) else None


def _held(r, rec, x):
    """Whether every accumulator register of ``rec`` in file ``r`` holds ``x`` (by identity)."""
    sp = rec.span
    seg = r[sp[0]:sp[1]] if sp is not None else [r[s] for s in rec.slots]
    return seg[0] is x and all(map(is_, seg, repeat(x)))  # (C-speed identity over the slice)


# ------------------------------------------------------------------------------- decoders
def decode_fence(d, inst):
    def f(w, parts):
        for t in parts:
            THREAD.of(t).fenced = True
    return f, None


def decode_commit_group(d, inst):
    def f(w, parts):
        for t in parts:
            st = THREAD.of(t)
            st.groups.append(st.pending)
            st.pending = []
    return f, None


def decode_wait_group(d, inst):
    ops = d.operands(1)
    if ops[0][0] != "imm" or not 0 <= ops[0][1] <= 7:
        raise d.error("wgmma.wait_group takes an immediate N in 0..7")
    keep = ops[0][1]
    M = d.M

    def f(w, parts):
        for t in parts:
            retire(M, t, keep)
    return f, None


def retire(M, t, keep: int):
    """Complete the thread's oldest committed groups until ``keep`` remain: the accumulator
    registers take their results."""
    st = THREAD.of(t)
    r = t.r
    while len(st.groups) > keep:
        for rec in st.groups.pop(0):
            sp = rec.span
            if rec.tok is not None:
                if sp is not None and _held(r, rec, rec.tok):  # the common case, as a slice
                    r[sp[0]:sp[1]] = rec.rows[t.lane]
                    continue
                x0 = r[rec.slots[0]]
                if isinstance(x0, InFlight) and x0.rec is not rec and _held(r, rec, x0):
                    continue  # a later wgmma of the chain holds them all (its D not needed)
            elif sp is not None:  # lenient: each register its own value, or a later wgmma's
                types = set(map(type, r[sp[0]:sp[1]]))
                if types == {rec.cls}:  # (every register still this wgmma's: the loop below, at once)
                    r[sp[0]:sp[1]] = rec.rows[t.lane]
                    continue
                if rec.cls not in types and all(ty.__base__ is InFlight for ty in types):
                    continue  # (every register a later wgmma's of the chain: the loop below does nothing)
            xs = [r[s] for s in rec.slots]
            values = rec.rows[t.lane] if any(isinstance(x, InFlight) and x.rec is rec for x in xs) \
                else xs  # (only a written register's violation is left to report)
            for s, v, x in zip(rec.slots, values, xs):
                if isinstance(x, InFlight) and x.rec is rec:
                    r[s] = v
                elif not (isinstance(x, InFlight) and x.rec is not rec):
                    M.violation(f"an accumulator register of the wgmma.mma_async at line "
                                f"{rec.line} was written while the wgmma was in flight",
                                key=("wgmma-overwrite", rec.line))


def at_exit(M, t):
    """Thread-exit hook (state.Hooks): wgmmas never waited for lose their results."""
    st = THREAD.peek(t)
    if st is not None and (st.pending or st.groups):
        lines = sorted({rec.line for g in st.groups + [st.pending] for rec in g})
        M.violation(f"thread {M.where(t)} exited with wgmma.mma_async (line(s) {lines}) not "
                    f"completed by wgmma.wait_group", key=("wgmma-exit", tuple(lines)))


class _Spec:
    __slots__ = ("line", "n", "k", "dtype", "atype", "btype", "satfinite", "a_regs", "a_desc",
                 "b_desc", "d_slots", "span", "scale_d", "neg_a", "neg_b", "trans_a", "trans_b")


def _imm(d, op, allowed, what):
    if op[0] != "imm" or op[1] not in allowed:
        raise d.error(f"{what} must be an immediate in {sorted(allowed)}")
    return op[1]


def decode_mma_async(d, inst):
    p = inst.parts
    if "sp" in p:
        raise d.error("wgmma.mma_async.sp is not emulated by tile-sim")
    if "b1" in p:  # D = C + popc(A .and B) over K = 256 bits: no operand reader for 1-bit data
        raise d.error("wgmma.mma_async .b1 (.and.popc, K = 256) is not emulated by tile-sim: its "
                      "1-bit operands have no shared-memory reader here")
    if p[2:4] != ["sync", "aligned"]:
        raise d.error("wgmma.mma_async needs .sync.aligned")
    rest = p[4:]
    sat = "satfinite" in rest
    rest = [q for q in rest if q != "satfinite"]
    if len(rest) != 4 or not rest[0].startswith("m64n"):
        raise d.error("expected .m64nNkK.dtype.atype.btype")
    shape, dtype, atype, btype = rest
    try:
        n, k = (int(x) for x in shape[4:].split("k"))
    except ValueError:
        raise d.error(f"malformed shape .{shape}") from None
    if atype not in K_OF:
        raise d.error(f"wgmma with .{atype} operands is not emulated (tile-sim executes f16, bf16, "
                      f"tf32, e4m3, e5m2, s8 and u8)")
    if K_OF[atype] != k or not n_valid(atype, n):
        raise d.error(f"shape .{shape} is invalid for .{atype} (PTX ISA: K = {K_OF[atype]}, N "
                      f"per the wgmma shape table)")
    if dtype not in DTYPES[atype]:
        raise d.error(f".{dtype} accumulators are invalid with .{atype} inputs")
    float8 = ("e4m3", "e5m2")
    same = btype == atype or (atype in float8 and btype in float8) or \
        (atype in ("s8", "u8") and btype in ("s8", "u8"))
    if not same:
        raise d.error(f".{atype} x .{btype} is not a wgmma type combination")
    if sat and atype not in ("s8", "u8"):
        raise d.error(".satfinite is only for integer wgmma")
    s = _Spec()
    s.line, s.n, s.k, s.dtype, s.atype, s.btype, s.satfinite = inst.line, n, k, dtype, atype, \
        btype, sat
    ops = inst.operands
    integer = atype in ("s8", "u8")
    a_regs = ops[1][0] == "vec" if len(ops) > 1 else False
    want = 4 if integer else (8 - a_regs if atype in ("f16", "bf16") else 6)
    if len(ops) != want:
        raise d.error(f"expected {want} operands for this form, got {len(ops)}")
    if ops[0][0] != "vec":
        raise d.error("the accumulator d must be a vector of registers")
    nregs = n // 2 if dtype in ("f32", "s32") else n // 4
    if len(ops[0][1]) != nregs:
        raise d.error(f".{shape}.{dtype} needs {nregs} accumulator registers, got "
                      f"{len(ops[0][1])}")
    s.d_slots = [d.slot(o) for o in ops[0][1]]
    s.span = _span(s.d_slots)
    if a_regs:
        if len(ops[1][1]) != 4:
            raise d.error("A from registers takes 4 registers")
        s.a_regs = [d.compile([f"return {d.src(o, 32)}"]) for o in ops[1][1]]
        s.a_desc = None
    else:
        s.a_regs = None
        s.a_desc = d.compile([f"return {d.src(ops[1], 64)}"])
    s.b_desc = d.compile([f"return {d.src(ops[2], 64)}"])
    s.scale_d = d.compile([f"return {d.src(ops[3], 1)}"])
    s.neg_a = s.neg_b = False
    s.trans_a = s.trans_b = 0
    if not integer:
        s.neg_a = _imm(d, ops[4], (1, -1), "imm-scale-a") == -1
        s.neg_b = _imm(d, ops[5], (1, -1), "imm-scale-b") == -1
        if atype in ("f16", "bf16"):
            if a_regs:
                s.trans_b = _imm(d, ops[6], (0, 1), "imm-trans-b")
            else:
                s.trans_a = _imm(d, ops[6], (0, 1), "imm-trans-a")
                s.trans_b = _imm(d, ops[7], (0, 1), "imm-trans-b")
    M = d.M
    M.hooks.register(thread_exit=at_exit)

    def f(w, parts):
        exec_mma(M, w, parts, s)
    return f, None


def _uniform(parts, fn, what):
    vals = [fn(t) for t in parts]
    if any(v != vals[0] for v in vals):
        raise EmulationError(f"{what} must be the same in every lane of the warpgroup")
    return vals[0]


def _desc(parts, fn, what):
    dd = decode_sm90(_uniform(parts, fn, what))
    errs = check_for_mma(dd)
    if errs:
        raise EmulationError(f"invalid {what}: " + "; ".join(errs) + f" [{dd}]")
    return dd


def exec_mma(M, w, parts, s):
    if len(parts) != 32:
        raise EmulationError("wgmma.mma_async must be executed by all 32 lanes of each warp")
    if len(w.cta.warps) < 4 * (w.idx // 4 + 1):
        raise EmulationError(f"wgmma.mma_async must be executed by a whole warpgroup: warp {w.idx} "
                             f"of a {len(w.cta.warps)}-warp CTA is in no full warpgroup")
    for t in parts:
        if not THREAD.of(t).fenced:
            M.violation(f"wgmma.mma_async at line {s.line} without a prior wgmma.fence in this "
                        f"thread (PTX ISA: wgmma.fence must precede the first wgmma and any "
                        f"register access before it)", key=("wgmma-fence", s.line))
            break
    q = w.rank
    rows = slice(16 * q, 16 * q + 16)
    cta = w.cta
    t0 = parts[0]
    eb = FLOAT_BITS[s.atype]
    kb = not s.trans_b
    bd = _desc(parts, s.b_desc, "B descriptor")
    b = read_operand(M, t0, cta, bd, s.n, s.k, eb, kb, "wgmma B", s.line).T  # K x N
    if s.a_desc is not None:
        ad = _desc(parts, s.a_desc, "A descriptor")
        a = read_operand(M, t0, cta, ad, 64, s.k, eb, not s.trans_a, "wgmma A", s.line)[rows]
    else:
        a = _a_from_registers(parts, s, q)
    scale_d = _uniform(parts, s.scale_d, "scale-d")
    wide = s.dtype in ("f32", "s32")
    frag = _warp_fragment(s.n, q)
    key = (s.dtype, s.atype, s.btype, s.n, s.k, s.satfinite)
    prev = _chained_c(parts, s) if scale_d else None
    c = None
    if prev is not None and prev.step.key != key:
        c, prev = prev.d, None
    if prev is None and c is None:
        c = np.zeros((16, s.n), dtype=np.uint32)
        if scale_d:
            rr, cc = frag
            vals = np.array([_c_values(t, s) for t in parts], dtype=np.uint64)
            if not wide:
                vals = np.stack([vals & 0xFFFF, vals >> 16], axis=-1).reshape(32, -1)
            c[rr, cc] = vals.astype(np.uint32)
    if s.neg_a:  # negation is exact in every input format: applied to the operand bits here
        a = mma_numerics.negate(a, s.atype)
    if s.neg_b:
        b = mma_numerics.negate(b, s.btype)
    step = wgmma_chain.new_step(w, key, a, b, prev.step if prev is not None else None, c)
    if not wgmma_chain.lazy(M, s.atype):
        wgmma_chain.compute(step)  # at issue, as its errors are
    rec = Record(M, s.line, s.d_slots, s.span, step, frag, wide, M.strict)
    tok, sp = rec.tok, s.span
    rows = rec.rows if tok is None else None
    cls = rec.cls = _lenient_class(rec) if tok is None else None
    for t in parts:
        r = t.r
        if tok is None and sp is not None:  # lenient: each register its value, used as it is when touched
            r[sp[0]:sp[1]] = list(map(cls, rows[t.lane]))
        elif tok is None:
            for sl, v in zip(s.d_slots, rows[t.lane]):
                r[sl] = cls(v)
        elif sp is not None:
            r[sp[0]:sp[1]] = [tok] * (sp[1] - sp[0])
        else:
            for sl in s.d_slots:
                r[sl] = tok
        THREAD.of(t).pending.append(rec)
    M.progress += 1


def _c_values(t, s):
    """[_plain(t, t.r[slot], slot) for slot in s.d_slots], where the registers hold plain ints or
    lenient in-flight values (their own values) in one pass."""
    r = t.r
    sp = s.span
    seg = r[sp[0]:sp[1]] if sp is not None else [r[sl] for sl in s.d_slots]
    if all(ty is int or (ty is not InFlight and ty.__base__ is InFlight) for ty in set(map(type, seg))):
        return list(map(int.__int__, seg))
    return [_plain(t, x, sl) for x, sl in zip(seg, s.d_slots)]


def _plain(t, x, slot):
    """The value in register ``slot`` of thread ``t``, holding ``x`` (an in-flight one its
    record's value, as PTX orders same-accumulator wgmmas)."""
    if not isinstance(x, InFlight):
        return x
    rec = x.rec
    return rec.rows[t.lane][rec.slots.index(slot)] if x is rec.tok else x.value


def _chained_c(parts, s):
    """The record of the earlier wgmma of this warp on the same registers whose token every
    accumulator register, in every lane, holds (its D is this wgmma's C); else None."""
    x0 = parts[0].r[s.d_slots[0]]
    if not isinstance(x0, InFlight):
        return None
    rec = x0.rec
    if x0 is not rec.tok or rec.slots != s.d_slots:
        return None
    if all(_held(t.r, rec, x0) for t in parts):
        return rec
    return None


def _a_from_registers(parts, s, q):
    eb = FLOAT_BITS[s.atype]
    per = 32 // eb
    rows, ks = a_fragment(s.atype)
    rows, ks = rows[32 * q:32 * q + 32] - 16 * q, ks[32 * q:32 * q + 32]
    a = np.zeros((16, s.k), dtype=np.uint32)
    m = (1 << eb) - 1
    for t, rw, kk in zip(parts, rows, ks):
        regs = [g(t) for g in s.a_regs]
        vals = [(regs[v // per] >> (eb * (v % per))) & m for v in range(len(rw))]
        a[rw, kk] = vals
    return a
