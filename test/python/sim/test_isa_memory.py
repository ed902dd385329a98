"""ld, ldu, ld.global.nc and st on tile-sim: every row of the ISA coverage table registered to this
test, in every state space it names (generic, global, shared, shared::cta, shared::cluster, local,
const), every type, vector width and memory-consistency qualifier, against the bytes a known
pattern holds (PTX ISA "ld", "st": little-endian; a signed type sign-extends into a wider
register, an unsigned or bit type zero-extends)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tiers
from isa_harness import isa_rows, split
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_memory.py::"
LANES = 8
SPAN = 32  # bytes per lane
SPACES = ("shared::cluster", "shared::cta", "shared", "global", "local", "const")
REGW = {"%p": 1, "%c": 8, "%h": 16, "%rd": 64, "%r": 32, "%q": 128}
PATTERN = (np.arange(LANES * SPAN, dtype=np.uint64) * 37 + 11).astype(np.uint8) ^ 0xA5


def _space(form):
    for s in SPACES:
        if f".{s}." in f".{form}.":
            return s
    return "generic"


def _type(form):
    return form.split(".")[-1]


def _size(t):
    return int(re.sub(r"\D", "", t) or 8) // 8


def _regw(r):
    for k in ("%rd", "%p", "%c", "%h", "%r", "%q"):
        if r.startswith(k):
            return REGW[k]
    raise AssertionError(r)


def _regs(op):
    op = op.strip()
    if op.startswith("{"):
        return [x.strip() for x in op[1:-1].split(",")]
    return [op]


HEAD = f""".version 8.8
.target sm_100a
.address_size 64
.const .align 16 .b8 cbuf[{LANES * SPAN}] = {{{", ".join(str(int(b)) for b in PATTERN)}}};
.visible .entry k(.param .u64 pg, .param .u64 pin, .param .u64 pout, .param .u64 pp)
{{
  .reg .pred %p<8>; .reg .b8 %c<8>; .reg .b16 %h<8>; .reg .b32 %r<260>; .reg .b64 %rd<16>;
  .reg .b128 %q<8>; .reg .b64 %base<8>; .reg .b32 %tid;
  .shared .align 16 .b8 sbuf[{LANES * SPAN}];
  .local .align 16 .b8 lbuf[{SPAN}];
  mov.u32 %tid, %tid.x;
  ld.param.u64 %rd10, [pg]; cvta.to.global.u64 %rd10, %rd10;
  ld.param.u64 %rd11, [pin]; cvta.to.global.u64 %rd11, %rd11;
  ld.param.u64 %rd12, [pout]; cvta.to.global.u64 %rd12, %rd12;
  mul.wide.u32 %rd13, %tid, {SPAN};
  add.u64 %base0, %rd10, %rd13;
  mov.u64 %base1, sbuf; add.u64 %base1, %base1, %rd13;
  mov.u64 %base2, lbuf;
  mov.u64 %base3, cbuf; add.u64 %base3, %base3, %rd13;
  ld.param.u64 %base4, [pp]; cvta.to.global.u64 %base4, %base4; add.u64 %base4, %base4, %rd13;
  mul.wide.u32 %rd13, %tid, 8; add.u64 %rd11, %rd11, %rd13; add.u64 %rd12, %rd12, %rd13;
"""
BASE = {"generic": "%base0", "global": "%base0", "shared": "%base1", "shared::cta": "%base1",
        "shared::cluster": "%base1", "local": "%base2", "const": "%base3"}
RB = {"generic": "ld.b64", "global": "ld.global.b64", "shared": "ld.shared.b64",
      "shared::cta": "ld.shared.b64", "shared::cluster": "ld.shared::cluster.b64",
      "local": "ld.local.b64"}
WB = {k: v.replace("ld.", "st.") for k, v in RB.items()}


def _restore(space):
    """The lane's 32 bytes of a space back to the pattern (from a pristine global copy)."""
    out = []
    for k in range(4):
        out += [f"  ld.global.b64 %rd14, [%base4+{8 * k}];",
                f"  {WB[space]} [{BASE[space]}+{8 * k}], %rd14;"]
    return out


def _out(slot, reg, nslots):
    w = _regw(reg)
    conv = {8: f"cvt.u64.u8 %rd15, {reg};", 16: f"cvt.u64.u16 %rd15, {reg};",
            32: f"cvt.u64.u32 %rd15, {reg};", 64: f"mov.b64 %rd15, {reg};"}
    if w == 128:
        return [f"  mov.b128 {{%rd14, %rd15}}, {reg};",
                f"  st.global.b64 [%rd12+{(slot * LANES) * 8}], %rd14;",
                f"  st.global.b64 [%rd12+{((slot + 1) * LANES) * 8}], %rd15;"]
    return [f"  {conv[w]}", f"  st.global.b64 [%rd12+{(slot * LANES) * 8}], %rd15;"]


def _in(slot, reg):
    w = _regw(reg)
    if w == 128:
        return [f"  ld.global.b64 %rd14, [%rd11+{(slot * LANES) * 8}];",
                f"  ld.global.b64 %rd15, [%rd11+{((slot + 1) * LANES) * 8}];",
                f"  mov.b128 {reg}, {{%rd14, %rd15}};"]
    conv = {8: f"cvt.u8.u64 {reg}, %rd14;", 16: f"cvt.u16.u64 {reg}, %rd14;",
            32: f"cvt.u32.u64 {reg}, %rd14;", 64: f"mov.b64 {reg}, %rd14;"}
    return [f"  ld.global.b64 %rd14, [%rd11+{(slot * LANES) * 8}];", f"  {conv[w]}"]


NSLOT = 16


def _kernel(rows):
    body = []
    for s in ("shared", "local"):  # fill the shared and local copies of the pattern
        body += _restore(s)
    for i, r in enumerate(rows):
        form, text = r["form"], r["text"]
        space = _space(form)
        op, ops = split(text)
        base = NSLOT * i
        body.append(f"  mov.u64 %rd9, {BASE[space]};")
        if form.startswith("st"):
            slot = base
            for reg in _regs(ops[1]):
                body += _in(slot, reg)
                slot += 2 if _regw(reg) == 128 else 1
            body.append(f"  {text}")
            for k in range(4):
                body += [f"  {RB[space]} %rd15, [{BASE[space]}+{8 * k}];",
                         f"  st.global.b64 [%rd12+{((base + k) * LANES) * 8}], %rd15;"]
            body += _restore(space)
        else:
            body.append(f"  {text}")
            slot = base
            for reg in _regs(ops[0]):
                body += _out(slot, reg, NSLOT)
                slot += 2 if _regw(reg) == 128 else 1
    return HEAD + "\n".join(body) + "\n  ret;\n}\n"


def _le(bs):
    return int.from_bytes(bytes(bs), "little")


ROWS = [r for r in isa_rows(T + "test_memory_rows")]


@pytest.mark.parametrize("chunk", tiers.chunks(4, fast=(0,)))  # (1 in make test)
def test_memory_rows(chunk):
    """Each ld form reads the pattern; each st form writes its sources over it."""
    rows = ROWS[chunk::4]
    assert rows
    rng = np.random.default_rng(3140 + chunk)
    g = PATTERN.copy()
    inp = rng.integers(0, 1 << 63, (len(rows) * NSLOT, LANES), dtype=np.uint64) * np.uint64(2) + \
        np.uint64(1)
    out = np.zeros((len(rows) * NSLOT, LANES), np.uint64)
    run_ptx(_kernel(rows), "k", [g, inp, out, PATTERN.copy()], block=(LANES, 1, 1), workers=1)
    bad = []
    for i, r in enumerate(rows):
        form = r["form"]
        t = _type(form)
        size = _size(t)
        op, ops = split(r["text"])
        base = NSLOT * i
        for lane in range(LANES):
            mem = [int(b) for b in PATTERN[lane * SPAN:(lane + 1) * SPAN]]
            if form.startswith("st"):
                slot, off = base, 0
                for reg in _regs(ops[1]):
                    v = int(inp[slot, lane])
                    if _regw(reg) == 128:
                        v |= int(inp[slot + 1, lane]) << 64
                    mem[off:off + size] = list(v.to_bytes(16, "little")[:size])
                    off += size
                    slot += 2 if _regw(reg) == 128 else 1
                got = b"".join(int(out[base + k, lane]).to_bytes(8, "little") for k in range(4))
                if list(got) != mem:
                    bad.append(f"{r['text']} lane {lane}: memory {got.hex()} != {bytes(mem).hex()}")
                continue
            slot, off = base, 0
            for reg in _regs(ops[0]):
                w = _regw(reg)
                v = _le(mem[off:off + size])
                if t.startswith("s") and w > 8 * size:
                    if v >> (8 * size - 1):
                        v -= 1 << (8 * size)
                    v &= (1 << w) - 1
                got = int(out[slot, lane])
                if w == 128:
                    got |= int(out[slot + 1, lane]) << 64
                if got != v:
                    bad.append(f"{r['text']} lane {lane} element at +{off}: {got:#x} != {v:#x}")
                off += size
                slot += 2 if w == 128 else 1
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:12])
