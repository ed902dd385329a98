"""mov, cvt and cvta: moves, packing and unpacking, conversions between the integer and float
types (the two-input packed forms in cvt_pack.py), and conversions between generic and state-space
addresses (docs/emulator.md §5)."""

from __future__ import annotations

from ..codegen import mask
from ..errors import EmulationError
from ..guarded_int import carry, plain
from ..ptx_parser import TYPE_BITS
from . import cvt_float, cvt_pack
from .alu import FLOAT_TYPES, type_suffix
from .. import memory as mem


def decode_mov(d, inst):
    """A mov copies a guarded value (guarded_int.py) without using it: the copy is guarded as its
    source and, with its register, shown to the value (``_track``), so that the value's owner can
    make the copies plain when they may be used (ld_poison.py)."""
    t, w, s = type_suffix(d, inst)
    dd, a = d.operands(2)
    ns = {"_track": _track, "_moved": _moved, "_plain": plain}
    if dd[0] == "vec":  # unpack
        n = len(dd[1])
        ew = w // n
        lines = [f"_v = {d.src(a, w)}"]
        for i, o in enumerate(dd[1]):
            lines.append(d.dst(o, ew)(f"(_v >> {i * ew}) & {mask(ew):#x}"))
        lines += [f"if type(_v) is not int:"] + [
            f"    _track(t, {d.slot(o)})" for o in dd[1] if o[0] != "sink"] + ["    pass"]
        return d.compile(lines, ns)
    if a[0] == "vec":  # pack
        n = len(a[1])
        ew = w // n
        xs = [f"_x{i}" for i in range(n)]
        lines = [f"{x} = {d.src(o, ew)}" for x, o in zip(xs, a[1])]
        value = " | ".join(f"({x} << {i * ew})" for i, x in enumerate(xs))
        lines += [f"if {' and '.join(f'type({x}) is int' for x in xs)}:",
                  "    " + d.dst(dd, w)(value), "else:"]
        if dd[0] != "sink":  # of guarded values: computed once on the plain bits, then guarded
            plainv = " | ".join(f"(_plain({x}) << {i * ew})" for i, x in enumerate(xs))
            sl = d.slot(dd)
            lines += ["    " + d.dst(dd, w)(plainv), f"    _moved(t, {sl}, ({', '.join(xs)},), r[{sl}])"]
        else:
            lines.append("    pass")
        return d.compile(lines, ns)
    if a[0] == "sym":
        space, val = d.sym(a[1])
        if space == "label":
            raise d.error("mov of a label is not supported")
    lines = [d.dst(dd, w)(d.src(a, w, ftype=t in FLOAT_TYPES))]
    if dd[0] != "sink":
        lines.append(f"if type(r[{d.slot(dd)}]) is not int: _track(t, {d.slot(dd)})")
    return d.compile(lines, ns)


def _moved(t, slot, xs, value):
    """Register ``slot`` of ``t`` takes ``value``, packed by a mov from ``xs`` of which some are
    guarded: their type's ``_moved`` when they share one, else as their operators give it."""
    g = None  # the one guarded type among xs, False for several (a loop: a GEMM epilogue packs 10^5)
    for x in xs:
        if type(x) is not int:
            if g is None:
                g = type(x)
            elif type(x) is not g:
                g = False
                break
    f = getattr(g, "_moved", None) if g else None
    if f is not None:
        f(t, slot, xs, value)
        return
    t.r[slot] = carry(xs, value)
    _track(t, slot)


def _track(t, slot):
    x = t.r[slot]
    f = getattr(x, "_copied_to", None)
    if f is not None:
        f(t, slot)


def decode_cvt(d, inst):
    p = inst.parts
    if len(p) >= 2 and p[1] == "pack":  # cvt.pack.sat: two (three) integers packed narrow
        return cvt_pack.decode_cvt_pack_int(d, inst)
    dt, st = p[-2], p[-1]
    if dt in cvt_pack.PACKED or st in cvt_pack.PACKED:  # packed narrow floats (cvt_pack.py)
        return cvt_pack.decode_cvt_pack(d, inst)
    mods = p[1:-2]
    if dt in cvt_float.FLOATS or st in cvt_float.FLOATS or dt == "tf32":  # cvt_float.py
        known = (*cvt_float.FLOATS, *cvt_float.INT_BITS, "tf32")  # (no .b or .pred types: PTX ISA cvt)
        if st not in known or dt not in known:
            raise d.error(f"cvt: `{inst.opcode}` needs .dtype.atype, each one of .{', .'.join(known)}")
        return cvt_float.decode_cvt_float(d, inst, dt, st, mods)
    if dt not in TYPE_BITS or st not in TYPE_BITS:
        raise d.error("cvt needs .dtype.atype")
    bad = [m for m in mods if m != "sat"]
    if bad:
        raise d.error(f"cvt between integers: modifier .{bad[0]} is not defined")
    dd, a = d.operands(2)
    dw, sw = TYPE_BITS[dt], TYPE_BITS[st]
    # integer -> integer: read in the source type (sign-extend if signed), write in dest type
    e = d.src(a, sw, st.startswith("s"))
    if "sat" in mods:
        lo, hi = ((-(1 << (dw - 1)), (1 << (dw - 1)) - 1) if dt.startswith("s")
                  else (0, mask(dw)))
        e = f"max({lo}, min({hi}, {e}))"
    return d.compile([d.dst(dd, dw, dt.startswith("s"))(e)])


def decode_cvta(d, inst):
    p = inst.parts
    to = "to" in p
    space = next((q for q in p[1:] if q.split("::")[0] in ("shared", "global", "local", "const",
                                                          "param")), None)
    if space is None:
        raise d.error("cvta needs a state space")
    t, w, s = type_suffix(d, inst, {"u32", "u64"})
    dd, a = d.operands(2)
    e = d.src(a, 64)
    sp = space.split("::")[0]
    if sp in ("global", "const"):
        return d.compile([d.dst(dd, w)(e)])
    base, size = {"shared": (mem.SHARED_WINDOW, mem.SHARED_WINDOW_SIZE),
                  "param": (mem.PARAM_WINDOW, mem.PARAM_WINDOW_SIZE),
                  "local": (mem.LOCAL_WINDOW, mem.LOCAL_WINDOW_SIZE)}[sp]
    if not to:
        return d.compile([d.dst(dd, w)(f"{e} + {base}")])
    return d.compile([f"_a = {e}",
                      f"if not ({base} <= _a < {base + size}):",
                      f"    raise EmulationError('cvta.to.{space}: generic address 0x%x is not in "
                      f"the {sp} window' % _a)",
                      d.dst(dd, w)(f"_a - {base}")])
