"""Integer/bitwise/float ALU, conversions, predicates, branches, loops, vector memory, params."""

import warnings

import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx

REGS = ("\t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<20>;\n"
        "\t.reg .f32 %f<8>;\n")


def kernel(body, extra_params=""):
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 8 k_param_0" +
            extra_params + "\n)\n{\n" + REGS +
            "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n" + body +
            "\tret;\n}\n")


# (body computing %r10 from %r1 = 0xF0F0_1234, %r2 = 5, %r3 = -7 (0xFFFFFFF9); expected u32)
INIT = "\tmov.u32 %r1, 0xF0F01234;\n\tmov.u32 %r2, 5;\n\tmov.u32 %r3, -7;\n"
CASES32 = [
    ("add.s32 %r10, %r1, %r2", 0xF0F01239),
    ("sub.s32 %r10, %r2, %r3", 12),
    ("mul.lo.s32 %r10, %r3, %r2", 0xFFFFFFDD),
    ("mul.hi.u32 %r10, %r1, %r2", 4),
    ("mul.hi.s32 %r10, %r3, %r1", 0),
    ("mad.lo.s32 %r10, %r2, %r2, %r3", 18),
    ("div.s32 %r10, %r3, 2", 0xFFFFFFFD),
    ("div.u32 %r10, %r3, 2", 0x7FFFFFFC),
    ("rem.s32 %r10, %r3, 4", 0xFFFFFFFD),
    ("min.s32 %r10, %r3, %r2", 0xFFFFFFF9),
    ("min.u32 %r10, %r3, %r2", 5),
    ("max.s32 %r10, %r1, %r2", 5),
    ("neg.s32 %r10, %r2", 0xFFFFFFFB),
    ("abs.s32 %r10, %r3", 7),
    ("and.b32 %r10, %r1, 0xFF", 0x34),
    ("or.b32 %r10, %r2, 0x100", 0x105),
    ("xor.b32 %r10, %r1, -1", 0x0F0FEDCB),
    ("not.b32 %r10, %r2", 0xFFFFFFFA),
    ("shl.b32 %r10, %r2, 30", 0x40000000),
    ("shl.b32 %r10, %r2, 40", 0),
    ("shr.u32 %r10, %r1, 28", 0xF),
    ("shr.s32 %r10, %r1, 28", 0xFFFFFFFF),
    ("shr.s32 %r10, %r3, 40", 0xFFFFFFFF),
    ("bfe.u32 %r10, %r1, 8, 8", 0x12),
    ("bfe.s32 %r10, %r1, 28, 8", 0xFFFFFFFF),
    ("bfi.b32 %r10, %r2, %r1, 8, 4", 0xF0F01534),
    ("prmt.b32 %r10, %r1, %r2, 0x4321", 0x05F0F012),
    ("popc.b32 %r10, %r1", 13),
    ("clz.b32 %r10, %r2", 29),
    ("brev.b32 %r10, %r2", 0xA0000000),
    ("bfind.u32 %r10, %r1", 31),
    ("lop3.b32 %r10, %r1, %r2, %r3, 0x96", 0xF0F01234 ^ 5 ^ 0xFFFFFFF9),
    ("lop3.b32 %r10, %r1, %r2, %r3, 0xF0", 0xF0F01234),
    ("selp.b32 %r10, 11, 22, %p1", 22),
    ("cvt.s32.s8 %r10, %r3", 0xFFFFFFF9),
    ("cvt.u32.u8 %r10, %r1", 0x34),
    ("cvt.u32.u16 %r10, %r1", 0x1234),
    ("cvt.s32.s16 %r10, %r1", 0x1234),
]


def run_one(body, n=1, dtype=np.uint32):
    out = np.zeros(n, dtype)
    res = run_ptx(kernel(body), "k", [out], block=(1, 1, 1))
    return out, res


@pytest.mark.parametrize("op,exp", CASES32)
def test_alu32(op, exp, assemble):
    body = INIT + "\tsetp.eq.u32 %p1, %r2, 6;\n\t" + op + ";\n\tst.global.u32 [%rd1], %r10;\n"
    assemble(kernel(body))
    out, _ = run_one(body)
    assert int(out[0]) == exp, hex(int(out[0]))


CASES64 = [
    ("mul.wide.u32 %rd10, %r1, 16", 0xF0F01234 * 16),
    ("mul.wide.s32 %rd10, %r3, 16", (-112) & 0xFFFFFFFFFFFFFFFF),
    ("mad.wide.u32 %rd10, %r2, %r2, %rd5", 25 + 0x100000000),
    ("cvt.u64.u32 %rd10, %r3", 0xFFFFFFF9),
    ("cvt.s64.s32 %rd10, %r3", 0xFFFFFFFFFFFFFFF9),
    ("mov.b64 %rd10, {%r2, %r1}", 0xF0F0123400000005),
    ("add.s64 %rd10, %rd5, -1", 0xFFFFFFFF),
    ("shr.u64 %rd10, %rd5, 4", 0x10000000),
]


@pytest.mark.parametrize("op,exp", CASES64)
def test_alu64(op, exp, assemble):
    body = INIT + "\tmov.u64 %rd5, 0x100000000;\n\t" + op + ";\n\tst.global.u64 [%rd1], %rd10;\n"
    assemble(kernel(body))
    out, _ = run_one(body, dtype=np.uint64)
    assert int(out[0]) == exp, hex(int(out[0]))


def test_setp_forms_and_predicated_moves(assemble):
    body = INIT + (
        "\tsetp.lt.s32 %p1, %r3, %r2;\n"       # -7 < 5: true
        "\tsetp.lt.u32 %p2, %r3, %r2;\n"       # 0xFFFFFFF9 < 5 unsigned: false
        "\tsetp.hi.u32 %p3|%p4, %r3, %r2;\n"   # true | false
        "\tsetp.eq.and.s32 %p5, %r2, 5, %p2;\n"  # true and false
        "\tsetp.ne.or.s32 %p6, %r2, 5, !%p2;\n"  # false or true
        "\tmov.u32 %r10, 0;\n"
        "\t@%p1 or.b32 %r10, %r10, 1;\n\t@%p2 or.b32 %r10, %r10, 2;\n"
        "\t@%p3 or.b32 %r10, %r10, 4;\n\t@%p4 or.b32 %r10, %r10, 8;\n"
        "\t@%p5 or.b32 %r10, %r10, 16;\n\t@!%p5 or.b32 %r10, %r10, 32;\n"
        "\t@%p6 or.b32 %r10, %r10, 64;\n"
        "\tst.global.u32 [%rd1], %r10;\n")
    assemble(kernel(body))
    out, _ = run_one(body)
    assert int(out[0]) == 1 + 4 + 32 + 64


def test_float_ops(assemble):
    body = ("\tmov.f32 %f1, 0f3FC00000;\n\tmov.f32 %f2, 0f40200000;\n"   # 1.5, 2.5
            "\tadd.f32 %f3, %f1, %f2;\n\tmul.rn.f32 %f4, %f1, %f2;\n"
            "\tfma.rn.f32 %f5, %f1, %f2, %f1;\n\tcvt.rzi.s32.f32 %r10, %f5;\n"
            "\tcvt.rn.f32.s32 %f6, %r10;\n\tsetp.gt.f32 %p1, %f2, %f1;\n\tselp.u32 %r11, 1, 0, %p1;\n"
            "\tst.global.v4.f32 [%rd1], {%f3, %f4, %f5, %f6};\n\tst.global.u32 [%rd1+16], %r10;\n"
            "\tst.global.u32 [%rd1+20], %r11;\n")
    assemble(kernel(body))
    out = np.zeros(6, np.float32)
    run_ptx(kernel(body), "k", [out], block=(1, 1, 1))
    assert list(out[:4]) == [4.0, 3.75, 5.25, 5.0]
    assert list(out[4:].view(np.int32)) == [5, 1]


def test_float_overflow_rounds_to_infinity_without_numpy_warnings(assemble):
    """f32 / f16 results past the largest finite value are infinity; numpy's cast printed an
    overflow RuntimeWarning for each."""
    body = ("\tmov.f32 %f1, 0f7F7FFFFF;\n\tmul.rn.f32 %f2, %f1, %f1;\n"  # FLT_MAX squared
            "\tneg.f32 %f3, %f2;\n\tcvt.rn.f16.f32 %rs1, 0f47800000;\n"  # 65536 -> inf in f16
            "\tcvt.u32.u16 %r10, %rs1;\n\tst.global.v2.f32 [%rd1], {%f2, %f3};\n"
            "\tst.global.u32 [%rd1+8], %r10;\n")
    assemble(kernel(body))
    out = np.zeros(3, np.uint32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_ptx(kernel(body), "k", [out], block=(1, 1, 1))
    assert list(out) == [0x7F800000, 0xFF800000, 0x7C00]


def test_loop_with_labels_vector_memory_and_scalar_params(assemble):
    # out[i] = in[i] * scale + tid for 4 x 64 elements, 64 threads, loop over 4 strided chunks
    body = ("\tld.param.u64 %rd2, [k_param_1];\n\tld.param.u32 %r20, [k_param_2];\n"
            "\tcvta.to.global.u64 %rd2, %rd2;\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, 0;\n"
            "$L__BB0_1:\n\tshl.b32 %r3, %r2, 6;\n\tadd.s32 %r4, %r3, %r1;\n"
            "\tmul.wide.u32 %rd3, %r4, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tld.global.u32 %r5, [%rd4];\n"
            "\tmad.lo.s32 %r6, %r5, %r20, %r1;\n\tadd.s64 %rd5, %rd1, %rd3;\n"
            "\tst.global.u32 [%rd5], %r6;\n\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, 4;\n"
            "\t@%p1 bra $L__BB0_1;\n")
    ptx = kernel(body, ",\n\t.param .u64 .ptr .global .align 4 k_param_1,\n\t.param .u32 k_param_2")
    assemble(ptx)
    src = np.arange(256, dtype=np.uint32)
    out = np.zeros(256, np.uint32)
    res = run_ptx(ptx, "k", [out, src, 3], block=(64, 1, 1))
    np.testing.assert_array_equal(out, src * 3 + (np.arange(256) % 64))
    assert res.steps > 0


def test_shared_symbol_cvta_generic_and_u8(assemble):
    body = ("\t.shared .align 16 .b8 sbuf[64];\n"
            "\tmov.u64 %rd2, sbuf;\n\tcvta.shared.u64 %rd3, %rd2;\n\tmov.u32 %r1, %tid.x;\n"
            "\tcvt.u64.u32 %rd4, %r1;\n\tadd.s64 %rd5, %rd3, %rd4;\n\tcvt.u16.u32 %rs1, %r1;\n"
            "\tst.u8 [%rd5], %rs1;\n\tbar.sync 0;\n\tld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [sbuf+16];\n"
            "\tcvta.to.shared.u64 %rd6, %rd5;\n\tcvt.u32.u64 %r8, %rd6;\n\tld.shared.s8 %r9, [%r8];\n"
            "\tmul.wide.u32 %rd7, %r1, 8;\n\tadd.s64 %rd8, %rd1, %rd7;\n"
            "\tst.global.v2.u32 [%rd8], {%r4, %r9};\n")
    ptx = kernel(body)
    assemble(ptx)
    out = np.zeros(64, np.uint32)
    run_ptx(ptx, "k", [out], block=(32, 1, 1))
    assert all(out[0::2] == 0x13121110)
    assert list(out[1::2]) == list(range(32))


def test_cvta_to_shared_rejects_global_address(assemble):
    body = "\tcvta.to.shared.u64 %rd2, %rd1;\n\tcvt.u32.u64 %r1, %rd2;\n"
    with pytest.raises(EmulationError, match=r"line \d+: .*not in the shared window"):
        run_one(body)


def test_exit_and_guarded_exit(assemble):
    body = ("\tmov.u32 %r1, %tid.x;\n\tsetp.ne.u32 %p1, %r1, 3;\n\t@%p1 exit;\n"
            "\tst.global.u32 [%rd1], %r1;\n")
    assemble(kernel(body))
    out = np.zeros(1, np.uint32)
    run_ptx(kernel(body), "k", [out], block=(64, 1, 1))
    assert out[0] == 3


def test_step_budget():
    body = "$L__x:\n\tbra.uni $L__x;\n"
    with pytest.raises(EmulationError, match=r"step budget of 1000 .* exceeded"):
        run_ptx(kernel(body), "k", [np.zeros(1, np.uint32)], block=(1, 1, 1), max_steps=1000)


def test_wrong_argument_count():
    with pytest.raises(EmulationError, match=r"has 1 parameters"):
        run_ptx(kernel(""), "k", [], block=(1, 1, 1))
