"""atom and red on tile-sim: every row of the ISA coverage table registered to this test (every
operation, type, vector form, semantics, scope and state space), one warp of lanes each with its
own 16-byte word of memory, against a reference written here from the PTX ISA's definitions
("Parallel Synchronization and Communication Instructions: atom / red"):

* atom returns the old value (split over its destination registers little-endian); the memory
  holds op(old, b{, c}) over the access's bytes and the bytes past them are untouched;
* integers wrap; inc: old >= b ? 0 : old + 1; dec: old == 0 or old > b ? b : old - 1; cas: c
  where old == b; min / max signed or unsigned by type;
* float add: the exact sum rounded to nearest even (an exact Fraction reference, isa_harness);
  add.f32 without .noftz flushes subnormal inputs and results to sign-preserving zero on global
  memory (generic addresses by where they point) and keeps them on shared memory; every other
  float add keeps subnormals.  A NaN result is checked as a NaN (the ISA names no payload);
* float min / max (.noftz, 16-bit): -0 below +0; one NaN operand gives the other operand; two
  give a NaN.

Generic rows point even lanes at global memory and odd lanes at shared memory.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

import tiers
from isa_harness import BITS, isa_rows, random_codes, ref_round, specials, value
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_atomics.py::"
LANES = 32
NIN, NOUT = 8, 6  # input slots (2 of memory, 6 of sources), output slots (2 of memory, 4 of d)
SPACES = ("shared::cluster", "shared::cta", "shared", "global")
REGW = (("%rd", 64), ("%q", 128), ("%h", 16), ("%r", 32))

HEAD = f""".version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pg, .param .u64 pin, .param .u64 pout)
{{
  .reg .pred %p<8>; .reg .b8 %c<8>; .reg .b16 %h<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
  .reg .b128 %q<8>; .reg .b64 %gb<4>; .reg .b64 %gt<2>; .reg .b32 %tid; .reg .pred %podd;
  .shared .align 16 .b8 sbuf[{LANES * 16}];
  mov.u32 %tid, %tid.x;
  ld.param.u64 %rd10, [pg]; cvta.to.global.u64 %rd10, %rd10;
  ld.param.u64 %rd11, [pin]; cvta.to.global.u64 %rd11, %rd11;
  ld.param.u64 %rd12, [pout]; cvta.to.global.u64 %rd12, %rd12;
  mul.wide.u32 %rd13, %tid, 16;
  add.u64 %gb0, %rd10, %rd13;
  mov.u64 %gb1, sbuf; add.u64 %gb1, %gb1, %rd13;
  cvta.shared.u64 %gb2, %gb1;
  and.b32 %r15, %tid, 1; setp.ne.u32 %podd, %r15, 0;
  selp.b64 %gb3, %gb2, %gb0, %podd;
  mul.wide.u32 %rd13, %tid, 8; add.u64 %rd11, %rd11, %rd13; add.u64 %rd12, %rd12, %rd13;
"""
BASE = {"global": "%gb0", "shared": "%gb1", "shared::cta": "%gb1", "shared::cluster": "%gb1",
        "generic": "%gb3"}
ACC = {"global": ".global", "shared": ".shared", "shared::cta": ".shared",
       "shared::cluster": ".shared", "generic": ""}


def _space(form):
    for s in SPACES:
        if f".{s}." in f".{form}.":
            return s
    return "generic"


def split(text):
    """(opcode, operands) of a row's text, a braced vector being one operand."""
    op, _, rest = text.rstrip(";").partition(" ")
    return op, [o.strip() for o in re.findall(r"\{[^}]*\}|\[[^\]]*\]|[^,\s][^,]*", rest)]


def _regw(r):
    return next(w for k, w in REGW if r.startswith(k))


def _regs(op):
    op = op.strip()
    return [x.strip() for x in op[1:-1].split(",")] if op.startswith("{") else [op]


def _parts(form):
    """(op, element type, element bits, 16-bit halves packed?) of a form."""
    q = form.split(".")
    op = next(x for x in q if x in ("add", "min", "max", "and", "or", "xor", "exch", "cas", "inc",
                                    "dec"))
    ty = q[-1]
    if ty.endswith("x2"):
        return op, ty[:-2], 16, True
    return op, ty, int(re.sub(r"\D", "", ty)), False


def _slot(k, lane, row_slots):
    return (row_slots + k) * LANES * 8


def _kernel(rows):
    body = []
    for i, r in enumerate(rows):
        space = _space(r["form"])
        base, acc = BASE[space], ACC[space]
        op, ops = split(r["text"])
        red = r["form"].startswith("red")
        srcs = ops[1:] if red else ops[2:]
        si, so = i * NIN, i * NOUT
        body += [f"  mov.u64 %rd9, {base};"]
        for k in range(2):  # the lane's initial memory
            body += [f"  ld.global.b64 %gt0, [%rd11+{_slot(k, 0, si)}];",
                     f"  st{acc}.b64 [{base}+{8 * k}], %gt0;"]
        slot = 2
        for o in srcs:
            for reg in _regs(o):
                w = _regw(reg)
                body.append(f"  ld.global.b64 %gt0, [%rd11+{_slot(slot, 0, si)}];")
                if w == 128:
                    body += [f"  ld.global.b64 %gt1, [%rd11+{_slot(slot + 1, 0, si)}];",
                             f"  mov.b128 {reg}, {{%gt0, %gt1}};"]
                    slot += 2
                    continue
                body.append({16: f"  cvt.u16.u64 {reg}, %gt0;", 32: f"  cvt.u32.u64 {reg}, %gt0;",
                             64: f"  mov.b64 {reg}, %gt0;"}[w])
                slot += 1
        body.append(f"  {r['text']}")
        slot = 2
        if not red:
            for reg in _regs(ops[0]):
                w = _regw(reg)
                if w == 128:
                    body += [f"  mov.b128 {{%gt0, %gt1}}, {reg};",
                             f"  st.global.b64 [%rd12+{_slot(slot, 0, so)}], %gt0;",
                             f"  st.global.b64 [%rd12+{_slot(slot + 1, 0, so)}], %gt1;"]
                    slot += 2
                    continue
                body += [{16: f"  cvt.u64.u16 %gt0, {reg};", 32: f"  cvt.u64.u32 %gt0, {reg};",
                          64: f"  mov.b64 %gt0, {reg};"}[w],
                         f"  st.global.b64 [%rd12+{_slot(slot, 0, so)}], %gt0;"]
                slot += 1
        for k in range(2):  # the memory afterwards
            body += [f"  ld{acc}.b64 %gt0, [{base}+{8 * k}];",
                     f"  st.global.b64 [%rd12+{_slot(k, 0, so)}], %gt0;"]
    return HEAD + "\n".join(body) + "\n  ret;\n}\n"


# ------------------------------------------------------------------------------ the reference
NAN = object()  # "some NaN": the ISA names no payload for an atom's NaN result


def _fmt(ty):
    return {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64"}.get(ty)


def _is_nan(code, fmt):
    v = value(code, fmt)
    return v != v


def _flush(code, fmt):
    e = {"f32": 23}[fmt]
    w = BITS[fmt]
    return code & (1 << (w - 1)) if (code >> e) & ((1 << (w - 1 - e)) - 1) == 0 else code


def _fadd(x, y, fmt, ftz):
    if ftz:
        x, y = _flush(x, fmt), _flush(y, fmt)
    vx, vy = value(x, fmt), value(y, fmt)
    if vx != vx or vy != vy:
        return NAN
    sign = 1 << (BITS[fmt] - 1)
    if abs(vx) == float("inf") or abs(vy) == float("inf"):
        if abs(vx) == abs(vy) == float("inf") and (x ^ y) & sign:
            return NAN
        return x if abs(vx) == float("inf") else y
    s = Fraction(vx) + Fraction(vy)
    if s == 0:  # round to nearest: -0 only from -0 + -0
        return sign if (x & sign and y & sign) else 0
    r = ref_round(s, fmt, "rn")
    return _flush(r, fmt) if ftz else r


def _fminmax(x, y, fmt, op):
    nx, ny = _is_nan(x, fmt), _is_nan(y, fmt)
    if nx and ny:
        return NAN
    if nx or ny:
        return y if nx else x
    vx, vy = value(x, fmt), value(y, fmt)
    if vx == vy:  # equal values: only +-0 differ in code; -0 is below +0
        sign = 1 << (BITS[fmt] - 1)
        lo, hi = (x, y) if x & sign else (y, x)
        return lo if op == "min" else hi
    return (x if vx < vy else y) if op == "min" else (x if vx > vy else y)


def _int_op(op, ty, bits, o, b, c):
    m = (1 << bits) - 1
    sv = (lambda v: v - (1 << bits) if v >> (bits - 1) else v) if ty[0] == "s" else (lambda v: v)
    return {"add": lambda: (o + b) & m, "and": lambda: o & b, "or": lambda: o | b,
            "xor": lambda: o ^ b, "exch": lambda: b, "cas": lambda: c if o == b else o,
            "inc": lambda: 0 if o >= b else o + 1,
            "dec": lambda: b if o == 0 or o > b else o - 1,
            "min": lambda: o if sv(o) <= sv(b) else b,
            "max": lambda: o if sv(o) >= sv(b) else b}[op]()


def _reference(form, old, b, c, on_global):
    """(memory bytes after, list of elements or NAN) over the access's bytes."""
    op, ty, bits, _ = _parts(form)
    fmt = _fmt(ty)
    n = len(b)
    ftz = ty == "f32" and op == "add" and ".noftz" not in form and on_global
    eb = bits // 8
    out = []
    for k in range(0, n, eb):
        o = int.from_bytes(old[k:k + eb], "little")
        bv = int.from_bytes(b[k:k + eb], "little")
        cv = int.from_bytes(c[k:k + eb], "little") if c else 0
        if fmt is None:
            out.append(_int_op(op, ty, bits, o, bv, cv))
        elif op == "add":
            out.append(_fadd(o, bv, fmt, ftz))
        else:
            out.append(_fminmax(o, bv, fmt, op))
    return out


# ------------------------------------------------------------------------------ the inputs
def _elements(rng, form, n):
    """n element codes worth testing for the form's operation and type."""
    op, ty, bits, _ = _parts(form)
    fmt = _fmt(ty)
    if fmt is not None:
        pool = np.concatenate([np.array(specials(fmt), np.uint64), random_codes(rng, fmt, 64)])
        if fmt == "f32":  # subnormals, for the flush of .f32 adds on global memory
            pool = np.concatenate([pool, rng.integers(1, 1 << 23, 16).astype(np.uint64) |
                                   (rng.integers(0, 2, 16).astype(np.uint64) << np.uint64(31))])
        return [int(x) for x in rng.choice(pool, n)]
    if op in ("inc", "dec"):
        return [int(x) for x in rng.integers(0, 6, n)]
    return [int.from_bytes(rng.bytes(bits // 8), "little") for _ in range(n)]


def _operands(rng, r):
    """Per lane: (initial 16 bytes of memory, b bytes, c bytes or None)."""
    form = r["form"]
    op, ty, bits, _ = _parts(form)
    ops = split(r["text"])[1]
    red = form.startswith("red")
    breg = _regs(ops[1] if red else ops[2])
    n = sum(_regw(x) for x in breg) // 8
    eb = bits // 8
    lanes = []
    for lane in range(LANES):
        old = _elements(rng, form, n // eb)
        bv = _elements(rng, form, n // eb)
        if op == "cas" and lane % 2 == 0:
            bv = list(old)  # half the lanes compare equal
        if op in ("min", "max") and lane % 4 == 1:
            bv = [x ^ (1 << (bits - 1)) if x in (0, 1 << (bits - 1)) else x for x in old]
        mem = b"".join(x.to_bytes(eb, "little") for x in old) + rng.bytes(16 - n)
        bb = b"".join(x.to_bytes(eb, "little") for x in bv)
        cb = rng.bytes(n) if op == "cas" else None
        lanes.append((mem, bb, cb))
    return lanes


ROWS = isa_rows(T + "test_atomic_rows")
CHUNKS = 8


@pytest.mark.parametrize("chunk", tiers.chunks(CHUNKS, fast=(0,)))  # (1 in make test)
def test_atomic_rows(chunk):
    """Each atom form returns the old value and leaves op(old, b) in memory; each red form leaves
    op(old, b); bytes past the access are untouched."""
    rows = ROWS[chunk::CHUNKS]
    assert rows
    rng = np.random.default_rng(7100 + chunk)
    inp = np.zeros((len(rows) * NIN, LANES), np.uint64)
    lanes_of = []
    for i, r in enumerate(rows):
        lanes = _operands(rng, r)
        lanes_of.append(lanes)
        ops = split(r["text"])[1]
        red = r["form"].startswith("red")
        srcs = ops[1:] if red else ops[2:]
        for lane, (mem, bb, cb) in enumerate(lanes):
            inp[i * NIN, lane] = int.from_bytes(mem[:8], "little")
            inp[i * NIN + 1, lane] = int.from_bytes(mem[8:], "little")
            slot = 2
            for o, data in zip(srcs, (bb, cb)):
                off = 0
                for reg in _regs(o):
                    w = _regw(reg) // 8
                    v = int.from_bytes(data[off:off + w], "little")
                    for h in range(max(1, w // 8)):
                        inp[i * NIN + slot, lane] = (v >> (64 * h)) & ((1 << 64) - 1)
                        slot += 1
                    off += w
    out = np.zeros((len(rows) * NOUT, LANES), np.uint64)
    g = np.zeros(LANES * 2, np.uint64)
    run_ptx(_kernel(rows), "k", [g, inp, out], block=(LANES, 1, 1), workers=1)
    bad = []
    for i, r in enumerate(rows):
        form = r["form"]
        op, ty, bits, _ = _parts(form)
        fmt = _fmt(ty)
        eb = bits // 8
        ops = split(r["text"])[1]
        red = form.startswith("red")
        space = _space(form)
        for lane, (mem, bb, cb) in enumerate(lanes_of[i]):
            on_global = space == "global" or (space == "generic" and lane % 2 == 0)
            n = len(bb)
            want = _reference(form, mem, bb, cb, on_global)
            got_mem = b"".join(int(out[i * NOUT + k, lane]).to_bytes(8, "little") for k in (0, 1))
            if got_mem[n:] != mem[n:]:
                bad.append(f"{r['text']} lane {lane}: bytes past the access changed")
            for k, w in enumerate(want):
                g_e = int.from_bytes(got_mem[k * eb:(k + 1) * eb], "little")
                ok = _is_nan(g_e, fmt) if w is NAN else g_e == w
                if not ok:
                    bad.append(f"{r['text']} lane {lane} element {k}: memory {g_e:#x} != "
                               f"{'NaN' if w is NAN else hex(w)} (old "
                               f"{int.from_bytes(mem[k * eb:(k + 1) * eb], 'little'):#x}, b "
                               f"{int.from_bytes(bb[k * eb:(k + 1) * eb], 'little'):#x})")
            if red:
                continue
            got_d = b"".join(
                (int(out[i * NOUT + 2 + j, lane]) & ((1 << _regw(reg)) - 1) if _regw(reg) < 128
                 else int(out[i * NOUT + 2, lane]) | int(out[i * NOUT + 3, lane]) << 64)
                .to_bytes(_regw(reg) // 8, "little")
                for j, reg in enumerate(_regs(ops[0])))
            if got_d != mem[:n]:
                bad.append(f"{r['text']} lane {lane}: returned {got_d.hex()} != old {mem[:n].hex()}")
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:16])
