"""atom and red: every operation, type, vector form, semantics, scope and state space of the PTX
ISA ("Parallel Synchronization and Communication Instructions: atom / red")::

    atom{.sem}{.scope}{.space}.op{.L2::cache_hint}.type        d, [a], b{, cache-policy}
    atom{.sem}{.scope}{.space}.cas.type                        d, [a], b, c
    atom{.sem}{.scope}{.space}.{cas,exch}.b128 / .cas.b16      d, [a], b{, c}
    atom{.sem}{.scope}{.space}.add.noftz.{f16,f16x2,bf16,bf16x2} d, [a], b
    atom{.sem}{.scope}{.global}.add.{v2,v4}.f32                {d..}, [a], {b..}       (sm_90)
    atom{.sem}{.scope}{.global}.{add,min,max}.noftz.{v2,v4,v8}.{f16,bf16} / {v2,v4}.{f16x2,bf16x2}
    red: the same without d and without .cas / .exch (the vector forms of red likewise)
    .space = .global, .shared{::cta, ::cluster}, or none (generic); .sem = .relaxed, .acquire,
    .release, .acq_rel; .scope = .cta, .cluster, .gpu, .sys

tile-sim runs one thread's instruction at a time, so each atom is atomic at every scope; the
semantics and scopes order nothing further here (the memory model is sequentially consistent).

The operations of each type are the ISA's table ("Atom Scalar Type Operations"): u32 add, inc, dec,
min, max; s32 add, min, max; u64 add, min, max; s64 min, max; b32 / b64 and, or, xor, exch, cas;
b16 cas; b128 exch, cas; f32 add{.noftz}; f64 add; f16, f16x2, bf16, bf16x2 add.noftz; and the
vector table (.f32: .v2/.v4 add; .f16/.bf16: .v2/.v4/.v8 add, min, max .noftz; .f16x2/.bf16x2:
.v2/.v4 add, min, max .noftz).

Arithmetic, per element: integers wrap; ``inc``: old >= b ? 0 : old + 1, ``dec``: old == 0 or
old > b ? b : old - 1 (unsigned); ``min``/``max`` signed or unsigned by type; float ``add`` rounds
to nearest even; ``add.f32`` without ``.noftz`` flushes subnormal inputs and results to
sign-preserving zero on global memory and keeps them on shared memory (the ISA's words; generic
addresses by where they point), everything else keeps subnormals; float ``min``/``max`` are min /
max: -0 below +0, the other operand when one is NaN.  Every access must be aligned to its full
size (the vector's, for a vector atom).
"""

from __future__ import annotations

import numpy as np

from ..codegen import mask
from ..errors import EmulationError
from .memory import _space, make_reader, make_writer

OPS = ("and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max")
#: element type -> (bits, kind): "u" unsigned, "s" signed, "b" bits, "f" float, "h" 16-bit float
#: in a 32-bit pair
TYPES = {"b16": (16, "b"), "b32": (32, "b"), "b64": (64, "b"), "b128": (128, "b"),
         "u32": (32, "u"), "u64": (64, "u"), "s32": (32, "s"), "s64": (64, "s"),
         "f32": (32, "f"), "f64": (64, "f"), "f16": (16, "f"), "bf16": (16, "f"),
         "f16x2": (32, "h"), "bf16x2": (32, "h")}
QUALS = {"relaxed", "acquire", "release", "acq_rel", "cta", "cluster", "gpu", "sys", "global",
         "shared", "shared::cta", "shared::cluster", "noftz", "L2::cache_hint", "v2", "v4", "v8"}


def _f32_ftz(b):
    return b & 0x80000000 if (b & 0x7F800000) == 0 else b


def _float_add(x, y, ty, ftz=False):
    """x + y of the bit patterns of ``ty``, rounded to nearest even (f32 flushed with ``ftz``)."""
    if ty == "f64":
        r = np.array([x], np.uint64).view(np.float64) + np.array([y], np.uint64).view(np.float64)
        return int(r.view(np.uint64)[0])
    if ty == "f32":
        if ftz:
            x, y = _f32_ftz(x), _f32_ftz(y)
        r = int((np.array([x], np.uint32).view(np.float32)
                 + np.array([y], np.uint32).view(np.float32)).view(np.uint32)[0])
        return _f32_ftz(r) if ftz else r
    if ty == "f16":
        with np.errstate(over="ignore"):
            s = (np.array([x], np.uint16).view(np.float16).astype(np.float32)
                 + np.array([y], np.uint16).view(np.float16).astype(np.float32)).astype(np.float16)
        return int(s.view(np.uint16)[0])
    # bf16: the f32 sum (exact inputs) rounded once more to bf16, nearest even (double rounding
    # is innocuous: 24 >= 2·8 + 2 bits)
    s = (np.array([x << 16], np.uint32).view(np.float32)
         + np.array([y << 16], np.uint32).view(np.float32)).view(np.uint32)
    v = int(s[0])
    if (v & 0x7FFFFFFF) > 0x7F800000:
        return 0x7FFF
    return ((v + 0x7FFF + ((v >> 16) & 1)) >> 16) & 0xFFFF


def _fkey(b, bits):
    sign = 1 << (bits - 1)
    return -(b & (sign - 1)) - 1 if b & sign else b


def _is_nan(b, bits, ty):
    if bits == 64:
        return (b & 0x7FFFFFFFFFFFFFFF) > 0x7FF0000000000000
    if bits == 32:
        return (b & 0x7FFFFFFF) > 0x7F800000
    return (b & 0x7FFF) > (0x7F80 if ty == "bf16" else 0x7C00)


def _element_op(op, ty, bits, kind, ftz=False):
    """f(old, b, c) -> new for one element."""
    m = mask(bits)
    if op == "exch":
        return lambda o, b, c: b
    if op == "cas":
        return lambda o, b, c: c if o == b else o
    if op in ("and", "or", "xor"):
        return {"and": lambda o, b, c: o & b, "or": lambda o, b, c: o | b,
                "xor": lambda o, b, c: o ^ b}[op]
    if op == "inc":
        return lambda o, b, c: 0 if o >= b else o + 1
    if op == "dec":
        return lambda o, b, c: b if (o == 0 or o > b) else o - 1
    if kind == "f":
        if op == "add":
            return lambda o, b, c: _float_add(o, b, ty, ftz)

        def mm(o, b, c):
            if _is_nan(o, bits, ty):
                return b
            if _is_nan(b, bits, ty):
                return o
            lo = _fkey(o, bits) <= _fkey(b, bits)
            return (o if lo else b) if op == "min" else (b if lo else o)
        return mm
    if op == "add":
        return lambda o, b, c: (o + b) & m
    sb = 1 << (bits - 1)
    key = (lambda v: (v ^ sb) - sb) if kind == "s" else (lambda v: v)
    if op == "min":
        return lambda o, b, c: o if key(o) <= key(b) else b
    return lambda o, b, c: o if key(o) >= key(b) else b


#: the ISA's table of scalar types and their operations
SCALAR_OPS = {"u32": ("add", "inc", "dec", "min", "max"), "s32": ("add", "min", "max"),
              "u64": ("add", "min", "max"), "s64": ("min", "max"),
              "b32": ("and", "or", "xor", "exch", "cas"), "b64": ("and", "or", "xor", "exch", "cas"),
              "b16": ("cas",), "b128": ("exch", "cas"), "f32": ("add",), "f64": ("add",),
              "f16": ("add",), "f16x2": ("add",), "bf16": ("add",), "bf16x2": ("add",)}
#: the vector table: type -> (vector lengths, operations)
VECTOR_OPS = {"f32": ((2, 4), ("add",)), "f16": ((2, 4, 8), ("add", "min", "max")),
              "bf16": ((2, 4, 8), ("add", "min", "max")), "f16x2": ((2, 4), ("add", "min", "max")),
              "bf16x2": ((2, 4), ("add", "min", "max"))}
_HALF = ("f16", "bf16", "f16x2", "bf16x2")


def _check_form(d, inst, op, ty, nvec, red):
    p = inst.parts
    extra = [q for q in p[1:] if q not in QUALS and q not in OPS and q not in TYPES]
    if extra:
        raise d.error(f"{p[0]}: unknown qualifier(s) {', '.join('.' + q for q in extra)}")
    noftz = "noftz" in p
    if nvec > 1:
        lens, ops = VECTOR_OPS.get(ty, ((), ()))
        if nvec not in lens or op not in ops:
            raise d.error(f"{p[0]}: no vector form .v{nvec}.{ty} of .{op} (PTX ISA's vector table)")
        if _space(inst) not in ("global", "generic"):
            raise d.error(f"{p[0]}: vector atomics are for .global (or generic addressing of it)")
    elif op not in SCALAR_OPS[ty]:
        raise d.error(f"{p[0]}.{op}.{ty} is not in the PTX ISA's table of scalar types and "
                      f"operations (.{ty}: .{', .'.join(SCALAR_OPS[ty])})")
    if ty in _HALF and not noftz:
        raise d.error(f"{p[0]}.{op}.{ty}: the 16-bit float forms require .noftz")
    if noftz and ty not in _HALF + ("f32",):
        raise d.error(f"{p[0]}: .noftz is for the .f16 / .bf16 / .f32 forms")
    if red and op in ("cas", "exch"):
        raise d.error(f"red has no .{op}")
    if red and any(q in p for q in ("acquire", "acq_rel")):
        raise d.error("red takes .relaxed or .release")


def decode_atom(d, inst, red=False):
    p = inst.parts
    op = next((q for q in p[1:] if q in OPS), None)
    ty = p[-1]
    if op is None or ty not in TYPES:
        raise d.error(f"{p[0]}: needs an operation .{'/.'.join(OPS)} and a type")
    nvec = next((int(q[1]) for q in p[1:] if q in ("v2", "v4", "v8")), 1)
    _check_form(d, inst, op, ty, nvec, red)
    space = _space(inst)
    bits, kind = TYPES[ty]
    ops = list(d.operands(2, 3) if red else d.operands(3, 5))
    if red:
        ops = [("sink",)] + ops
    dst, addr, b = ops[0], ops[1], ops[2]
    c = ops[3] if op == "cas" and len(ops) > 3 else None
    if op == "cas" and c is None:
        raise d.error(f"{p[0]}.cas needs d, [a], b, c")
    halves = kind == "h"  # a packed pair: two 16-bit elements per 32-bit value
    ebits, ety = (16, ty[:-2]) if halves else (bits, ty)
    fn = _element_op(op, ety, ebits, "f" if halves else kind)
    # add.f32 without .noftz flushes on global memory, not on shared memory (PTX ISA)
    ftz_fn = _element_op(op, ety, ebits, kind, True) \
        if ty == "f32" and op == "add" and "noftz" not in p and space != "shared" \
        and space != "cluster" else None
    M = d.M
    width = bits * nvec  # bytes of memory touched
    n = width // 8

    def regs(o, what):
        rs = o[1] if o[0] == "vec" else [o]
        if len(rs) != nvec:
            raise d.error(f"{p[0]}: {what} takes {nvec} register(s), got {len(rs)}")
        return rs
    rb = bits if bits >= 16 else 16
    fimm = ty in ("f32", "f64")  # an integer literal as a float operand is its value
    get_b = d.compile([f"return ({', '.join(d.src(o, rb, ftype=fimm) for o in regs(b, 'b'))},)"])
    get_c = d.compile([f"return {d.src(c, rb)}"]) if c is not None else None
    dslots = [] if dst[0] == "sink" else [None if o[0] == "sink" else d.slot(o)
                                           for o in regs(dst, "d")]
    ae = d.compile([f"return {d.addr_expr(addr)[0]}"])
    rd, wr = make_reader(d.M, space), make_writer(d.M, space)
    em = mask(bits)

    def one(fn, old, bv, cv):
        if not halves:
            return fn(old, bv, cv) & em
        lo = fn(old & 0xFFFF, bv & 0xFFFF, None)
        hi = fn(old >> 16, bv >> 16, None)
        return (hi << 16) | lo

    def f(t):
        a = ae(t)
        if a % n:
            raise EmulationError(f"misaligned {p[0]} of {n} bytes at address 0x{a:x}")
        op_fn = fn if ftz_fn is None or (space == "generic" and M.classify_generic(a) != "global") \
            else ftz_fn
        raw = rd(t, a, n)
        bs = get_b(t)
        cv = get_c(t) if get_c is not None else None
        olds = [(raw >> (bits * i)) & em for i in range(nvec)]
        new = 0
        for i, (o, bv) in enumerate(zip(olds, bs)):
            new |= one(op_fn, o, bv & em, cv) << (bits * i)
        wr(t, a, n, new)
        r = t.r
        for s, o in zip(dslots, olds):
            if s is not None:
                r[s] = o
    return f


def decode_red(d, inst):
    return decode_atom(d, inst, red=True)
