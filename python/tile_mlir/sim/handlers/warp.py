"""Warp-level collective instructions that take a member mask: elect.sync, bar.warp.sync,
shfl.sync, vote.sync, redux.sync, and activemask; and setmaxnreg, executed by whole warps."""

from __future__ import annotations

from ..codegen import mask
from ..errors import EmulationError
from ..state import State


def _member_req(d, op):
    """Build req(warp, threads_at_pc) -> frozenset of required lanes from a membermask operand."""
    if op[0] == "imm":
        m = op[1] & 0xFFFFFFFF
        lanes = frozenset(i for i in range(32) if (m >> i) & 1)

        def req(w, at):
            if not lanes <= w.lanes:
                raise EmulationError(f"membermask 0x{m:08x} names lanes that do not exist in "
                                     f"warp {w.idx}")
            return _executing_in(m, lanes, at)
        return req
    s = d.slot(op)

    def req(w, at):
        m = at[0].r[s] & 0xFFFFFFFF
        return _executing_in(m, frozenset(i for i in range(32) if (m >> i) & 1), at)
    return req


def _executing_in(m, lanes, at):
    """`lanes`, after the PTX ISA's rule for the .sync warp instructions: the executing thread must be
    in membermask (else the behaviour is undefined; membermask 0 waited for no one, forever)."""
    if not any(t.lane in lanes for t in at):
        raise EmulationError(f"membermask 0x{m:08x} does not hold the executing lane {at[0].lane}: a .sync "
                             "warp instruction's executing thread must be in its membermask (PTX ISA)")
    return lanes


def decode_elect(d, inst):
    ops = inst.operands
    if len(ops) != 2:
        raise d.error("elect.sync needs `d|p, membermask`")
    dst = ops[0]
    rd, pd = (dst[1], dst[2]) if dst[0] == "pair" else (dst, ("sink",))
    sr = None if rd[0] == "sink" else d.slot(rd)
    sp = None if pd[0] == "sink" else d.slot(pd)

    def f(w, parts):
        leader = min(t.lane for t in parts)
        for t in parts:
            if sr is not None:
                t.r[sr] = leader
            if sp is not None:
                t.r[sp] = 1 if t.lane == leader else 0
    return f, _member_req(d, ops[1])


def decode_setmaxnreg(d, inst):
    """setmaxnreg.{inc,dec}.sync.aligned.u32 N: the warp's per-thread register maximum becomes N, a multiple
    of 8 in [24, 256] (PTX ISA "setmaxnreg"). tile-sim's registers are not a budget, so the executing warp
    (all its lanes: .sync.aligned) changes nothing else."""
    p = inst.parts
    if len(p) != 5 or p[1] not in ("inc", "dec") or p[2:] != ["sync", "aligned", "u32"]:
        raise d.error("setmaxnreg takes .inc or .dec, then .sync.aligned.u32")
    ops = d.operands(1)
    if ops[0][0] != "imm" or not 24 <= ops[0][1] <= 256 or ops[0][1] % 8:
        raise d.error("setmaxnreg takes an immediate register count, a multiple of 8 in [24, 256]")
    return (lambda w, parts: None), None


def decode_bar_warp_sync(d, inst):
    return (lambda w, parts: None), _member_req(d, d.operands(1)[0])


def decode_shfl(d, inst):
    p = inst.parts
    mode = next((x for x in p if x in ("up", "down", "bfly", "idx")), None)
    if mode is None or "sync" not in p:
        raise d.error("only shfl.sync.{up,down,bfly,idx}.b32 is supported")
    ops = inst.operands
    if len(ops) != 5:
        raise d.error("shfl.sync needs d{|p}, a, b, c, membermask")
    dst, a, b, c, mm = ops
    rd, pd = (dst[1], dst[2]) if dst[0] == "pair" else (dst, ("sink",))
    ea = d.compile([f"return {d.src(a, 32)}"])
    eb = d.compile([f"return {d.src(b, 32)}"])
    ec = d.compile([f"return {d.src(c, 32)}"])
    sr = d.slot(rd)
    sp = None if pd[0] == "sink" else d.slot(pd)

    def f(w, parts):
        vals = {t.lane: ea(t) for t in parts}
        lanes = set(vals)
        res = []
        for t in parts:
            lane = t.lane
            bval = eb(t) & 0x1F
            cv = ec(t)
            seg = (cv >> 8) & 0x1F
            clamp = cv & 0x1F
            maxl = (lane & seg) | (clamp & ~seg)
            minl = lane & seg
            if mode == "up":
                j = lane - bval
                ok = j >= maxl
            elif mode == "down":
                j = lane + bval
                ok = j <= maxl
            elif mode == "bfly":
                j = lane ^ bval
                ok = j <= maxl
            else:
                j = minl | (bval & ~seg)
                ok = j <= maxl
            if not ok:
                j = lane
            if j not in lanes:
                raise EmulationError(f"shfl.sync lane {lane} reads lane {j}, which is not in the "
                                     f"member mask")
            res.append((t, vals[j], ok))
        for t, v, ok in res:
            t.r[sr] = v
            if sp is not None:
                t.r[sp] = 1 if ok else 0
    return f, _member_req(d, mm)


def decode_vote(d, inst):
    p = inst.parts
    mode = next((x for x in p if x in ("all", "any", "uni", "ballot")), None)
    if mode is None:
        raise d.error("unknown vote mode")
    dst, a, mm = d.operands(3)
    ea = d.compile([f"return {d.src(a, 1)}"])
    sd = d.slot(dst)

    def f(w, parts):
        vals = [ea(t) for t in parts]
        if mode == "ballot":
            r = sum(1 << t.lane for t, v in zip(parts, vals) if v)
        elif mode == "all":
            r = 1 if all(vals) else 0
        elif mode == "any":
            r = 1 if any(vals) else 0
        else:
            r = 1 if (all(vals) or not any(vals)) else 0
        for t in parts:
            t.r[sd] = r
    return f, _member_req(d, mm)


def decode_redux(d, inst):
    p = inst.parts
    op = p[2] if len(p) > 2 else None
    typ = p[-1]
    if op not in ("add", "min", "max", "and", "or", "xor") or typ not in ("u32", "s32", "b32"):
        raise d.error("only redux.sync.{add,min,max,and,or,xor}.{u32,s32,b32} is supported")
    dst, a, mm = d.operands(3)
    ea = d.compile([f"return {d.src(a, 32, typ == 's32')}"])
    sd = d.slot(dst)

    def f(w, parts):
        vals = [ea(t) for t in parts]
        if op == "add":
            r = sum(vals)
        elif op == "min":
            r = min(vals)
        elif op == "max":
            r = max(vals)
        else:
            r = vals[0]
            for v in vals[1:]:
                r = r & v if op == "and" else (r | v if op == "or" else r ^ v)
        for t in parts:
            t.r[sd] = r & 0xFFFFFFFF
    return f, _member_req(d, mm)


def decode_activemask(d, inst):
    dst = d.operands(1)[0]
    sd = d.slot(dst)

    def f(t):
        pc = t.pc - 1
        t.r[sd] = sum(1 << u.lane for u in t.warp.threads
                      if u.state == State.RUN and (u.pc == pc or u.pc == pc + 1)) & mask(32)
    return f
