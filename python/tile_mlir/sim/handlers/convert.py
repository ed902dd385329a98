"""mov, cvt and cvta: moves, packing and unpacking, conversions between the integer and float
types (the two-input packed forms in cvt_pack.py), and conversions between generic and state-space
addresses (docs/emulator.md §5)."""

from __future__ import annotations

import math

import numpy as np

from ..codegen import bits_to_f32, bits_to_f64, f32_to_bits, f64_to_bits, mask
from ..errors import EmulationError
from ..guarded_int import carry, plain
from ..ptx_parser import TYPE_BITS
from . import cvt_pack
from .alu import FLOAT_TYPES, type_suffix

F16_OVERFLOW = 65520.0  # from here on a value rounds to infinity in f16 (65504 + half an ulp)


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


_RND_INT = {"rni": "rn", "rzi": "rz", "rmi": "rm", "rpi": "rp"}


def decode_cvt(d, inst):
    p = inst.parts
    dt, st = p[-2], p[-1]
    if dt in cvt_pack.PACKED:  # two inputs, one packed result (sim/handlers/cvt_pack.py)
        return cvt_pack.decode_cvt_pack(d, inst)
    if dt not in TYPE_BITS or st not in TYPE_BITS:
        raise d.error("cvt needs .dtype.atype")
    mods = set(p[1:-2])
    dd, a = d.operands(2)
    dw, sw = TYPE_BITS[dt], TYPE_BITS[st]
    dfl, sfl = dt in FLOAT_TYPES, st in FLOAT_TYPES
    sat = "sat" in mods
    if not dfl and not sfl:
        # integer -> integer: read in the source type (sign-extend if signed), write in dest type
        e = d.src(a, sw, st.startswith("s"))
        if sat:
            lo, hi = ((-(1 << (dw - 1)), (1 << (dw - 1)) - 1) if dt.startswith("s")
                      else (0, mask(dw)))
            e = f"max({lo}, min({hi}, {e}))"
        return d.compile([d.dst(dd, dw, dt.startswith("s"))(e)])
    rnd = next((m for m in mods if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi",
                                           "rna", "rs")), None)
    ns = {"_cvt": _cvt, "np": np, "math": math}
    e = f"_cvt({d.src(a, sw)}, '{st}', '{dt}', {rnd!r}, {sat}, M)"
    return d.compile([d.dst(dd, dw, dt.startswith("s"))(e)], ns)


def _to_float(v, t):
    if t == "f32":
        return bits_to_f32(v)
    if t == "f64":
        return bits_to_f64(v)
    if t == "f16":
        return float(np.array(v & 0xFFFF, dtype=np.uint16).view(np.float16))
    if t == "bf16":
        return bits_to_f32((v & 0xFFFF) << 16)
    raise EmulationError(f"conversion from .{t} is not supported")


def _round(x, mode):
    if mode in ("rn", "rni", None):
        return float(round(x))  # banker's rounding = round-half-even
    if mode in ("rz", "rzi"):
        return float(math.trunc(x))
    if mode in ("rm", "rmi"):
        return float(math.floor(x))
    if mode in ("rp", "rpi"):
        return float(math.ceil(x))
    raise EmulationError(f"rounding mode .{mode} is not supported")


def _cvt(v, st, dt, rnd, sat, M):
    if st in FLOAT_TYPES:
        x = _to_float(v, st)
    else:
        w = TYPE_BITS[st]
        x = v - (1 << w) if st.startswith("s") and (v >> (w - 1)) & 1 else v
    if dt in FLOAT_TYPES:
        if isinstance(x, int):
            x = float(np.float64(x)) if dt == "f64" else float(np.float32(x))
        if sat:
            x = 0.0 if math.isnan(x) else min(1.0, max(0.0, x))
        if st in FLOAT_TYPES and rnd in ("rni", "rzi", "rmi", "rpi") and math.isfinite(x):
            x = _round(x, rnd)
        if dt == "f32":
            return f32_to_bits(x) if math.isfinite(x) or math.isnan(x) else \
                f32_to_bits(float(np.float32(x)))
        if dt == "f64":
            return f64_to_bits(x)
        if dt == "f16":
            if abs(x) >= F16_OVERFLOW:  # infinity (numpy warns of the overflow)
                return 0xFC00 if x < 0 else 0x7C00
            return int(np.array(x, dtype=np.float16).view(np.uint16))
        if dt == "bf16":
            b = f32_to_bits(x)
            if math.isnan(x):
                return 0x7FFF
            return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
        raise EmulationError(f"conversion to .{dt} is not supported")
    # float -> int
    w = TYPE_BITS[dt]
    if math.isnan(x):
        return 0
    if math.isinf(x):
        xi = None
    else:
        xi = int(_round(x, rnd or "rz"))
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if dt.startswith("s") else (0, mask(w))
    if xi is None:
        xi = hi if x > 0 else lo
    return max(lo, min(hi, xi)) & mask(w)


def decode_cvta(d, inst):
    from .. import memory as mem
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
