"""mbarrier phase machine, elect.sync, shfl/vote, and tcgen05.ld/st per-thread maps."""

import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx

REGS = ("\t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<300>;\n\t.reg .b64 %rd<20>;\n"
        "\t.shared .align 8 .b8 sm[64];\n")


def kernel(body):
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 8 k_param_0\n)\n{\n"
            + REGS + "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tmov.u32 %r1, %tid.x;\n" + body + "\tret;\n}\n")


def test_mbarrier_phases_parity_ping_pong(assemble):
    # thread 0 produces 5 rounds: writes round into sm[16], arrives on `full` (count 1); the other
    # 31 threads of warp 1 wait on full with parity = round & 1, read the value, and arrive on
    # `empty` (count 32); thread 0 waits on empty before the next round.
    body = (
        "\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L__i;\n"
        "\tmbarrier.init.shared::cta.b64 [sm], 1;\n\tmbarrier.init.shared::cta.b64 [sm+8], 32;\n"
        "$L__i:\n\tbar.sync 0;\n\tmov.u32 %r2, 0;\n\tsetp.lt.u32 %p2, %r1, 32;\n"
        "\t@%p2 bra $L__prod;\n"
        # consumers: warp 1
        "$L__c:\n\tand.b32 %r3, %r2, 1;\n$L__cw:\n"
        "\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [sm], %r3;\n\t@!%p3 bra $L__cw;\n"
        "\tld.shared.u32 %r4, [sm+16];\n\tadd.s32 %r5, %r5, %r4;\n"
        "\tmbarrier.arrive.release.cta.shared::cta.b64 _, [sm+8];\n"
        "\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.u32 %p4, %r2, 5;\n\t@%p4 bra $L__c;\n"
        "\tsub.s32 %r6, %r1, 32;\n\tmul.wide.u32 %rd2, %r6, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tst.global.u32 [%rd3], %r5;\n\tbra.uni $L__end;\n"
        # producer: thread 0 only (lanes 1..31 of warp 0 exit)
        "$L__prod:\n\t@%p1 bra $L__end;\n"
        "$L__p:\n\tadd.s32 %r7, %r2, 10;\n\tst.shared.u32 [sm+16], %r7;\n"
        "\tmbarrier.arrive.shared::cta.b64 %rd4, [sm];\n"
        "\tand.b32 %r3, %r2, 1;\n$L__pw:\n"
        "\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [sm+8], %r3;\n\t@!%p3 bra $L__pw;\n"
        "\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.u32 %p4, %r2, 5;\n\t@%p4 bra $L__p;\n"
        "$L__end:\n")
    ptx = kernel(body)
    assemble(ptx)
    out = np.zeros(32, np.uint32)
    run_ptx(ptx, "k", [out], block=(64, 1, 1))
    assert list(out) == [10 + 11 + 12 + 13 + 14] * 32


def test_mbarrier_expect_tx_and_state_token(assemble):
    body = (
        "\tmbarrier.init.shared::cta.b64 [sm], 1;\n"
        "\tmbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [sm], 64;\n"
        "\tmbarrier.test_wait.shared::cta.b64 %p1, [sm], %rd2;\n"   # tx pending: false... parked
        "\tselp.u32 %r2, 1, 0, %p1;\n\tst.global.u32 [%rd1], %r2;\n")
    ptx = kernel(body)
    assemble(ptx)
    # nothing completes the tx: the waiter is released once with `false` (time limit), then runs on
    out = np.zeros(1, np.uint32)
    run_ptx(ptx, "k", [out], block=(1, 1, 1))
    assert out[0] == 0
    done = body.replace("\tmbarrier.test_wait", "\tmbarrier.complete_tx.shared::cta.b64 [sm], 64;\n"
                        "\tmbarrier.test_wait")
    out = np.zeros(1, np.uint32)
    run_ptx(kernel(done), "k", [out], block=(1, 1, 1))
    assert out[0] == 1


def test_mbarrier_reinit_without_inval():
    body = "\tmbarrier.init.shared::cta.b64 [sm], 1;\n\tmbarrier.init.shared::cta.b64 [sm], 1;\n"
    with pytest.raises(EmulationError, match=r"line 20: .*initialised at line 19\) without mbarrier.inval"):
        run_ptx(kernel(body), "k", [np.zeros(1, np.uint32)], block=(1, 1, 1))


def test_mbarrier_arrive_over_count():
    body = ("\tmbarrier.init.shared::cta.b64 [sm], 1;\n"
            "\tmbarrier.arrive.shared::cta.b64 %rd2, [sm], 2;\n")
    with pytest.raises(EmulationError, match=r"arrive count 2 exceeds the 1 pending"):
        run_ptx(kernel(body), "k", [np.zeros(1, np.uint32)], block=(1, 1, 1))


def test_elect_sync_and_shfl_vote(assemble):
    body = ("\telect.sync %r2|%p1, -1;\n\tselp.u32 %r3, 1, 0, %p1;\n"
            "\tshfl.sync.bfly.b32 %r4, %r1, 1, 31, -1;\n"
            "\tsetp.lt.u32 %p2, %r1, 40;\n\tvote.sync.ballot.b32 %r5, %p2, -1;\n"
            "\tmul.wide.u32 %rd2, %r1, 16;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
            "\tst.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r5};\n")
    ptx = kernel(body)
    assemble(ptx)
    out = np.zeros((64, 4), np.uint32)
    run_ptx(ptx, "k", [out], block=(64, 1, 1))
    assert list(out[:, 0]) == [0] * 64  # elected lane id (lowest lane) in each warp
    assert list(out[:, 1]) == ([1] + [0] * 31) * 2
    assert list(out[:, 2]) == [t ^ 1 for t in range(64)]
    assert list(out[:32, 3]) == [0xFFFFFFFF] * 32 and list(out[32:, 3]) == [0xFF] * 32


def test_elect_sync_partial_warp_is_a_convergence_error(assemble):
    body = ("\tsetp.eq.u32 %p1, %r1, 5;\n\t@%p1 bra $L__x;\n\telect.sync %r2|%p2, -1;\n$L__x:\n")
    ptx = kernel(body)
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"convergence error in CTA 0 warp 0.*lanes 0-4,6-31 at line 21.*lanes 5 exited"):
        run_ptx(ptx, "k", [np.zeros(1, np.uint32)], block=(32, 1, 1))


# ----------------------------------------------------------------------------- tcgen05.ld / st
def ref_map(shape, t, i, imm=0):
    """(row, column) of register i of thread t: the per-thread maps of docs/tcgen05.md §11
    (docs/emulator.md A15)."""
    if shape == "32x32b":
        return t, i
    if shape == "16x64b":
        return (t >> 2) + 8 * (t & 1), 2 * i + ((t >> 1) & 1)
    if shape == "16x128b":
        j, h = divmod(i, 2)
        return (t >> 2) + 8 * h, 4 * j + (t & 3)
    if shape == "16x256b":
        j, rem = divmod(i, 4)
        h, k = divmod(rem, 2)
        return (t >> 2) + 8 * h, 8 * j + 2 * (t & 3) + k
    if shape == "16x32bx2":
        return t & 15, i + (imm if t >= 16 else 0)


LD_CASES = [("32x32b", 4, 4), ("16x64b", 8, 8), ("16x128b", 4, 8), ("16x256b", 2, 8),
            ("16x32bx2", 4, 4)]


@pytest.mark.parametrize("shape,num,nregs", LD_CASES)
def test_tcgen05_ld_shapes(shape, num, nregs, assemble):
    # each warp stores cell(lane, col) = lane * 1000 + col for its quarter, columns 0..63, with
    # tcgen05.st.32x32b.x64, then reads back at lane offset 16 (16xN shapes) / 0 and column 4
    st_regs = ", ".join(f"%r{100 + i}" for i in range(64))
    body = "\tshr.u32 %r2, %r1, 5;\n\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $L__a;\n" \
        "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 64;\n$L__a:\n" \
        "\tbar.sync 0;\n\tld.shared.u32 %r3, [sm];\n\tand.b32 %r4, %r1, 96;\n\tshl.b32 %r5, %r4, 16;\n" \
        "\tadd.s32 %r6, %r3, %r5;\n\tmul.lo.u32 %r7, %r1, 1000;\n"
    for i in range(64):
        body += f"\tadd.s32 %r{100 + i}, %r7, {i};\n"
    body += f"\ttcgen05.st.sync.aligned.32x32b.x64.b32 [%r6], {{{st_regs}}};\n" \
        "\ttcgen05.wait::st.sync.aligned;\n"
    loff = 0 if shape == "32x32b" else 16
    body += f"\tadd.s32 %r8, %r6, {(loff << 16) + 4};\n"
    ld_regs = ", ".join(f"%r{200 + i}" for i in range(nregs))
    imm = ", 8" if shape == "16x32bx2" else ""
    body += f"\ttcgen05.ld.sync.aligned.{shape}.x{num}.b32 {{{ld_regs}}}, [%r8]{imm};\n" \
        "\ttcgen05.wait::ld.sync.aligned;\n" \
        f"\tmul.wide.u32 %rd2, %r1, {nregs * 4};\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    for i in range(nregs):
        body += f"\tst.global.u32 [%rd3+{4 * i}], %r{200 + i};\n"
    body += "\tbar.sync 0;\n\t@%p1 bra $L__e;\n" \
        "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 64;\n$L__e:\n"
    ptx = kernel(body)
    assemble(ptx)
    out = np.zeros((128, nregs), np.uint32)
    res = run_ptx(ptx, "k", [out])
    for tid in range(128):
        w, t = divmod(tid, 32)
        for i in range(nregs):
            r, c = ref_map(shape, t, i, 8)
            lane = 32 * w + loff + r
            assert out[tid, i] == lane * 1000 + 4 + c, (tid, i)
    assert res.tmem[0][37, 5] == 37005  # snapshot at dealloc
