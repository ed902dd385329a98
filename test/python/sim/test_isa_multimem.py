"""multimem.ld_reduce / st / red on tile-sim: every row of the ISA coverage table registered to this
test, on a multicast object of three replicas (and of one, the default), against a reference built
here with numpy / ml_dtypes: ld_reduce reduces the three replicas' elements in replica order (float
.add in the accumulation precision, each step rounded to nearest even, then once to the type), st
writes every replica, red reduces its operand into every replica (handlers/multimem.py)."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_multimem.py::"
LANES = 4
SPAN = 16  # bytes per lane and row
NSLOT = 8
REGW = {"%h": 16, "%r": 32, "%rd": 64}
DT = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
      "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
ROWS = isa_rows(T + "test_multimem_rows")


def split(text):
    """opcode, top-level operands (a brace vector is one operand)."""
    op, _, rest = text.rstrip(";").partition(" ")
    return op, [o.strip() for o in re.findall(r"\{[^}]*\}|\[[^\]]*\]|[^,\s][^,]*", rest)]


def _regw(reg):
    return next(w for k, w in sorted(REGW.items(), key=lambda kv: -len(kv[0])) if reg.startswith(k))


def _regs(op):
    op = op.strip()
    return [x.strip() for x in op[1:-1].split(",")] if op.startswith("{") else [op]


def _kernel(rows):
    body = []
    for i, r in enumerate(rows):
        text = r["text"]
        _, ops = split(text)
        body += [f"  add.u64 %rd9, %rd10, {i * LANES * SPAN};"]
        if r["form"].startswith("multimem.ld_reduce"):
            body.append(f"  {text}")
            for k, reg in enumerate(_regs(ops[0])):
                w = _regw(reg)
                cv = f"mov.b64 %rd14, {reg};" if w == 64 else f"cvt.u64.u{w} %rd14, {reg};"
                body += [f"  {cv}", f"  st.global.b64 [%rd12+{(i * NSLOT + k) * LANES * 8}], %rd14;"]
        else:
            for k, reg in enumerate(_regs(ops[1])):
                w = _regw(reg)
                cv = f"mov.b64 {reg}, %rd14;" if w == 64 else f"cvt.u{w}.u64 {reg}, %rd14;"
                body += [f"  ld.global.b64 %rd14, [%rd11+{(i * NSLOT + k) * LANES * 8}];", f"  {cv}"]
            body.append(f"  {text}")
    return f""".version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pin, .param .u64 pout)
{{
  .reg .pred %p<8>; .reg .b16 %h<10>; .reg .b32 %r<10>; .reg .b64 %rd<16>; .reg .b32 %lid;
  mov.u32 %lid, %tid.x;
  ld.param.u64 %rd10, [pa]; ld.param.u64 %rd11, [pin]; ld.param.u64 %rd12, [pout];
  mul.wide.u32 %rd13, %lid, {SPAN}; add.u64 %rd10, %rd10, %rd13;
  mul.wide.u32 %rd13, %lid, 8; add.u64 %rd11, %rd11, %rd13; add.u64 %rd12, %rd12, %rd13;
{chr(10).join(body)}
  ret;
}}
"""


def _parse(form):
    p = form.split(".")
    ty = p[-1]
    op = next((q for q in p if q in ("add", "min", "max", "and", "or", "xor")), None)
    acc = next((q[5:] for q in p if q.startswith("acc::")), None)
    nvec = next((int(q[1]) for q in p if q in ("v2", "v4", "v8")), 1)
    return p[1], op, acc, nvec, ty


def _elem(ty):
    m = re.fullmatch(r"(f16|bf16|e4m3|e5m2)x(\d)", ty)
    if m:
        return m.group(1), int(m.group(2))
    return ty, 1


def _ref_float(op, acc, et, codes):
    """codes: element codes of the replicas (or [old, b] for red) -> the result code."""
    bits = np.dtype(DT[et]).itemsize * 8
    xs = [np.array([c], UINT[bits]).view(DT[et])[0] for c in codes]
    if op == "add":
        a = DT[acc or ("f16" if bits == 8 else et)]
        s = a(xs[0])
        for x in xs[1:]:
            s = np.array([s], a)[0] + np.array([x], DT[et]).astype(a)[0]
            s = np.array([s]).astype(a)[0]
        return int(np.array([s]).astype(DT[et]).view(UINT[bits])[0]), bool(np.isnan(np.float64(s)))
    vals = [(float(x), c) for x, c in zip(xs, codes) if not np.isnan(float(x))]
    if not vals:
        return None, True
    keyf = (lambda v: (v[0], np.copysign(1.0, v[0])))
    best = min(vals, key=keyf) if op == "min" else max(vals, key=keyf)
    return best[1], False


def _ref_int(op, ty, vals):
    bits = int(ty[1:])
    m = (1 << bits) - 1

    def sx(v):
        return v - (1 << bits) if ty[0] == "s" and v >> (bits - 1) else v
    out = vals[0]
    for v in vals[1:]:
        out = {"add": lambda a, b: (a + b) & m, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
               "xor": lambda a, b: a ^ b, "min": lambda a, b: a if sx(a) <= sx(b) else b,
               "max": lambda a, b: a if sx(a) >= sx(b) else b}[op](out, v)
    return out


def _reduce(op, acc, ty, vals, rbits):
    """Register values -> register value, element by element; (value, NaN mask of elements)."""
    if re.fullmatch(r"[bus](32|64)", ty):
        return _ref_int(op, ty, vals), 0
    et, per = _elem(ty)
    eb = rbits // per
    out, nanmask = 0, 0
    for i in range(per):
        code, isnan = _ref_float(op, acc, et, [(v >> (eb * i)) & ((1 << eb) - 1) for v in vals])
        if isnan:
            nanmask |= ((1 << eb) - 1) << (eb * i)
        else:
            out |= code << (eb * i)
    return out, nanmask


def _is_nan_bits(v, nanmask, et, eb):
    """Every element under the mask is a NaN of format ``et``."""
    for i in range(0, 64, eb):
        if (nanmask >> i) & 1:
            c = (v >> i) & ((1 << eb) - 1)
            if not np.isnan(float(np.array([c], UINT[eb]).view(DT[et])[0])):
                return False
    return True


def _values(rng, ty, shape):
    """Random register bits; float elements drawn mostly finite and of comparable magnitude, so
    that sums round (and fp8 sums sometimes overflow)."""
    raw = rng.integers(0, 1 << 63, shape, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    if re.fullmatch(r"[bus](32|64)", ty):
        return raw
    et, per = _elem(ty)
    eb = np.dtype(DT[et]).itemsize * 8
    f = (rng.standard_normal(shape + (64 // eb,)) * 3.0).astype(np.float64)
    codes = f.astype(DT[et]).view(UINT[eb])
    return codes.view(np.uint64).reshape(shape)


@pytest.mark.parametrize("nrep", [3, 1])
@pytest.mark.parametrize("chunk", range(2))
def test_multimem_rows(chunk, nrep, assemble):
    rows = ROWS[chunk::2]
    assert rows
    if nrep == 3:
        assemble(_kernel(rows))
    rng = np.random.default_rng(4100 + chunk)
    nb = len(rows) * LANES * SPAN
    reps = [np.zeros(nb // 8, np.uint64) for _ in range(3)]
    inp = np.zeros((len(rows) * NSLOT, LANES), np.uint64)
    for i, r in enumerate(rows):
        ty = r["form"].split(".")[-1]
        for rep in reps:
            rep[i * LANES * 2:(i + 1) * LANES * 2] = _values(rng, ty, (LANES * 2,))
        inp[i * NSLOT:(i + 1) * NSLOT] = _values(rng, ty, (NSLOT, LANES))
    before = [x.copy() for x in reps]
    out = np.zeros((len(rows) * NSLOT, LANES), np.uint64)
    run_ptx(_kernel(rows), "k", [reps[0], reps[1], reps[2], inp, out], block=(LANES, 1, 1),
            workers=1, multicast=[(0, 1, 2)] if nrep == 3 else None)
    used = reps[:nrep]
    bad = []
    for i, r in enumerate(rows):
        kind, op, acc, nvec, ty = _parse(r["form"])
        _, ops = split(r["text"])
        rbits = _regw(_regs(ops[0] if kind == "ld_reduce" else ops[1])[0])
        et, per = _elem(ty)
        eb = rbits // per
        for lane in range(LANES):
            off = (i * LANES + lane) * SPAN
            mems = [int.from_bytes(x.view(np.uint8)[off:off + SPAN].tobytes(), "little") for x in before]
            afters = [int.from_bytes(x.view(np.uint8)[off:off + SPAN].tobytes(), "little") for x in reps]
            m = (1 << rbits) - 1
            for k in range(nvec):
                olds = [(v >> (rbits * k)) & m for v in mems[:nrep]]
                if kind == "ld_reduce":
                    got = int(out[i * NSLOT + k, lane])
                    want, nanm = (olds[0], 0) if nrep == 1 else _reduce(op, acc, ty, olds, rbits)
                    if (got & ~nanm) != want or not _is_nan_bits(got, nanm, et, eb):
                        bad.append(f"{r['text']} lane {lane} [{k}]: {got:#x} != {want:#x}")
                    continue
                b = int(inp[i * NSLOT + k, lane]) & m
                for j in range(3):
                    now = (afters[j] >> (rbits * k)) & m
                    old = (mems[j] >> (rbits * k)) & m
                    if j >= nrep:
                        want, nanm = old, 0
                    elif kind == "st":
                        want, nanm = b, 0
                    else:
                        want, nanm = _reduce(op, acc, ty, [old, b], rbits)
                    if (now & ~nanm) != want or not _is_nan_bits(now, nanm, et, eb):
                        bad.append(f"{r['text']} lane {lane} replica {j} [{k}]: {now:#x} != {want:#x}")
    assert not bad, f"{len(bad)} mismatches, first: " + "; ".join(bad[:6])


def test_multicast_binding_is_checked():
    from tile_mlir.sim import EmulationError
    rows = [r for r in ROWS if r["form"] == "multimem.st.u32"]
    a, b = np.zeros(LANES * SPAN // 8, np.uint64), np.zeros(2, np.uint64)
    with pytest.raises(EmulationError, match="differ in size"):
        run_ptx(_kernel(rows), "k", [a, b, a.copy(), np.zeros((NSLOT, LANES), np.uint64),
                                     np.zeros((NSLOT, LANES), np.uint64)],
                block=(LANES, 1, 1), workers=1, multicast=[(0, 1)])


@pytest.mark.parametrize("text", ["multimem.red.global.min.f32 [%rd9], %r1;",
                                  "multimem.ld_reduce.add.v2.f64 {%rd1, %rd2}, [%rd9];",
                                  "multimem.ld_reduce.add.acc::f32.f32 %r1, [%rd9];",
                                  "multimem.st.v4.f16x2 [%rd9], {%r1, %r2};",
                                  "multimem.red.and.u32 [%rd9], %r1;"])
def test_forms_outside_the_isa_are_refused(text):
    from tile_mlir.sim.coverage import decode_check
    why = decode_check([text])[0]
    assert why is not None and "multimem" in why, why
