"""Warp-level collective instructions that take a member mask: elect.sync, bar.warp.sync,
shfl.sync, vote.sync, redux.sync, match.sync, and activemask."""

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
    """redux.sync.{add,min,max}.{u32,s32}, .{and,or,xor}.b32, and sm_100a's
    redux.sync.{min,max}{.abs}{.NaN}.f32 (PTX ISA "redux.sync")."""
    p = inst.parts
    op = p[2] if len(p) > 2 else None
    typ = p[-1]
    mods = set(p[3:-1])
    if typ == "f32":
        if op not in ("min", "max") or not mods <= {"abs", "NaN"}:
            raise d.error("redux.sync .f32 takes .min or .max, {.abs}{.NaN}")
        return _redux_f32(d, op, "abs" in mods, "NaN" in mods)
    ok = {"add": ("u32", "s32"), "min": ("u32", "s32"), "max": ("u32", "s32"),
          "and": ("b32",), "or": ("b32",), "xor": ("b32",)}
    if op not in ok or typ not in ok[op] or mods:
        raise d.error("redux.sync takes .{add,min,max}.{u32,s32} or .{and,or,xor}.b32 (or "
                      ".{min,max}{.abs}{.NaN}.f32)")
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


def _f32_key(b):
    """Total order of the non-NaN f32 bit patterns in which -0 < +0 (PTX min/max)."""
    return -(b & 0x7FFFFFFF) - 1 if b >> 31 else b


def _redux_f32(d, op, absolute, nan):
    """min / max of the members' f32 values: .abs takes |x| first; -0 is below +0; a NaN input
    makes the canonical NaN with .NaN and is ignored without it (all NaN: the canonical NaN), as
    min.f32 / max.f32 do."""
    dst, a, mm = d.operands(3)
    ea = d.compile([f"return {d.src(a, 32)}"])
    sd = d.slot(dst)

    def f(w, parts):
        vals = [ea(t) & 0xFFFFFFFF for t in parts]
        if absolute:
            vals = [v & 0x7FFFFFFF for v in vals]
        isnan = [(v & 0x7FFFFFFF) > 0x7F800000 for v in vals]
        num = [v for v, n in zip(vals, isnan) if not n]
        if (nan and any(isnan)) or not num:
            r = 0x7FFFFFFF
        else:
            r = (min if op == "min" else max)(num, key=_f32_key)
        for t in parts:
            t.r[sd] = r
    return f, _member_req(d, mm)


def decode_match(d, inst):
    """match.sync.{any,all}.{b32,b64} d{|p}, a, membermask (PTX ISA "match.sync"): .any gives each
    member the mask of the members holding its value; .all gives the membermask when all members
    hold one value (p true), else 0 (p false)."""
    p = inst.parts
    mode = next((x for x in p if x in ("any", "all")), None)
    typ = p[-1]
    if mode is None or "sync" not in p or typ not in ("b32", "b64"):
        raise d.error("match takes .sync.{any,all}.{b32,b64}")
    dst, a, mm = d.operands(3)
    rd, pd = (dst[1], dst[2]) if dst[0] == "pair" else (dst, ("sink",))
    if mode == "any" and pd[0] != "sink":
        raise d.error("match.sync.any has no predicate destination")
    ea = d.compile([f"return {d.src(a, 64 if typ == 'b64' else 32)}"])
    sr = None if rd[0] == "sink" else d.slot(rd)
    sp = None if pd[0] == "sink" else d.slot(pd)
    req = _member_req(d, mm)

    def f(w, parts):
        vals = {t.lane: ea(t) for t in parts}
        members = sum(1 << lane for lane in vals)
        if mode == "all":
            same = len(set(vals.values())) == 1
            for t in parts:
                if sr is not None:
                    t.r[sr] = members if same else 0
                if sp is not None:
                    t.r[sp] = 1 if same else 0
            return
        for t in parts:
            v = vals[t.lane]
            if sr is not None:
                t.r[sr] = sum(1 << lane for lane, x in vals.items() if x == v)
    return f, req


def decode_activemask(d, inst):
    dst = d.operands(1)[0]
    sd = d.slot(dst)

    def f(t):
        pc = t.pc - 1
        t.r[sd] = sum(1 << u.lane for u in t.warp.threads
                      if u.state == State.RUN and (u.pc == pc or u.pc == pc + 1)) & mask(32)
    return f
