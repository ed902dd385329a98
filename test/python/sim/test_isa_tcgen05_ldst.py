"""tcgen05.ld / tcgen05.st on tile-sim: every row of the ISA coverage table registered to this test
(every shape and .num, with and without .pack::16b / .unpack::16b), against the PTX ISA's fragment
figures written out as literal tables in test_tcgen05_ldst_shapes (FRAGMENTS, cells): .xN repeats
the x1 atom N times along the columns; packing spreads each register over two adjacent columns
(the lower column in the low 16 bits, docs/emulator.md Table A, A16), at twice the column offset.

ld: the warp fills the 512 columns of its lane quarter with cell (lane, c) = lane * 1000 + c
(tcgen05.st.32x32b.x64, the figure of the whole quarter), loads with the row's form at column 4,
and each register must hold its cell.  st: each thread's register i holds t * 1000 + i + 7000000,
stored with the row's form at column 4 over a fill of 0xEEEEEEEE; the 512 columns read back with
tcgen05.ld.32x32b.x64 must hold each register where the figure puts it and the fill elsewhere.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tiers
from isa_harness import isa_rows
from ptxgen import HEADER
from test_tcgen05_ldst_shapes import IMM, cells
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_tcgen05_ldst.py::"
FORM = re.compile(r"tcgen05\.(ld|st)\.sync\.aligned\.(32x32b|16x64b|16x128b|16x256b|16x32bx2)"
                  r"\.x(\d+)(\.pack::16b|\.unpack::16b)?\.b32")
PER = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}
WIDTH = {"32x32b": 1, "16x64b": 2, "16x128b": 4, "16x256b": 8, "16x32bx2": 1}
COL0, NCOL = 4, 512
REGS = ("\t.reg .pred %p<4>;\n\t.reg .b32 %r<400>;\n\t.reg .b64 %rd<8>;\n"
        "\t.shared .align 8 .b8 sm[16];\n")


def _kernel(op, shape, num, form, col0):
    n = PER[shape] * num
    regs = ", ".join(f"%r{200 + i}" for i in range(n))
    imm = f", {IMM}" if shape == "16x32bx2" else ""
    quarter = ", ".join(f"%r{100 + i}" for i in range(64))
    b = ["\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 512;",
         "\tld.shared.u32 %r3, [sm];", "\tmul.lo.u32 %r7, %r1, 1000;"]
    for blk in range(NCOL // 64):  # the fill
        b += [f"\tadd.s32 %r{100 + i}, %r7, {64 * blk + i};" if op == "ld" else
              f"\tmov.b32 %r{100 + i}, 0xEEEEEEEE;" for i in range(64)]
        b += [f"\tadd.s32 %r8, %r3, {64 * blk};",
              f"\ttcgen05.st.sync.aligned.32x32b.x64.b32 [%r8], {{{quarter}}};"]
    b += ["\ttcgen05.wait::st.sync.aligned;", f"\tadd.s32 %r8, %r3, {col0};"]
    if op == "ld":
        b += [f"\t{form} {{{regs}}}, [%r8]{imm};", "\ttcgen05.wait::ld.sync.aligned;",
              f"\tmul.wide.u32 %rd2, %r1, {n * 4};", "\tadd.s64 %rd3, %rd1, %rd2;"]
        b += [f"\tst.global.u32 [%rd3+{4 * i}], %r{200 + i};" for i in range(n)]
    else:
        b += ["\tmad.lo.u32 %r9, %r1, 1000, 7000000;"]
        b += [f"\tadd.s32 %r{200 + i}, %r9, {i};" for i in range(n)]
        b += [f"\t{form} [%r8]{imm}, {{{regs}}};", "\ttcgen05.wait::st.sync.aligned;",
              f"\tmul.wide.u32 %rd2, %r1, {NCOL * 4};", "\tadd.s64 %rd3, %rd1, %rd2;"]
        for blk in range(NCOL // 64):
            b += [f"\tadd.s32 %r8, %r3, {64 * blk};",
                  f"\ttcgen05.ld.sync.aligned.32x32b.x64.b32 {{{quarter}}}, [%r8];",
                  "\ttcgen05.wait::ld.sync.aligned;"]
            b += [f"\tst.global.u32 [%rd3+{4 * (64 * blk + i)}], %r{100 + i};" for i in range(64)]
    b += ["\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
          "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 512;"]
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 8 k_param_0\n)\n{\n"
            + REGS + "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tmov.u32 %r1, %tid.x;\n" + "\n".join(b) + "\n\tret;\n}\n")


def _params():
    """The rows; those of 64 registers or more are marked slow, and of the others the fast tier runs
    the first of every ld / st, shape and packing, and of every .num (tiers.cover)."""
    out = []
    for r in isa_rows(T + "test_tcgen05_ldst_rows"):
        _, shape, num, _ = FORM.match(r["form"]).groups()
        big = PER[shape] * int(num) >= 64
        out.append(pytest.param(r, id=r["form"], marks=[pytest.mark.slow] if big else []))
    form = lambda r: FORM.match(r["form"]).groups()  # noqa: E731 (op, shape, .num, packing)
    return tiers.cover(out, lambda r: tuple(form(r)[i] for i in (0, 1, 3)), lambda r: form(r)[2])


@pytest.mark.parametrize("row", _params())
def test_tcgen05_ldst_rows(row, assemble):
    op, shape, num, pack = FORM.match(row["form"]).groups()
    num = int(num)
    col0 = 0 if pack else COL0  # the largest packed forms span all 512 columns
    ptx = _kernel(op, shape, num, row["form"], col0)
    assemble(ptx)
    table = cells(shape)
    n = PER[shape] * num
    if op == "ld":
        out = np.zeros((32, n), np.uint32)
        run_ptx(ptx, "k", [out], block=(32, 1, 1))
        for t in range(32):
            for r in range(n):
                rep, i = divmod(r, PER[shape])
                lane, col = table[(t, i)]
                c = rep * WIDTH[shape] + col
                want = lane * 1000 + col0 + c if not pack else \
                    (lane * 1000 + col0 + 2 * c) | (lane * 1000 + col0 + 2 * c + 1) << 16
                assert out[t, r] == want, (row["form"], t, r, int(out[t, r]), want)
        return
    out = np.zeros((32, NCOL), np.uint32)
    run_ptx(ptx, "k", [out], block=(32, 1, 1))
    want = np.full((32, NCOL), 0xEEEEEEEE, np.uint32)
    for t in range(32):
        for r in range(n):
            rep, i = divmod(r, PER[shape])
            lane, col = table[(t, i)]
            c = rep * WIDTH[shape] + col
            v = t * 1000 + r + 7000000
            if pack:  # low half to the lower column, high half to the next; upper bits zero
                want[lane, col0 + 2 * c], want[lane, col0 + 2 * c + 1] = v & 0xFFFF, v >> 16
            else:
                want[lane, col0 + c] = v
    bad = np.argwhere(out != want)
    assert not bad.size, f"{row['form']}: {len(bad)} cells differ, first (lane, column) {bad[:4]}"
