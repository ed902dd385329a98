"""multimem.ld_reduce, multimem.st, multimem.red: accesses to a multicast object (PTX ISA
"Parallel Synchronization and Communication Instructions: multimem")::

    multimem.ld_reduce{.sem}{.scope}{.global}.op{.acc::f32|.acc::f16}{.vec}.type  d, [a]
    multimem.st{.sem}{.scope}{.global}{.vec}.type                                  [a], b
    multimem.red{.sem}{.scope}{.global}.op{.vec}.type                              [a], b

A multimem address names one location in every memory bound to a multicast object (on a GPU, one
per device).  tile-sim runs one device, so a multicast object is a set of global allocations given
at launch (``run_ptx(..., multicast=[(i, j, ...)])``: the arguments i, j, ... are its replicas, and
the addresses of argument i are its multimem addresses); any other global address is a multicast
object of one replica, itself (docs/emulator.md §12.9, W13-W14).

``ld_reduce`` reads the element of every replica and reduces them in replica order; ``st`` writes
every replica; ``red`` reduces ``b`` into every replica, as ``red.global`` would.  Integers: add
wraps, min/max by the type's signedness, and/or/xor on bits.  Floats: ``.add`` accumulates in the
accumulation precision (``.acc::f32``, ``.acc::f16``; without one, the type's own, f16 for the
8-bit types), each step rounded to nearest even, and the sum rounds once to the type (an 8-bit
overflow becomes its NaN or infinity); ``.min`` / ``.max`` are exact, -0 below +0, a NaN loses to a
number.  One replica: the element as stored.
"""

from __future__ import annotations

import math

from ..errors import EmulationError
from ..fpformat import BF16, E4M3, E5M2, F16, F32, F64, RN, decode, round_float
from .atomics import _element_op

_SEM = {"weak", "relaxed", "acquire", "release", "cta", "cluster", "gpu", "sys", "global"}
_INT = {"b32": (32, "b"), "b64": (64, "b"), "u32": (32, "u"), "u64": (64, "u"),
        "s32": (32, "s"), "s64": (64, "s")}
#: float type -> (element format, elements per register)
_FLOAT = {"f16": (F16, 1), "f16x2": (F16, 2), "bf16": (BF16, 1), "bf16x2": (BF16, 2),
          "f32": (F32, 1), "f64": (F64, 1), "e5m2": (E5M2, 1), "e5m2x2": (E5M2, 2),
          "e5m2x4": (E5M2, 4), "e4m3": (E4M3, 1), "e4m3x2": (E4M3, 2), "e4m3x4": (E4M3, 4)}
_ACC = {"acc::f32": F32, "acc::f16": F16}
_IOPS = {"add": "us", "min": "us", "max": "us", "and": "b", "or": "b", "xor": "b"}


def replicas(M, a: int, n: int) -> list[int]:
    """The addresses of the ``n`` bytes at multimem address ``a`` in every replica."""
    for base, size, bases in getattr(M, "multicast", ()):
        if base <= a and a + n <= base + size:
            return [b + (a - base) for b in bases]
    return [a]


def bind_multicast(M, args, groups):
    """Record the multicast objects of a launch: each group is argument indices of arrays of one
    size, bound to global allocations (``M.bound_arrays`` keeps them in argument order)."""
    import numpy as np
    base_of = {}
    k = 0
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            base_of[i] = (M.bound_arrays[k][1], a.nbytes)
            k += 1
    M.multicast = []
    for g in groups or ():
        g = tuple(g)
        if not g or any(i not in base_of for i in g):
            raise EmulationError(f"multicast {g}: every replica must be an array argument")
        if len({base_of[i][1] for i in g}) != 1:
            raise EmulationError(f"multicast {g}: the replicas differ in size")
        M.multicast.append((base_of[g[0]][0], base_of[g[0]][1], [base_of[i][0] for i in g]))


def _form(d, inst):
    p = inst.parts
    kind = p[1]
    ty = p[-1]
    op = next((q for q in p[2:-1] if q in _IOPS), None)
    acc = next((q for q in p[2:-1] if q in _ACC), None)
    nvec = next((int(q[1]) for q in p[2:-1] if q in ("v2", "v4", "v8")), 1)
    extra = [q for q in p[2:-1] if q not in _SEM and q != op and q != acc
             and q not in ("v2", "v4", "v8")]
    if kind not in ("ld_reduce", "st", "red") or extra:
        raise d.error(f"multimem: {'qualifier(s) ' + ', '.join('.' + q for q in extra) if extra else 'no form .' + kind}")
    if (kind == "st") != (op is None):
        raise d.error(f"multimem.{kind}: {'no operation on a store' if op else 'needs an operation'}")
    if "weak" in p and kind == "red":
        raise d.error("multimem.red has no .weak")
    if ty in _INT:
        if nvec > 1 or acc or (op and _INT[ty][1] not in _IOPS[op]):
            raise d.error(f"multimem.{kind}: no integer form "
                          f"{'.' + op if op else ''}{'.v%d' % nvec if nvec > 1 else ''}.{ty}")
        return kind, op, acc, nvec, ty
    if ty not in _FLOAT:
        raise d.error(f"multimem: no type .{ty}")
    fmt, per = _FLOAT[ty]
    width = fmt.bits * per * nvec
    if op not in (None, "add", "min", "max") or (kind == "red" and op != "add") \
            or (kind == "red" and fmt.bits == 8):
        raise d.error(f"multimem.{kind}: no float form .{op}.{ty}")
    if width not in (32, 64, 128) or (ty == "f64" and nvec > 1):
        raise d.error(f"multimem: .v{nvec}.{ty} is {width} bits (32, 64 or 128; f64 unvectored)")
    if acc and (op != "add" or (acc == "acc::f32") != (fmt in (F16, BF16))):
        raise d.error(f"multimem: .{acc} is not a precision of .{op}.{ty}")
    return kind, op, acc, nvec, ty


def _float_reduce(op, fmt, acc):
    """f(list of element codes) -> code."""
    def fadd(codes):
        s = decode(codes[0], fmt)
        for c in codes[1:]:
            s = decode(round_float(s + decode(c, fmt), acc, RN), acc)
        return round_float(s, fmt, RN)

    def fminmax(codes):
        best = None
        for c in codes:
            v = decode(c, fmt)
            if math.isnan(v):
                continue
            if best is None:
                best = (v, c)
                continue
            key = (v, math.copysign(1.0, v))
            bkey = (best[0], math.copysign(1.0, best[0]))
            if (key < bkey) == (op == "min") and key != bkey:
                best = (v, c)
        return best[1] if best is not None else fmt.nan
    return fadd if op == "add" else fminmax


def _combine(kind, op, acc, ty):
    """f(list of register values, one per replica) -> register value, or None for a store."""
    if kind == "st":
        return None
    if ty in _INT:
        bits, k = _INT[ty]
        el = _element_op(op, ty, bits, k)
        m = (1 << bits) - 1

        def ired(vals):
            v = vals[0]
            for x in vals[1:]:
                v = el(v, x, None) & m
            return v
        return ired
    fmt, per = _FLOAT[ty]
    accf = _ACC[acc] if acc else (F16 if fmt.bits == 8 else fmt)
    red = _float_reduce(op, fmt, accf)
    eb, em = fmt.bits, (1 << fmt.bits) - 1

    def fred(vals):
        out = 0
        for i in range(per):
            out |= red([(v >> (eb * i)) & em for v in vals]) << (eb * i)
        return out
    return fred


def decode_multimem(d, inst):
    kind, op, acc, nvec, ty = _form(d, inst)
    rbits = _INT[ty][0] if ty in _INT else _FLOAT[ty][0].bits * _FLOAT[ty][1]
    if kind == "ld_reduce":
        dst, addr = d.operands(2)
        regs = dst[1] if dst[0] == "vec" else [dst]
    else:
        addr, src = d.operands(2)
        regs = src[1] if src[0] == "vec" else [src]
    if len(regs) != nvec:
        raise d.error(f"multimem.{kind}: .v{nvec} takes {nvec} register(s), got {len(regs)}")
    n = rbits * nvec // 8
    ae = d.compile([f"return {d.addr_expr(addr)[0]}"])
    comb = _combine(kind, op, acc, ty)
    M, m = d.M, (1 << rbits) - 1
    fimm = ty in ("f32", "f64")
    if kind != "ld_reduce":
        get = d.compile([f"return ({', '.join(d.src(o, rbits, ftype=fimm) for o in regs)},)"])
    else:
        slots = [d.slot(o) for o in regs]

    def at(t):
        a = ae(t)
        if a % n:
            raise EmulationError(f"misaligned multimem.{kind} of {n} bytes at address 0x{a:x}")
        if M.classify_generic(a) != "global":
            raise EmulationError(f"multimem.{kind}: address 0x{a:x} is not in global memory")
        return replicas(M, a, n)

    def split(raw):
        return [(raw >> (rbits * i)) & m for i in range(nvec)]

    def join(vs):
        return sum((v & m) << (rbits * i) for i, v in enumerate(vs))

    if kind == "ld_reduce":
        def f(t):
            reps = at(t)
            per = [split(M.gmem.read(r, n)) for r in reps]
            res = [per[0][i] if len(per) == 1 else comb([p[i] for p in per]) for i in range(nvec)]
            r = t.r
            for s, v in zip(slots, res):
                r[s] = v
        return f

    def g(t):
        reps = at(t)
        bs = [x & m for x in get(t)]
        for rep in reps:
            if comb is None:
                M.gmem.write(rep, n, join(bs))
            else:
                old = split(M.gmem.read(rep, n))
                M.gmem.write(rep, n, join([comb([o, b]) for o, b in zip(old, bs)]))
        M.progress += 1
    return g
