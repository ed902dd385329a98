"""ld.param / st.param on tile-sim: every row of the ISA coverage table registered to this test, every
type and qualifier (.param, .param::entry, .weak), against the bytes of the parameter (PTX ISA "ld",
"st", "Parameter State Space": little-endian; a signed type sign-extends into a wider register, an
unsigned or bit type zero-extends; st keeps the register's low bytes).

ld rows run their own text on a kernel parameter (its address taken by mov) at two offsets; st rows
store with their opcode into a call's argument, which the callee copies into its return value.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tiers
from isa_harness import isa_rows
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_param.py::"
REGW = (("%rd", 64), ("%q", 128), ("%h", 16), ("%r", 32))
PB = bytes(((np.arange(64) * 73 + 29) % 256).astype(np.uint8) ^ 0x5A)  # the parameter's bytes


def _regw(r):
    return next(w for k, w in REGW if r.startswith(k))


def _size(form):
    return int(re.sub(r"\D", "", form.split(".")[-1])) // 8


def _out(reg, slot):
    w = _regw(reg)
    if w == 128:
        return [f"  mov.b128 {{%rd14, %rd15}}, {reg};", f"  st.global.b64 [%rd13+{8 * slot}], %rd14;",
                f"  st.global.b64 [%rd13+{8 * slot + 8}], %rd15;"]
    conv = {16: f"cvt.u64.u16 %rd14, {reg};", 32: f"cvt.u64.u32 %rd14, {reg};",
            64: f"mov.b64 %rd14, {reg};"}[w]
    return ["  " + conv, f"  st.global.b64 [%rd13+{8 * slot}], %rd14;"]


HEAD = """.version 8.8
.target sm_100a
.address_size 64
"""
REGS = ("  .reg .pred %p<4>; .reg .b16 %h<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>; "
        ".reg .b128 %q<8>;\n")


def _ld_kernel(text):
    dst = text.split(" ", 1)[1].split(",")[0].strip()
    body = ["  ld.param.u64 %rd13, [pout]; cvta.to.global.u64 %rd13, %rd13;"]  # not a row's register
    for k, off in enumerate((0, 16)):
        body += ["  mov.u64 %rd9, pb;", f"  add.u64 %rd9, %rd9, {off};", f"  {text}"]
        body += _out(dst, 2 * k)
    return (HEAD + ".visible .entry k(.param .u64 pout, .param .align 16 .b8 pb[64])\n{\n" + REGS +
            "\n".join(body) + "\n  ret;\n}\n")


def _st_kernel(op, reg):
    """The row's opcode stores ``reg`` (loaded from the input) into argument a0 of a call to f,
    which returns its 16 argument bytes."""
    w = _regw(reg)
    load = {16: f"  ld.global.b16 {reg}, [%rd2];", 32: f"  ld.global.b32 {reg}, [%rd2];",
            64: f"  ld.global.b64 {reg}, [%rd2];",
            128: f"  ld.global.v2.b64 {{%rd4, %rd5}}, [%rd2];\n  mov.b128 {reg}, {{%rd4, %rd5}};"}[w]
    return (HEAD +
            ".func (.param .align 16 .b8 r[16]) f(.param .align 16 .b8 a[16])\n{\n"
            "  .reg .b64 %x<2>;\n  ld.param.b64 %x0, [a]; ld.param.b64 %x1, [a+8];\n"
            "  st.param.b64 [r], %x0; st.param.b64 [r+8], %x1;\n  ret;\n}\n"
            ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n" + REGS +
            "  ld.param.u64 %rd1, [pout]; cvta.to.global.u64 %rd1, %rd1;\n"
            "  ld.param.u64 %rd2, [pin]; cvta.to.global.u64 %rd2, %rd2;\n" + load + "\n"
            "  {\n  .param .align 16 .b8 a0[16];\n  .param .align 16 .b8 r0[16];\n"
            "  st.param.b64 [a0], 0; st.param.b64 [a0+8], 0;\n"
            f"  {op} [a0], {reg};\n"
            "  call.uni (r0), f, (a0);\n"
            "  ld.param.b64 %rd6, [r0]; ld.param.b64 %rd7, [r0+8];\n  }\n"
            "  st.global.b64 [%rd1], %rd6; st.global.b64 [%rd1+8], %rd7;\n  ret;\n}\n")


ROWS = isa_rows(T + "test_param_rows")


# the fast tier: every type and every state space / qualifier once (tiers.cover); all in the slow tier
@pytest.mark.parametrize("row", tiers.cover(ROWS, lambda r: r["form"].rsplit(".", 1)[0],
                                            lambda r: r["form"].rsplit(".", 1)[1]),
                         ids=lambda r: r["form"])
def test_param_rows(row, assemble):
    form, text = row["form"], row["text"]
    size = _size(form)
    op, _, rest = text.rstrip(";").partition(" ")
    if op.startswith("ld"):
        ptx = _ld_kernel(text)
        assemble(ptx)
        out = np.zeros(4, np.uint64)
        run_ptx(ptx, "k", [out, int.from_bytes(PB, "little")], block=(1, 1, 1))
        w = _regw(rest.split(",")[0].strip())
        for k, off in enumerate((0, 16)):
            v = int.from_bytes(PB[off:off + size], "little")
            if form.split(".")[-1].startswith("s") and w > 8 * size and v >> (8 * size - 1):
                v = (v - (1 << (8 * size))) & ((1 << w) - 1)
            got = int(out[2 * k]) | (int(out[2 * k + 1]) << 64 if w == 128 else 0)
            assert got == v, f"{text} at +{off}: {got:#x} != {v:#x}"
        return
    reg = rest.split(",")[1].strip()
    ptx = _st_kernel(op, reg)
    assemble(ptx)
    src = np.frombuffer(PB[:16], np.uint64).copy()
    out = np.zeros(2, np.uint64)
    run_ptx(ptx, "k", [out, src], block=(1, 1, 1))
    w = _regw(reg) // 8  # a 16-bit register holds the input's low two bytes
    want = PB[:min(size, w)] + bytes(16 - min(size, w))
    assert out.tobytes() == want, f"{op}: {out.tobytes().hex()} != {want.hex()}"
