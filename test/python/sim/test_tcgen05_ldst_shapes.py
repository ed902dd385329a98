"""tile-sim's tcgen05.ld / tcgen05.st lane and column maps against literal tables, and its two-input cvt
roundings against literal conversions.

The fragment tables are the PTX ISA's "Matrix fragments" figures for tcgen05.ld/st (§9.7.16.8.x, one
figure per shape) written out cell by cell: row r of a table is TMEM lane r (relative to taddr), entry c
is column c, `Tt.i` names register i of thread t of the warp (the .x1 form). The figures are images;
these tables were typed from their descriptions in TVM's tcgen05 ld/st documentation (validated on
B200 by TVM) and CUTLASS's SM100_TMEM_LOAD traits, not computed by any formula of ours. The kernel
writes every cell with tcgen05.st.32x32b (lane t, column i: the shape the ISA text defines) and reads it
back with the shape under test, so a wrong map in the emulator shows as a wrong register.
"""

import math

import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import run_ptx
from tile_mlir.sim.handlers.cvt_pack import round_to

FRAGMENTS = {
    "32x32b": [f"T{t}.0" for t in range(32)],
    "16x64b": [
        "T0.0 T2.0",
        "T4.0 T6.0",
        "T8.0 T10.0",
        "T12.0 T14.0",
        "T16.0 T18.0",
        "T20.0 T22.0",
        "T24.0 T26.0",
        "T28.0 T30.0",
        "T1.0 T3.0",
        "T5.0 T7.0",
        "T9.0 T11.0",
        "T13.0 T15.0",
        "T17.0 T19.0",
        "T21.0 T23.0",
        "T25.0 T27.0",
        "T29.0 T31.0",
    ],
    "16x128b": [
        "T0.0 T1.0 T2.0 T3.0",
        "T4.0 T5.0 T6.0 T7.0",
        "T8.0 T9.0 T10.0 T11.0",
        "T12.0 T13.0 T14.0 T15.0",
        "T16.0 T17.0 T18.0 T19.0",
        "T20.0 T21.0 T22.0 T23.0",
        "T24.0 T25.0 T26.0 T27.0",
        "T28.0 T29.0 T30.0 T31.0",
        "T0.1 T1.1 T2.1 T3.1",
        "T4.1 T5.1 T6.1 T7.1",
        "T8.1 T9.1 T10.1 T11.1",
        "T12.1 T13.1 T14.1 T15.1",
        "T16.1 T17.1 T18.1 T19.1",
        "T20.1 T21.1 T22.1 T23.1",
        "T24.1 T25.1 T26.1 T27.1",
        "T28.1 T29.1 T30.1 T31.1",
    ],
    "16x256b": [
        "T0.0 T0.1 T1.0 T1.1 T2.0 T2.1 T3.0 T3.1",
        "T4.0 T4.1 T5.0 T5.1 T6.0 T6.1 T7.0 T7.1",
        "T8.0 T8.1 T9.0 T9.1 T10.0 T10.1 T11.0 T11.1",
        "T12.0 T12.1 T13.0 T13.1 T14.0 T14.1 T15.0 T15.1",
        "T16.0 T16.1 T17.0 T17.1 T18.0 T18.1 T19.0 T19.1",
        "T20.0 T20.1 T21.0 T21.1 T22.0 T22.1 T23.0 T23.1",
        "T24.0 T24.1 T25.0 T25.1 T26.0 T26.1 T27.0 T27.1",
        "T28.0 T28.1 T29.0 T29.1 T30.0 T30.1 T31.0 T31.1",
        "T0.2 T0.3 T1.2 T1.3 T2.2 T2.3 T3.2 T3.3",
        "T4.2 T4.3 T5.2 T5.3 T6.2 T6.3 T7.2 T7.3",
        "T8.2 T8.3 T9.2 T9.3 T10.2 T10.3 T11.2 T11.3",
        "T12.2 T12.3 T13.2 T13.3 T14.2 T14.3 T15.2 T15.3",
        "T16.2 T16.3 T17.2 T17.3 T18.2 T18.3 T19.2 T19.3",
        "T20.2 T20.3 T21.2 T21.3 T22.2 T22.3 T23.2 T23.3",
        "T24.2 T24.3 T25.2 T25.3 T26.2 T26.3 T27.2 T27.3",
        "T28.2 T28.3 T29.2 T29.3 T30.2 T30.3 T31.2 T31.3",
    ],
    # two 16x32b halves: threads 0..15 at column 0, threads 16..31 at column immHalfSplitoff
    "16x32bx2": [f"T{r}.0 T{r + 16}.0" for r in range(16)],
}
IMM = 8  # immHalfSplitoff of the 16x32bx2 test


def cells(shape):
    """(thread, register) -> (lane, column) from the literal table (16x32bx2's second half at IMM)."""
    out = {}
    for lane, row in enumerate(FRAGMENTS[shape]):
        for col, entry in enumerate(row.split()):
            t, i = (int(x) for x in entry[1:].split("."))
            out[(t, i)] = (lane, IMM if shape == "16x32bx2" and col == 1 else col)
    return out


def test_tables_are_bijective():
    for shape, table in FRAGMENTS.items():
        c = cells(shape)
        nregs = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}[shape]
        assert set(c) == {(t, i) for t in range(32) for i in range(nregs)}, shape
        assert len(set(c.values())) == len(c), shape


REGS = "\t.reg .pred %p<4>;\n\t.reg .b32 %r<400>;\n\t.reg .b64 %rd<8>;\n\t.shared .align 8 .b8 sm[16];\n"


def ldst_kernel(shape: str, num: int, nregs: int, lane_offset: int, col: int, pack: bool = False) -> str:
    """One warp: cell (lane, c) := lane * 1000 + c over 64 columns (tcgen05.st.32x32b.x64), then
    tcgen05.ld.<shape>.x<num> at (lane_offset, col), each thread's registers stored to param 0."""
    st = ", ".join(f"%r{100 + i}" for i in range(64))
    ld = ", ".join(f"%r{200 + i}" for i in range(nregs))
    imm = f", {IMM}" if shape == "16x32bx2" else ""
    b = ["\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 64;",
         "\tld.shared.u32 %r3, [sm];", "\tmul.lo.u32 %r7, %r1, 1000;"]
    b += [f"\tadd.s32 %r{100 + i}, %r7, {i};" for i in range(64)]
    b += [f"\ttcgen05.st.sync.aligned.32x32b.x64.b32 [%r3], {{{st}}};", "\ttcgen05.wait::st.sync.aligned;",
          f"\tadd.s32 %r8, %r3, {(lane_offset << 16) + col};",
          f"\ttcgen05.ld.sync.aligned.{shape}.x{num}{'.pack::16b' if pack else ''}.b32 {{{ld}}}, [%r8]{imm};",
          "\ttcgen05.wait::ld.sync.aligned;",
          f"\tmul.wide.u32 %rd2, %r1, {nregs * 4};", "\tadd.s64 %rd3, %rd1, %rd2;"]
    b += [f"\tst.global.u32 [%rd3+{4 * i}], %r{200 + i};" for i in range(nregs)]
    b += ["\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
          "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 64;"]
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 8 k_param_0\n)\n{\n" + REGS
            + "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tmov.u32 %r1, %tid.x;\n"
            + "\n".join(b) + "\n\tret;\n}\n")


# (shape, .num, registers, atom width in columns): .xN repeats the x1 atom N times along the columns
SHAPES = [("32x32b", 2, 2, 1), ("16x64b", 2, 2, 2), ("16x128b", 2, 4, 4), ("16x256b", 2, 8, 8),
          ("16x32bx2", 2, 2, 1)]


@pytest.mark.parametrize("shape,num,nregs,width", SHAPES, ids=[s[0] for s in SHAPES])
@pytest.mark.parametrize("lane_offset", [0, 16])
def test_ld_lane_column_map_is_the_figure(shape, num, nregs, width, lane_offset, assemble):
    if shape == "32x32b" and lane_offset:
        pytest.skip("32x32b covers the whole quarter")
    ptx = ldst_kernel(shape, num, nregs, lane_offset, 4)
    assemble(ptx)
    out = np.zeros((32, nregs), np.uint32)
    run_ptx(ptx, "k", [out], block=(32, 1, 1))
    table = cells(shape)
    per = nregs // num
    for t in range(32):
        for reg in range(nregs):
            rep, i = divmod(reg, per)
            lane, col = table[(t, i)]
            assert out[t, reg] == (lane_offset + lane) * 1000 + 4 + rep * width + col, (t, reg)


def test_ld_pack_16b_joins_adjacent_columns(assemble):
    """.pack::16b: register = low halves of columns 2c (low) and 2c + 1 (high) (docs/emulator.md A16)."""
    ptx = ldst_kernel("32x32b", 2, 2, 0, 0, pack=True)
    assemble(ptx)
    out = np.zeros((32, 2), np.uint32)
    res = run_ptx(ptx, "k", [out], block=(32, 1, 1))
    for t in range(32):
        for c in range(2):
            lo, hi = (t * 1000 + 2 * c) & 0xFFFF, (t * 1000 + 2 * c + 1) & 0xFFFF
            assert out[t, c] == lo | hi << 16
    assert any("pack::16b" in w for w in res.warnings)


# -- cvt: f32 pairs to bf16x2 / f16x2 / e4m3x2 / e5m2x2 ------------------------------------------------
# (f32 value, format, rounding, satfinite, code): IEEE 754 / OCP FP8 encodings written out
CVT = [
    (1.0, "bf16", "rn", False, 0x3F80),
    (1.0 + 2 ** -8, "bf16", "rn", False, 0x3F80),           # tie -> even (mantissa 0)
    (1.0 + 3 * 2 ** -8, "bf16", "rn", False, 0x3F82),       # tie -> even (mantissa 2)
    (1.0 + 2 ** -8 + 2 ** -20, "bf16", "rn", False, 0x3F81),
    (1.0 + 2 ** -7 + 2 ** -8, "bf16", "rz", False, 0x3F81),  # toward zero
    (-2.5, "bf16", "rn", False, 0xC020),
    (float("inf"), "bf16", "rn", False, 0x7F80),
    (float("nan"), "bf16", "rn", False, 0x7FFF),
    (float.fromhex("0x1.fffffep127"), "bf16", "rn", False, 0x7F80),  # the largest f32 rounds past the largest bf16
    (float.fromhex("0x1.fffffep127"), "bf16", "rz", False, 0x7F7F),
    (2 ** -133, "bf16", "rn", False, 0x0001),                # the smallest subnormal
    (1.0, "f16", "rn", False, 0x3C00),
    (1.0 + 2 ** -11, "f16", "rn", False, 0x3C00),            # tie -> even
    (1.0 + 3 * 2 ** -11, "f16", "rn", False, 0x3C02),
    (65504.0, "f16", "rn", False, 0x7BFF),
    (65520.0, "f16", "rn", False, 0x7C00),                   # halfway past 65504: infinity
    (65520.0, "f16", "rz", False, 0x7BFF),
    (2 ** -24, "f16", "rn", False, 0x0001),
    (-0.0, "f16", "rn", False, 0x8000),
    (1.0, "e4m3", "rn", True, 0x38),
    (448.0, "e4m3", "rn", True, 0x7E),
    (464.0, "e4m3", "rn", True, 0x7E),                       # beyond 448 saturates (satfinite)
    (1e9, "e4m3", "rn", True, 0x7E),
    (-float("inf"), "e4m3", "rn", True, 0xFE),
    (float("nan"), "e4m3", "rn", True, 0x7F),
    (1.0 + 2 ** -4, "e4m3", "rn", True, 0x38),               # tie -> even
    (1.0 + 3 * 2 ** -4, "e4m3", "rn", True, 0x3A),
    (2 ** -9, "e4m3", "rn", True, 0x01),                     # the smallest subnormal
    (2 ** -10, "e4m3", "rn", True, 0x00),                    # tie between 0 and 2^-9 -> even (0)
    (1.0, "e5m2", "rn", True, 0x3C),
    (57344.0, "e5m2", "rn", True, 0x7B),
    (float("inf"), "e5m2", "rn", True, 0x7B),
    (float("nan"), "e5m2", "rn", True, 0x7F),
    (1.0 + 2 ** -3, "e5m2", "rn", True, 0x3C),               # tie -> even
    (2 ** -16, "e5m2", "rn", True, 0x01),
]


@pytest.mark.parametrize("x,fmt,mode,sat,code", CVT, ids=[f"{c[1]}-{c[2]}-{c[0]!r}" for c in CVT])
def test_cvt_rounding_table(x, fmt, mode, sat, code):
    assert round_to(float(np.float32(x)) if math.isfinite(x) else x, fmt, mode, sat) == code


def cvt_kernel(dtype: str, mods: str) -> str:
    bits = 16 if dtype.endswith("16x2") else 8
    st = "st.global.u32" if bits == 16 else "st.global.u16"
    reg = "%r5" if bits == 16 else "%rs1"
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 8 k_param_0,\n"
            "\t.param .u64 .ptr .global .align 8 k_param_1\n)\n{\n"
            "\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
            "\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u64 %rd2, [k_param_1];\n"
            "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 8;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
            "\tld.global.f32 %r2, [%rd4];\n\tld.global.f32 %r3, [%rd4+4];\n"
            f"\tcvt.{mods}.{dtype}.f32 {reg}, %r2, %r3;\n"
            f"\tmul.wide.u32 %rd5, %r1, {bits // 4};\n\tadd.s64 %rd6, %rd2, %rd5;\n"
            f"\t{st} [%rd6], {reg};\n\tret;\n}}\n")


@pytest.mark.parametrize("dtype,mods,fmt,mode,sat", [
    ("bf16x2", "rn", "bf16", "rn", False), ("bf16x2", "rz", "bf16", "rz", False),
    ("f16x2", "rn", "f16", "rn", False), ("e4m3x2", "rn.satfinite", "e4m3", "rn", True),
    ("e5m2x2", "rn.satfinite", "e5m2", "rn", True)])
def test_cvt_pair_packs_a_high_b_low(dtype, mods, fmt, mode, sat, assemble):
    """PTX: "the value converted from input a is stored in the upper half of d and ... b ... lower"."""
    rows = [c for c in CVT if c[1] == fmt and c[2] == mode and c[3] == sat]
    pairs = np.array([[a[0], b[0]] for a, b in zip(rows, rows[1:] + rows[:1])], np.float32)
    want = [(a[4] << (16 if fmt in ("bf16", "f16") else 8)) | b[4] for a, b in zip(rows, rows[1:] + rows[:1])]
    ptx = cvt_kernel(dtype, mods)
    assemble(ptx)
    out = np.zeros(len(rows), np.uint32 if fmt in ("bf16", "f16") else np.uint16)
    run_ptx(ptx, "k", [pairs, out], block=(len(rows), 1, 1))
    assert out.tolist() == want


@pytest.mark.parametrize("use_before_wait", [False, True])
def test_mov_packed_copies_of_ld_registers_land_at_the_wait(use_before_wait, assemble):
    """A mov packing tcgen05.ld destinations before the wait copies their poison (ld_poison.py): the
    64-bit copy is plain after the wait (unpacked, stored: the loaded cells), and an add on it
    before the wait is the tcgen05.wait::ld error."""
    ptx = ldst_kernel("32x32b", 2, 2, 0, 0)
    wait = "\ttcgen05.wait::ld.sync.aligned;"
    early = "\tadd.s64 %rd5, %rd4, 1;\n" if use_before_wait else ""
    ptx = ptx.replace(wait, f"\tmov.b64 %rd4, {{%r200, %r201}};\n{early}{wait}\n"
                            "\tmov.b64 {%r200, %r201}, %rd4;", 1)
    assemble(ptx)
    out = np.zeros(32 * 2, np.uint32)
    if use_before_wait:
        with pytest.raises(Exception, match="read before the tcgen05.wait::ld"):
            run_ptx(ptx, "k", [out], block=(32, 1, 1), strict=True)
        return
    run_ptx(ptx, "k", [out], block=(32, 1, 1), strict=True)
    want = np.array([[lane * 1000 + c for c in range(2)] for lane in range(32)], np.uint32)
    assert np.array_equal(out.reshape(32, 2), want)
