"""The bug zoo: small warp-specialised PTX kernels, each with one bug users of such kernels meet,
and its fixed twin.  Every bug passes under tile-sim's default schedule and shows only under some
schedules; bench/zoo/run.py explores each (docs/emulator.md, schedule exploration).

Each entry: ``BUGS[name] = Bug(what, ptx(fixed: bool), args(), launch keyword arguments)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

HEADER = ".version 8.8\n.target sm_100a\n.address_size 64\n"
REGS = ("\t.reg .pred %p<8>;\n\t.reg .b32 %r<64>;\n\t.reg .b64 %rd<16>;\n\t.reg .b128 %q<2>;\n"
        "\t.shared .align 128 .b8 sm[2048];\n")
CLUSTER_SYNC = "\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n"
# lane 0 of CTA 0 of a 2-CTA cluster initialises the mbarrier at sm (count 1) and fences it for the cluster;
# %p1: not lane 0, %p2: not CTA 0 (the zoo's cluster kernels that hand words to CTA 0)
CTA0_INIT = ("\tmov.u32 %r4, %cluster_ctarank;\n\tsetp.ne.u32 %p1, %r1, 0;\n"
             "\tsetp.ne.u32 %p2, %r4, 0;\n\tor.pred %p3, %p1, %p2;\n\t@%p3 bra $L__i;\n"
             "\tmbarrier.init.shared::cta.b64 [sm], 1;\n\tfence.mbarrier_init.release.cluster;\n")


def _kernel(body: str) -> str:
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 8 k_param_0,\n"
            "\t.param .u64 .ptr .global .align 8 k_param_1\n)\n{\n" + REGS
            + "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tld.param.u64 %rd2, [k_param_1];\n\tcvta.to.global.u64 %rd2, %rd2;\n"
            "\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 5;\n\tand.b32 %r3, %r1, 31;\n"
            + body + "$L__end:\n\tret;\n}\n")


# barriers at sm+0 (full[0]), sm+8 (full[1]), sm+16 (empty[0]), sm+24 (empty[1]); data from sm+128
_INIT = ("\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L__i;\n"
         "\tmbarrier.init.shared::cta.b64 [sm], {full};\n"
         "\tmbarrier.init.shared::cta.b64 [sm+8], {full};\n"
         "\tmbarrier.init.shared::cta.b64 [sm+16], {empty};\n"
         "\tmbarrier.init.shared::cta.b64 [sm+24], {empty};\n"
         "\tfence.mbarrier_init.release.cluster;\n"
         "$L__i:\n\tbar.sync 0;\n")


def ring_release(fixed: bool) -> str:
    """A two-stage ring: warp 0 lane 0 produces 6 rounds into stage r % 2 (waits `empty`, writes,
    arrives on `full`); warp 1 waits on `full`, reads the stage, arrives on `empty`.  Bug: the
    consumer releases the stage (arrives on `empty`) before it has read it."""
    return _ring(fixed, early_release=True)


def missing_arrive(fixed: bool) -> str:
    """The ring of :func:`ring_release` with two consumer warps, both of which read each stage;
    lane 0 of each releases it (`empty` counts 2).  Bug: the second warp's arrive is missing and
    `empty` counts 1 (so that nothing hangs), so a stage is released once the first consumer warp
    is done with it, while the second may not have read it yet."""
    return _ring(fixed, early_release=False, consumers=2)


def _ring(fixed, early_release, consumers=1, parity_bug=False, work=0):
    read = "\tld.shared.u32 %r12, [%rd6];\n\tadd.u32 %r13, %r13, %r12;\n"
    if work:  # the consumer's work on the stage it read
        read += ("\tmov.u32 %r14, 0;\n$L__work:\n\tadd.u32 %r15, %r15, %r12;\n"
                 f"\tadd.u32 %r14, %r14, 1;\n\tsetp.lt.u32 %p5, %r14, {work};\n"
                 "\t@%p5 bra $L__work;\n")
    if consumers == 1:
        release = "\tmbarrier.arrive.release.cta.shared::cta.b64 %rd7, [%rd8];\n"
        empty = 32
    else:  # lane 0 of each consumer warp (fixed), of the first only (bug)
        who = "\tsetp.eq.u32 %p7, %r3, 0;\n" if fixed else "\tsetp.eq.u32 %p7, %r1, 32;\n"
        release = who + "\t@%p7 mbarrier.arrive.release.cta.shared::cta.b64 %rd7, [%rd8];\n"
        empty = consumers if fixed else 1
    cons = (release + read) if early_release and not fixed else (read + release)
    return _kernel(_INIT.format(full=1, empty=empty) + (
        "\tmov.u32 %r20, 0;\n\tmov.u32 %r13, 0;\n\tmov.u32 %r21, sm;\n"
        "\tsetp.ne.u32 %p2, %r2, 0;\n\t@%p2 bra $L__cons;\n"
        "\tsetp.ne.u32 %p3, %r3, 0;\n\t@%p3 bra $L__end;\n"
        # producer: stage s = r & 1, round phase of stage = (r >> 1) & 1
        "$L__p:\n\tand.b32 %r22, %r20, 1;\n\tshr.u32 %r23, %r20, 1;\n\tand.b32 %r23, %r23, 1;\n"
        "\tsetp.lt.u32 %p5, %r20, 2;\n\t@%p5 bra $L__pw_done;\n"
        "\txor.b32 %r24, %r23, 1;\n\tshl.b32 %r25, %r22, 3;\n\tadd.u32 %r26, %r21, %r25;\n"
        "\tadd.u32 %r26, %r26, 16;\n\tcvt.u64.u32 %rd8, %r26;\n"
        "$L__pw:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [%rd8], %r24;\n"
        "\t@!%p4 bra $L__pw;\n"
        "$L__pw_done:\n\tshl.b32 %r25, %r22, 2;\n\tadd.u32 %r27, %r21, %r25;\n"
        "\tadd.u32 %r27, %r27, 128;\n\tcvt.u64.u32 %rd6, %r27;\n"
        "\tmul.lo.u32 %r28, %r20, 10;\n\tadd.u32 %r28, %r28, 3;\n\tst.shared.u32 [%rd6], %r28;\n"
        "\tshl.b32 %r25, %r22, 3;\n\tadd.u32 %r26, %r21, %r25;\n\tcvt.u64.u32 %rd9, %r26;\n"
        "\tmbarrier.arrive.release.cta.shared::cta.b64 %rd7, [%rd9];\n"
        "\tadd.u32 %r20, %r20, 1;\n\tsetp.lt.u32 %p6, %r20, 6;\n\t@%p6 bra $L__p;\n"
        "\tbra.uni $L__end;\n"
        # consumer: warp 1
        f"$L__cons:\n\tsetp.gt.u32 %p3, %r2, {consumers};\n\t@%p3 bra $L__end;\n"
        "$L__c:\n\tand.b32 %r22, %r20, 1;\n\tshr.u32 %r23, %r20, 1;\n\tand.b32 %r23, %r23, 1;\n"
        "\tshl.b32 %r25, %r22, 3;\n\tadd.u32 %r26, %r21, %r25;\n\tcvt.u64.u32 %rd9, %r26;\n"
        "\tadd.u32 %r26, %r26, 16;\n\tcvt.u64.u32 %rd8, %r26;\n"
        "\tshl.b32 %r25, %r22, 2;\n\tadd.u32 %r27, %r21, %r25;\n\tadd.u32 %r27, %r27, 128;\n"
        "\tcvt.u64.u32 %rd6, %r27;\n"
        + ("\txor.b32 %r23, %r23, 1;\n" if parity_bug else "") +
        "$L__cw:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [%rd9], %r23;\n"
        "\t@!%p4 bra $L__cw;\n" + cons +
        "\tadd.u32 %r20, %r20, 1;\n\tsetp.lt.u32 %p6, %r20, 6;\n\t@%p6 bra $L__c;\n"
        "\tmul.wide.u32 %rd4, %r1, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
        "\tst.global.u32 [%rd5], %r13;\n"))


def expect_tx_box(fixed: bool) -> str:
    """Warp 0 lane 0 expects the bytes of two 256-byte boxes on `full` and copies both with
    cp.async.bulk; warp 1 waits on `full` and stores their sum.  Bug: expect_tx counts one box, so
    the phase completes once the first box lands, while the second may still be in flight."""
    nbytes = 512 if fixed else 256
    return _kernel(_INIT.format(full=1, empty=1) + (
        "\tsetp.ne.u32 %p2, %r2, 0;\n\t@%p2 bra $L__cons;\n"
        "\tsetp.ne.u32 %p3, %r3, 0;\n\t@%p3 bra $L__end;\n"
        f"\tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [sm], {nbytes};\n"
        "\tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [sm+256], [%rd1], 256, "
        "[sm];\n\tadd.s64 %rd4, %rd1, 256;\n"
        "\tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [sm+512], [%rd4], 256, "
        "[sm];\n\tbra.uni $L__end;\n"
        "$L__cons:\n\tsetp.ne.u32 %p3, %r2, 1;\n\t@%p3 bra $L__end;\n"
        "$L__w:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [sm], 0;\n"
        "\t@!%p4 bra $L__w;\n"
        "\tshl.b32 %r4, %r3, 2;\n\tmov.u32 %r5, sm;\n\tadd.u32 %r5, %r5, %r4;\n"
        "\tld.shared.u32 %r11, [%r5+256];\n\tld.shared.u32 %r12, [%r5+384];\n"
        "\tld.shared.u32 %r13, [%r5+512];\n\tld.shared.u32 %r14, [%r5+640];\n"
        "\tadd.u32 %r11, %r11, %r12;\n\tadd.u32 %r11, %r11, %r13;\n\tadd.u32 %r11, %r11, %r14;\n"
        "\tmul.wide.u32 %rd4, %r3, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
        "\tst.global.u32 [%rd5], %r11;\n"))


def named_barrier_count(fixed: bool) -> str:
    """Warps 0-1 (64 threads) synchronise on named barrier 1 with count 64; warp 2 synchronises
    alone on a named barrier with count 32.  Bug: warp 2 uses id 1 too, so when it arrives while
    warp 0 waits, the barrier has two counts (the CLC-scheduler hang of flashinfer#4533)."""
    other = 2 if fixed else 1
    return _kernel(
        "\tsetp.gt.u32 %p2, %r2, 1;\n\t@%p2 bra $L__g2;\n"
        "\tbar.sync 1, 64;\n\tbra.uni $L__out;\n"
        f"$L__g2:\n\tsetp.ne.u32 %p3, %r2, 2;\n\t@%p3 bra $L__end;\n\tbar.sync {other}, 32;\n"
        "$L__out:\n\tmul.wide.u32 %rd4, %r1, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
        "\tst.global.u32 [%rd5], %r1;\n")


def tile_counter(fixed: bool) -> str:
    """A dynamic tile scheduler: lane 0 of each of 4 warps takes the next tile from a global
    counter until the tiles run out and counts the tile as done.  Bug: the counter is read and
    written back with two volatile accesses instead of one atomic add, so two warps can take the
    same tile (one done twice, the counter's order lost)."""
    take = ("\tatom.global.add.u32 %r10, [%rd1], 1;\n" if fixed else
            "\tld.volatile.global.u32 %r10, [%rd1];\n\tadd.u32 %r11, %r10, 1;\n"
            "\tst.volatile.global.u32 [%rd1], %r11;\n")
    return _kernel(
        "\tsetp.ne.u32 %p3, %r3, 0;\n\t@%p3 bra $L__end;\n"
        "$L__t:\n" + take +
        "\tsetp.ge.u32 %p4, %r10, 6;\n\t@%p4 bra $L__end;\n"
        "\tmul.wide.u32 %rd4, %r10, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
        "\tred.global.add.u32 [%rd5], 1;\n\tbra.uni $L__t;\n")


def store_fence(fixed: bool) -> str:
    """Each of 64 threads writes a word of shared memory; after a bar.sync, thread 0 copies the
    256 bytes to global memory with cp.async.bulk (the async proxy) and waits for the bulk group.
    Bug: no fence.proxy.async between the generic-proxy writes and the async-proxy read."""
    fence = "\tfence.proxy.async.shared::cta;\n" if fixed else ""
    return _kernel(
        "\tshl.b32 %r4, %r1, 2;\n\tmov.u32 %r5, sm;\n\tadd.u32 %r5, %r5, %r4;\n"
        "\tadd.u32 %r6, %r1, 100;\n\tst.shared.u32 [%r5+256], %r6;\n" + fence +
        "\tbar.sync 0;\n\tsetp.ne.u32 %p2, %r1, 0;\n\t@%p2 bra $L__end;\n"
        "\tcp.async.bulk.global.shared::cta.bulk_group [%rd2], [sm+256], 256;\n"
        "\tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;\n")


def peer_release(fixed: bool) -> str:
    """A cluster of 2 CTAs: lane 0 of CTA 1 produces 4 rounds into CTA 0's shared memory
    (st.shared::cluster) and arrives on CTA 0's `full`; lane 0 of CTA 0 waits on `full`, reads,
    and releases the slot by arriving on CTA 1's `empty`.  Bug: CTA 0 releases its peer before
    it has read the slot, so CTA 1 may overwrite it first."""
    read = "\tld.shared.u32 %r12, [sm+128];\n\tadd.u32 %r13, %r13, %r12;\n"
    release = ("\tadd.u32 %r32, %r31, 16;\n"
               "\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r32];\n")
    cons = (read + release) if fixed else (release + read)
    return _kernel(
        "\tmov.u32 %r4, %cluster_ctarank;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L__i;\n"
        "\tmbarrier.init.shared::cta.b64 [sm], 1;\n\tmbarrier.init.shared::cta.b64 [sm+16], 1;\n"
        "\tfence.mbarrier_init.release.cluster;\n$L__i:\n" + CLUSTER_SYNC +
        "\tmov.u32 %r20, 0;\n\tmov.u32 %r13, 0;\n\tmov.u32 %r21, sm;\n"
        "\tsetp.ne.u32 %p3, %r1, 0;\n\t@%p3 bra $L__done;\n"
        "\tsetp.ne.u32 %p2, %r4, 1;\n\t@%p2 bra $L__cons;\n"
        "\tmapa.shared::cluster.u32 %r30, %r21, 0;\n"
        "$L__p:\n\tsetp.eq.u32 %p5, %r20, 0;\n\t@%p5 bra $L__pfill;\n"
        "\tadd.u32 %r24, %r20, 1;\n\tand.b32 %r24, %r24, 1;\n"
        "$L__pw:\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p4, [sm+16], %r24;\n"
        "\t@!%p4 bra $L__pw;\n"
        "$L__pfill:\n\tmul.lo.u32 %r28, %r20, 10;\n\tadd.u32 %r28, %r28, 3;\n"
        "\tst.shared::cluster.u32 [%r30+128], %r28;\n"
        "\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r30];\n"
        "\tadd.u32 %r20, %r20, 1;\n\tsetp.lt.u32 %p6, %r20, 4;\n\t@%p6 bra $L__p;\n"
        "\tbra.uni $L__done;\n"
        "$L__cons:\n\tmapa.shared::cluster.u32 %r31, %r21, 1;\n"
        "$L__c:\n\tand.b32 %r23, %r20, 1;\n"
        "$L__cw:\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p4, [sm], %r23;\n"
        "\t@!%p4 bra $L__cw;\n" + cons +
        "\tadd.u32 %r20, %r20, 1;\n\tsetp.lt.u32 %p6, %r20, 4;\n\t@%p6 bra $L__c;\n"
        "\tst.global.u32 [%rd2], %r13;\n"
        "$L__done:\n" + CLUSTER_SYNC)


def phase_alias(fixed: bool) -> str:
    """One mbarrier `full` (count 1) signals two hand-offs: warp 0 lane 0 writes word A and
    arrives (phase 0), works a while, writes word B and arrives (phase 1); warp 1 waits on parity
    0, reads A, acknowledges on `empty`, waits on parity 1 and reads B.  Bug: the producer does
    not wait for the acknowledgement, so it can complete both phases before the consumer's first
    wait, which then sees phase 2, of parity 0 again incomplete, and waits forever (a parity
    wait cannot tell phase k from k + 2).  The default schedule, in which the producer's work
    ends its slice, passes."""
    ack = ("$L__pw:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [sm+16], 0;\n"
           "\t@!%p4 bra $L__pw;\n") if fixed else ""
    return _kernel(_INIT.format(full=1, empty=1) + (
        "\tsetp.ne.u32 %p2, %r2, 0;\n\t@%p2 bra $L__cons;\n"
        "\tsetp.ne.u32 %p3, %r3, 0;\n\t@%p3 bra $L__end;\n"
        "\tmov.u32 %r10, 11;\n\tst.shared.u32 [sm+128], %r10;\n"
        "\tmbarrier.arrive.release.cta.shared::cta.b64 %rd3, [sm];\n"
        "\tmov.u32 %r14, 0;\n"
        "$L__work:\n\tadd.u32 %r10, %r10, 1;\n\tadd.u32 %r14, %r14, 1;\n"
        "\tsetp.lt.u32 %p6, %r14, 40;\n\t@%p6 bra $L__work;\n" + ack +
        "\tst.shared.u32 [sm+132], %r10;\n"
        "\tmbarrier.arrive.release.cta.shared::cta.b64 %rd3, [sm];\n\tbra.uni $L__end;\n"
        "$L__cons:\n\tsetp.ne.u32 %p3, %r2, 1;\n\t@%p3 bra $L__end;\n"
        "$L__w0:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [sm], 0;\n"
        "\t@!%p4 bra $L__w0;\n\tld.shared.u32 %r11, [sm+128];\n"
        "\tsetp.eq.u32 %p5, %r3, 0;\n"
        "\t@%p5 mbarrier.arrive.release.cta.shared::cta.b64 %rd3, [sm+16];\n"
        "$L__w1:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [sm], 1;\n"
        "\t@!%p4 bra $L__w1;\n\tld.shared.u32 %r12, [sm+132];\n"
        "\tmad.lo.u32 %r11, %r12, 100, %r11;\n"
        "\tmul.wide.u32 %rd4, %r3, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
        "\tst.global.u32 [%rd5], %r11;\n"))


def st_async_tx(fixed: bool) -> str:
    """A cluster of 2 CTAs: lane 0 of CTA 0 expects the bytes of two words on its mbarrier, then
    after a cluster barrier lane 0 of CTA 1 pushes the two words into CTA 0's shared memory with
    st.async, each completing its bytes on that mbarrier; CTA 0 waits and stores both words.
    Bug: expect_tx counts 4 bytes, one st.async of the two, so the phase completes once the first
    word lands, while the second may still be in flight."""
    nbytes = 8 if fixed else 4
    return _kernel(
        CTA0_INIT +
        f"\tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [sm], {nbytes};\n"
        "$L__i:\n" + CLUSTER_SYNC +
        "\t@%p1 bra $L__done;\n\tmov.u32 %r21, sm;\n\t@!%p2 bra $L__cons;\n"
        "\tmapa.shared::cluster.u32 %r30, %r21, 0;\n\tadd.u32 %r31, %r30, 128;\n"
        "\tmov.u32 %r10, 7;\n\tmov.u32 %r11, 9;\n"
        "\tst.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r31], %r10, [%r30];\n"
        "\tadd.u32 %r31, %r30, 132;\n"
        "\tst.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r31], %r11, [%r30];\n"
        "\tbra.uni $L__done;\n"
        "$L__cons:\n"
        "$L__w:\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p4, [sm], 0;\n"
        "\t@!%p4 bra $L__w;\n"
        "\tld.shared.u32 %r12, [sm+128];\n\tld.shared.u32 %r13, [sm+132];\n"
        "\tmad.lo.u32 %r12, %r13, 100, %r12;\n\tst.global.u32 [%rd2], %r12;\n"
        "$L__done:\n" + CLUSTER_SYNC)


def clc_response(fixed: bool) -> str:
    """A CLC tile scheduler (clusterlaunchcontrol, sm_100a): each CTA does its tile (adds its
    ctaid-based value to 32 words of the output), then thread 0 asks to cancel a cluster not yet
    launched and the CTA takes that cluster's tile, until no cancel succeeds.  Bug: the response
    is read without waiting on the mbarrier its 16 bytes complete on, so a late response reads
    as "nothing cancelled" (a tile never done) or as the previous one (a tile done twice)."""
    wait = ("$L__w:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [sm], %r10;\n"
            "\t@!%p2 bra $L__w;\n\txor.b32 %r10, %r10, 1;\n") if fixed else ""
    return _kernel(
        "\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r10, 0;\n\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\t@%p1 mbarrier.init.shared::cta.b64 [sm], 1;\n\tbar.sync 0;\n"
        "$L__t:\n\tmad.lo.u32 %r4, %r2, 32, %r1;\n\tmul.wide.u32 %rd3, %r4, 4;\n"
        "\tadd.s64 %rd4, %rd2, %rd3;\n\tmad.lo.u32 %r5, %r2, 10, 1;\n"
        "\tld.global.u32 %r6, [%rd4];\n\tadd.u32 %r5, %r5, %r6;\n\tst.global.u32 [%rd4], %r5;\n"
        "\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [sm], 16;\n"
        "\t@%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
        ".b128 [sm+16], [sm];\n" + wait +
        "\tld.shared.b128 %q1, [sm+16];\n"
        "\tclusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;\n\tbar.sync 0;\n"
        "\t@!%p3 bra $L__end;\n"
        "\tclusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r2, %q1;\n"
        "\tbra.uni $L__t;\n")


def cluster_init(fixed: bool) -> str:
    """A cluster of 2 CTAs: lane 0 of CTA 0 initialises its `full` mbarrier (fence.mbarrier_init),
    lane 0 of CTA 1 writes a word into CTA 0's shared memory and arrives on that remote `full`, and
    CTA 0 waits on it and stores the word.  Bug: the cluster barrier between the initialisation and
    the peer's first use is missing (only the CTA's own bar.sync is there), so the peer may arrive
    on the mbarrier before it is initialised -- an init that then lands resets the barrier and the
    arrival is lost (CUTLASS's pipelines end their init with a cluster-wide sync for this)."""
    return _kernel(
        CTA0_INIT +
        "$L__i:\n\tbar.sync 0;\n" + (CLUSTER_SYNC if fixed else "") +
        "\t@%p1 bra $L__done;\n\tmov.u32 %r21, sm;\n\t@!%p2 bra $L__cons;\n"
        "\tmapa.shared::cluster.u32 %r30, %r21, 0;\n\tmov.u32 %r10, 77;\n"
        "\tst.shared::cluster.u32 [%r30+128], %r10;\n"
        "\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r30];\n"
        "\tbra.uni $L__done;\n"
        "$L__cons:\n"
        "$L__w:\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p4, [sm], 0;\n"
        "\t@!%p4 bra $L__w;\n"
        "\tld.shared.u32 %r12, [sm+128];\n\tst.global.u32 [%rd2], %r12;\n"
        "$L__done:\n" + CLUSTER_SYNC)


def bar_publish(fixed: bool) -> str:
    """Named-barrier producer/consumer (the epilogue hand-off of warp-specialised Hopper kernels):
    warp 0 writes 32 words of shared memory and signals with bar.arrive 1, 64; warp 1 waits with
    bar.sync 1, 64 and stores the words.  Bug: warp 0 arrives before its stores, so the consumer
    may pass the barrier and read the words before they are written."""
    write = ("\tshl.b32 %r4, %r3, 2;\n\tmov.u32 %r5, sm;\n\tadd.u32 %r5, %r5, %r4;\n"
             "\tadd.u32 %r6, %r3, 100;\n\tst.shared.u32 [%r5+256], %r6;\n")
    arrive = "\tbar.arrive 1, 64;\n"
    return _kernel(
        "\tsetp.ne.u32 %p2, %r2, 0;\n\t@%p2 bra $L__cons;\n"
        + ((write + arrive) if fixed else (arrive + write)) + "\tbra.uni $L__end;\n"
        "$L__cons:\n\tsetp.ne.u32 %p3, %r2, 1;\n\t@%p3 bra $L__end;\n\tbar.sync 1, 64;\n"
        "\tshl.b32 %r4, %r3, 2;\n\tmov.u32 %r5, sm;\n\tadd.u32 %r5, %r5, %r4;\n"
        "\tld.shared.u32 %r11, [%r5+256];\n"
        "\tmul.wide.u32 %rd4, %r3, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
        "\tst.global.u32 [%rd5], %r11;\n")


def tile_broadcast(fixed: bool) -> str:
    """A dynamic tile scheduler of a persistent kernel: thread 0 takes the next tile from a global
    counter (atom.add) and broadcasts it through shared memory; after a bar.sync every warp reads
    it, works on the tile and lane 0 counts it as done, until the tiles run out.  Bug: the loop has one barrier,
    so thread 0 can take the next tile and overwrite the broadcast word before a slower warp read
    the previous one (the fix: a second bar.sync after the reads, as CUTLASS's tile schedulers
    order their broadcast buffer)."""
    again = "\tbar.sync 0;\n" if fixed else ""
    return _kernel(
        "\tsetp.eq.u32 %p1, %r1, 0;\n\tsetp.eq.u32 %p2, %r3, 0;\n"
        "$L__t:\n\t@%p1 atom.global.add.u32 %r10, [%rd1], 1;\n"
        "\t@%p1 st.shared.u32 [sm], %r10;\n\tbar.sync 0;\n"
        "\tld.shared.u32 %r11, [sm];\n" + again +
        "\tsetp.ge.u32 %p4, %r11, 6;\n\t@%p4 bra $L__end;\n"
        "\tmov.u32 %r14, 0;\n"  # the warp's work on its tile
        "$L__work:\n\tadd.u32 %r15, %r15, %r11;\n\tadd.u32 %r14, %r14, 1;\n"
        "\tsetp.lt.u32 %p5, %r14, 40;\n\t@%p5 bra $L__work;\n"
        "\tmul.wide.u32 %rd4, %r11, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
        "\t@%p2 red.global.add.u32 [%rd5], 1;\n\tbra.uni $L__t;\n")


@dataclass
class Bug:
    what: str
    ptx: Callable[[bool], str]
    block: int = 64
    #: tile-sim's default schedule already reports it (its happens-before check of async copies)
    default_finds: bool = False
    grid: tuple = (1, 1, 1)
    cluster: tuple = (1, 1, 1)

    kernel = "k"
    strict = True

    def launch(self) -> dict:
        return dict(grid=self.grid, block=(self.block, 1, 1), cluster=self.cluster)

    @staticmethod
    def args():
        return args()


def args():
    src = np.arange(1, 129, dtype=np.uint32)
    return [src, np.zeros(128, np.uint32)]


BUGS = {
    "ring-release": Bug("a ring stage released before its consumer read it", ring_release),
    "missing-arrive": Bug("a consumer warp's release of a ring stage is missing", missing_arrive,
                          block=96),
    "expect-tx-box": Bug("expect_tx counts one box of the two copied", expect_tx_box,
                         default_finds=True),
    "tile-counter": Bug("a tile scheduler's counter taken with load + store, not an atomic",
                        tile_counter, block=128),
    "peer-release": Bug("a cluster peer's slot released before it was read", peer_release,
                        block=32, grid=(2, 1, 1), cluster=(2, 1, 1)),
    "store-fence": Bug("a TMA store without fence.proxy.async after the shared-memory writes",
                       store_fence, default_finds=True),
    "named-barrier-count": Bug("a named-barrier id used by two groups with different thread "
                               "counts", named_barrier_count, block=96),
    "phase-alias": Bug("a parity wait on an mbarrier its producer may move two phases ahead",
                       phase_alias),
    "st-async-tx": Bug("expect_tx counts one st.async of the two a cluster peer pushes",
                       st_async_tx, block=32, grid=(2, 1, 1), cluster=(2, 1, 1)),
    "clc-response": Bug("a CLC tile scheduler reads its response before the mbarrier wait",
                        clc_response, block=32, grid=(4, 1, 1)),
    "cluster-init": Bug("a cluster peer arrives on an mbarrier before the cluster barrier that "
                        "makes its initialisation visible", cluster_init, block=32, grid=(2, 1, 1),
                        cluster=(2, 1, 1)),
    "tile-broadcast": Bug("a tile scheduler's broadcast word overwritten with the next tile before "
                          "every warp read it (one barrier per loop, not two)", tile_broadcast,
                          block=128),
    "bar-publish": Bug("a named-barrier producer arrives before the shared-memory writes it "
                       "announces", bar_publish),
}
