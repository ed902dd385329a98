"""Every illegal behaviour raises EmulationError naming the PTX line (and ordering violations are
errors in strict mode, warnings and findings with strict=False)."""

import re

import numpy as np
import pytest

from cp_model import make_desc
from ptxgen import HEADER, cp_kernel
from tile_mlir.sim import EmulationError, run_ptx

BUF = 1024
OK_DESC = make_desc(BUF, 0, 128, 0)
SAMPLE = open(__file__.replace("test_errors.py", "sample_toy.ptx")).read()


def line_of(ptx, needle, nth=0):
    hits = [i + 1 for i, l in enumerate(ptx.split("\n")) if needle in l]
    return hits[nth]


def run_cp(ptx, **kw):
    src = np.arange(4096, dtype=np.uint32).view(np.uint8)[:4096].copy()
    return run_ptx(ptx, "k", [src, np.zeros((128, 32), np.uint32)], **kw)


def expect(ptx, needle, match, nth=0, **kw):
    ln = line_of(ptx, needle, nth)
    with pytest.raises(EmulationError) as ei:
        run_cp(ptx, **kw)
    msg = str(ei.value)
    assert re.search(match, msg), msg
    assert f"line {ln}:" in msg, msg
    assert ei.value.line == ln
    return msg


def test_sample_toy_kernel_is_flagged(assemble):
    assemble(SAMPLE)
    with pytest.raises(EmulationError, match=r"line 28: `tcgen05.cp.*outside its 16-byte shared memory"):
        run_ptx(SAMPLE, None, [np.zeros(16, np.uint8)])


def test_missing_proxy_fence_is_an_error_by_default(assemble):
    ptx = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096, fence=False)
    assemble(ptx)
    expect(ptx, "tcgen05.cp.", r"without.*|with no fence.proxy.async between them")
    res = run_cp(ptx, strict=False)
    assert any("fence.proxy.async" in w for w in res.warnings)


def test_ld_without_mbarrier_wait(assemble):
    ptx = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096, wait=False)
    assemble(ptx)
    expect(ptx, "tcgen05.ld.", r"without a successful mbarrier wait")


def test_ld_without_fence_after_thread_sync(assemble):
    ptx = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096, after_fence=False)
    ptx = ptx.replace("\ttcgen05.fence::after_thread_sync;\n\tld.shared.b32 %r11",
                      "\tld.shared.b32 %r11")
    assemble(ptx)
    expect(ptx, "tcgen05.ld.", r"fence::after_thread_sync")


@pytest.mark.parametrize("col,lane,match", [
    (2, 0, r"column offset 2 .* not a multiple of 4"),
    (0, 3, r"lane offset 3 must be 0"),
    (32, 0, r"column 32 is not allocated"),
])
def test_cp_bad_taddr(col, lane, match, assemble):
    ptx = cp_kernel([("32x128b.warpx4", col, lane, OK_DESC)], smem_bytes=4096)
    assemble(ptx)
    expect(ptx, "tcgen05.cp.", match)


def test_cp_4x256b_lane_offset_range(assemble):
    ptx = cp_kernel([("4x256b", 0, 32, OK_DESC)], smem_bytes=4096)
    assemble(ptx)
    expect(ptx, "tcgen05.cp.", r"lane offset 32 out of range")


@pytest.mark.parametrize("desc,match", [
    (make_desc(BUF, 0, 128, 0, fixed=2), r"bits 46-48 must be 0b001 .*got 0b010"),
    (make_desc(BUF, 0, 128, 0, fixed=4), r"bits 46-48 must be 0b001 .*got 0b100"),
    (make_desc(BUF, 0, 128, 3), r"swizzle mode 3 is invalid"),
    (make_desc(BUF, 0, 128, 5), r"swizzle mode 5 is invalid"),
    (make_desc(BUF, 0, 128, 7), r"swizzle mode 7 is invalid"),
    (make_desc(BUF, 0, 1024, 1), r"128B_base32B\) is unsupported/undocumented"),
    (make_desc(BUF, 0, 1024, 2, lbo_mode=1), r"LBO mode bit 52"),
    (make_desc(BUF, 0, 1024, 2, base=1), r"non-zero base offset 1 .*undefined/unverified"),
    (make_desc(BUF + 128, 0, 1024, 2), r"not at a row-0 position .*undefined/unverified"),
    (make_desc(BUF, 0, 1024, 2) | (1 << 14), r"reserved bits"),
    (make_desc(BUF + 4096, 0, 128, 0), r"outside its .*-byte shared memory"),
])
def test_bad_descriptor(desc, match, assemble):
    ptx = cp_kernel([("32x128b.warpx4", 0, 0, desc)], smem_bytes=4096)
    assemble(ptx)
    expect(ptx, "tcgen05.cp.", match)


def test_descriptor_version_zero_is_a_finding_read_as_version_one(assemble):
    """Bits 46-48 = 0b000 (Triton before 3.6 builds tcgen05 descriptors so): the ISA rule is
    broken (an error in strict mode, a finding in lenient mode), and the copy is the one of the
    0b001 descriptor (docs/emulator.md A52)."""
    ptx0 = cp_kernel([("32x128b.warpx4", 0, 0, make_desc(BUF, 0, 128, 0, fixed=0))],
                     smem_bytes=4096)
    ptx1 = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096)
    assemble(ptx0)
    expect(ptx0, "tcgen05.cp.", r"bits 46-48 = 0b000; the PTX ISA .* fixes them at 0b001.*"
                                r"ISA rule smem-descriptor-version", strict=True)
    src = np.arange(1024, dtype=np.uint32).view(np.uint8).copy()
    out0, out1 = np.zeros((128, 32), np.uint32), np.zeros((128, 32), np.uint32)
    got = run_ptx(ptx0, "k", [src, out0], strict=False)
    want = run_ptx(ptx1, "k", [src, out1], strict=False)
    assert [(f.rule, f.line) for f in got.findings] == [
        ("smem-descriptor-version", line_of(ptx0, "tcgen05.cp."))]
    assert not want.findings
    np.testing.assert_array_equal(out0, out1)
    assert out1.any()


def test_kernel_exit_with_tmem_allocated(assemble):
    ptx = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096, dealloc=False)
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"kernel exit with TMEM still allocated.*\[0, 32\) "
                                             r"allocated at line \d+"):
        run_cp(ptx)
    res = run_cp(ptx, strict=False)  # snapshot taken at kernel end
    assert res.tmem[0][0, 0] == 0x03020100 or res.tmem[0][0, 0] != 0xDEADBEEF


def test_dealloc_wrong_ncols_and_double_free(assemble):
    base = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096)
    ptx = base.replace("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 32;",
                       "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 64;")
    assemble(ptx)
    expect(ptx, "tcgen05.dealloc", r"nCols=64 differs from the 32 columns")
    ptx = base.replace("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 32;",
                       "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 32;\n"
                       "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 32;")
    assemble(ptx)
    expect(ptx, "tcgen05.dealloc", r"double free", nth=1)


def test_alloc_after_relinquish_and_bad_ncols(assemble):
    base = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096)
    ptx = base.replace("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
                       "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
                       "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;")
    assemble(ptx)
    expect(ptx, "tcgen05.alloc", r"after tcgen05.relinquish_alloc_permit", nth=1)
    ptx = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096, ncols=16,
                    read_cols=16)
    expect(ptx, "tcgen05.alloc", r"nCols=16: must be a power of 2 in \[32, 512\]")


def test_mixed_cta_group(assemble):
    base = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096)
    ptx = base.replace("tcgen05.relinquish_alloc_permit.cta_group::1",
                       "tcgen05.relinquish_alloc_permit.cta_group::2")
    expect(ptx, "relinquish_alloc_permit", r"mixed .cta_group values")


def test_ld_outside_lane_quarter(assemble):
    base = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096)
    ptx = base.replace("tcgen05.ld.sync.aligned.32x32b.x32.b32",
                       "add.s32 %r16, %r16, 1048576;\n\ttcgen05.ld.sync.aligned.32x32b.x32.b32")
    assemble(ptx)
    expect(ptx, "tcgen05.ld.", r"outside warp rank 0's lanes 0..31")


def test_ld_relative_lane_field_warns(assemble):
    ptx = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096, lane_abs=False)
    assemble(ptx)
    res = run_cp(ptx)
    assert sum("lane field 0 is not inside warp" in w for w in res.warnings) == 3


def test_uninitialised_and_misaligned_mbarrier(assemble):
    base = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096)
    ptx = base.replace("mbarrier.init.shared::cta.b64 [tslot+8], 1;", "mov.u32 %r40, 0;")
    assemble(ptx)
    expect(ptx, "mbarrier.try_wait", r"uninitialised mbarrier at shared 0x8")
    ptx = base.replace("mbarrier.init.shared::cta.b64 [tslot+8], 1;",
                       "mbarrier.init.shared::cta.b64 [tslot+4], 1;")
    expect(ptx, "mbarrier.init", r"0x4 is not 8-byte aligned")


def _one_thread(body, regs=".reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n\t.reg .pred %p<8>;",
                shared=".shared .align 16 .b8 sm[64];"):
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 1 k_param_0\n)\n{\n\t"
            + regs + "\n\t" + shared + "\n\tld.param.u64 %rd1, [k_param_0];\n"
            "\tcvta.to.global.u64 %rd1, %rd1;\n" + body + "\n\tret;\n}\n")


def test_out_of_bounds_global_and_shared(assemble):
    ptx = _one_thread("\tst.global.u32 [%rd1+16], %r1;")
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"line \d+: .*out-of-bounds global access of 4 "
                                             r"bytes at 0x[0-9a-f]+; nearest allocation.*size 16"):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(1, 1, 1))
    ptx = _one_thread("\tmov.u32 %r2, sm;\n\tld.shared.u32 %r3, [%r2+64];")
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"out-of-bounds shared access of 4 bytes at shared "
                                             r"offset 0x40.*\[0x0, 0x40\)"):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(1, 1, 1))


def test_misaligned_vector_access(assemble):
    ptx = _one_thread("\tld.global.v2.u32 {%r1, %r2}, [%rd1+4];")
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"misaligned 8-byte ld"):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(1, 1, 1))


def test_unknown_instruction():
    ptx = _one_thread("\tfrobnicate.b32 %r1, %r2;")
    with pytest.raises(EmulationError, match=r"line \d+: unknown instruction `frobnicate.b32` "
                                             r"\(mnemonic `frobnicate`\)"):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(1, 1, 1))


def test_tcgen05_shift_rejected_not_skipped():
    ptx = _one_thread("\ttcgen05.shift.cta_group::1.down [%r1];")
    with pytest.raises(EmulationError, match=r"line \d+: .*not emulated"):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(1, 1, 1))


def test_convergence_error_names_lanes(assemble):
    body = ("\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra $L__skip;\n"
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 32;\n"
            "\tbra.uni $L__join;\n$L__skip:\n"
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 32;\n"
            "$L__join:\n\tld.shared.u32 %r2, [sm];\n"
            "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;")
    ptx = _one_thread(body)
    assemble(ptx)
    with pytest.raises(EmulationError) as ei:
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(32, 1, 1))
    msg = str(ei.value)
    assert "convergence error in CTA 0 warp 0" in msg
    assert re.search(r"lanes 0 at line \d+", msg) and re.search(r"lanes 1-31 at line \d+", msg)


def test_deadlock_report(assemble):
    body = ("\tmov.u32 %r1, %tid.x;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L__w;\n"
            "\tmbarrier.init.shared::cta.b64 [sm], 2;\n$L__w:\n\tbar.sync 0;\n"
            "\tmbarrier.arrive.shared::cta.b64 %rd2, [sm];\n\tmov.u32 %r3, 0;\n$L__spin:\n"
            "\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [sm], %r3;\n\t@!%p2 bra $L__spin;")
    ptx = _one_thread(body)
    assemble(ptx)
    # 64 threads arrive on a count-2 barrier: the phase completes; a count of 100 deadlocks
    bad = ptx.replace("[sm], 2;", "[sm], 100;")
    with pytest.raises(EmulationError) as ei:
        run_ptx(bad, "k", [np.zeros(4, np.uint32)], block=(64, 1, 1))
    msg = str(ei.value)
    assert msg.startswith("deadlock")
    assert re.search(r"CTA 0 warp 1 lanes 0-31: line \d+ `mbarrier.try_wait.parity.shared::cta"
                     r".b64 %p2, \[sm\], %r3`: waiting in mbarrier wait on mbarrier at shared 0x0 "
                     r"of CTA 0 \(phase 0, pending 36/100", msg), msg


def test_store_into_live_mbarrier(assemble):
    body = "\tmbarrier.init.shared::cta.b64 [sm], 1;\n\tst.shared.u32 [sm+4], %r1;"
    ptx = _one_thread(body)
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"overwrites a live mbarrier"):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(1, 1, 1))


def test_store_into_smem_read_by_inflight_cp(assemble):
    base = cp_kernel([("32x128b.warpx4", 0, 0, OK_DESC)], smem_bytes=4096)
    ptx = base.replace("\ttcgen05.commit.", "\tst.shared.u32 [buf+32], %r1;\n\ttcgen05.commit.")
    assemble(ptx)
    expect(ptx, "st.shared.u32 [buf+32]", r"write-after-read race.*tcgen05.cp issued at line \d+")


def test_deadlock_report_names_the_blocking_bar_sync(assemble):
    """Threads blocked in bar.sync were reported at the instruction after it."""
    body = ("\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n"
            "\t@%p1 mbarrier.init.shared::cta.b64 [sm], 1;\n\t@%p1 bra $L__w;\n"
            "\tbar.sync 0;\n\tmov.u32 %r2, 1;\n$L__w:\n\tmov.u32 %r3, 0;\n"
            "\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [sm], %r3;\n\t@!%p2 bra $L__w;")
    ptx = _one_thread(body)
    assemble(ptx)
    with pytest.raises(EmulationError) as ei:
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(32, 1, 1))
    msg = str(ei.value)
    assert msg.startswith("deadlock")
    bar = line_of(ptx, "bar.sync 0")
    assert f"CTA 0 warp 0 lanes 1-31: line {bar} `bar.sync 0`: blocked in bar.sync" in msg, msg


@pytest.mark.parametrize("inst,match", [
    # found by bench/adversary.py and an operand-shape fuzz: IndexError / ValueError in decoders
    ("setp.ne.b32 %p1, %r2;", r"expected 3 to 4 operands, got 2"),
    ("mov.u32 %r1, {};", r"empty vector operand `\{\}`"),
    ("st.shared.v4.b32 [sm];", r"expected 2 to 3 operands, got 1"),
    ("mbarrier.init.shared.b64 [sm];", r"expected 2 operands, got 1"),
    ("mbarrier.arrive.shared.b64 %rd2;", r"expected 2 to 3 operands, got 1"),
    ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm];", r"expected 2 operands"),
    ("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2;", r"expected 2 operands, got 1"),
    ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64;",
     r"expected 1 to 2 operands, got 0"),
    ("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r1, %r2, %r3, %r4};", r"expected 2 to 3 operands"),
    ("vote.sync.any.pred %p1, %p2;", r"expected 3 operands, got 2"),
])
def test_wrong_operand_counts_name_the_line(inst, match):
    ptx = _one_thread("\t" + inst)
    with pytest.raises(EmulationError, match=match) as ei:
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(32, 1, 1))
    assert ei.value.line == line_of(ptx, inst)
