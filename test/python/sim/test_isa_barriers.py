"""bar / barrier (sync, arrive, red.popc; .cta, .aligned), barrier.cluster (arrive / wait with
.relaxed, .release, .acquire, .aligned) and bar.warp.sync on tile-sim: every row of the ISA coverage
table registered to this test, with its own opcode, checked by what a barrier guarantees (PTX ISA
"bar, barrier", "barrier.cluster", "bar.warp.sync"): a store made before it by one thread is seen
after it by another, for a thread that would otherwise run first -- so a barrier that let a thread
through early reads 0 -- and bar.red.popc's count.
"""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_barriers.py::"
HEAD = ".version 8.8\n.target sm_90a\n.address_size 64\n.shared .align 4 .b32 buf[256];\n"


def kernel(body, cluster=False):
    return (HEAD + ".visible .entry k(.param .u64 pout)" +
            (" .reqnctapercluster 2, 1, 1" if cluster else "") + "\n{\n"
            "\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n"
            "\tld.param.u64 %rd1, [pout];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 5;\n"
            "\tmov.u32 %r3, buf;\n\tshl.b32 %r4, %r1, 2;\n\tadd.u32 %r5, %r3, %r4;\n"
            "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd2, %rd1, %rd2;\n"
            "\tmov.u32 %r10, 1;\n\tmov.u32 %r11, 128;\n" + body + "\tret;\n}\n")


# every thread stores 3·tid, passes the barrier (all 128 threads), reads the next warp's store
ALL_SYNC = ("\tmul.lo.u32 %r6, %r1, 3;\n\tst.shared.u32 [%r5], %r6;\n\t{op} %r10;\n"
            "\tadd.u32 %r7, %r1, 32;\n\tand.b32 %r7, %r7, 127;\n\tshl.b32 %r7, %r7, 2;\n"
            "\tadd.u32 %r7, %r3, %r7;\n\tld.shared.u32 %r8, [%r7];\n\tst.global.u32 [%rd2], %r8;\n")
# warps 2-3 store and arrive on barrier 1 for 128 threads, warps 0-1 (which would run first) wait
# on it and read the store of the thread 64 above; warps 2-3 store nothing to global memory
PROD_CONS = ("\tsetp.ge.u32 %p1, %r2, 2;\n\t@!%p1 bra CONSUMER;\n"
             "\tmul.lo.u32 %r6, %r1, 3;\n\tst.shared.u32 [%r5], %r6;\n"
             "\t{arrive} %r10, %r11;\n\tbra.uni END;\n"
             "CONSUMER:\n\t{sync} %r10, %r11;\n"
             "\tadd.u32 %r7, %r5, 256;\n\tld.shared.u32 %r8, [%r7];\n"
             "\tst.global.u32 [%rd2], %r8;\nEND:\n")
# bar.red.popc over every thread: the count of (tid & 5) == 1, and the next warp's store seen
RED = ("\tmul.lo.u32 %r6, %r1, 3;\n\tst.shared.u32 [%r5], %r6;\n"
       "\tand.b32 %r9, %r1, 5;\n\tsetp.eq.u32 %p2, %r9, 1;\n\t{op} %r9, %r10, %p2;\n"
       "\tadd.u32 %r7, %r1, 32;\n\tand.b32 %r7, %r7, 127;\n\tshl.b32 %r7, %r7, 2;\n"
       "\tadd.u32 %r7, %r3, %r7;\n\tld.shared.u32 %r8, [%r7];\n\tshl.b32 %r9, %r9, 16;\n"
       "\tor.b32 %r8, %r8, %r9;\n\tst.global.u32 [%rd2], %r8;\n")


def _run(ptx, grid=1, threads=128, n=128):
    out = np.zeros(n, np.uint32)
    res = run_ptx(ptx, "k", [out], grid=(grid, 1, 1), block=(threads, 1, 1), strict=False)
    assert res.findings == [], res.findings
    return out


ROWS = isa_rows(T + "test_barrier_rows")


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_barrier_rows(row, assemble):
    form = row["form"]
    op = row["text"].split(" ")[0]
    tid = np.arange(128)
    if form.startswith("barrier.cluster"):
        _cluster(op)
        return
    if form == "bar.warp.sync":
        _warp_sync(op)
        return
    if ".red.popc" in form:
        ptx = kernel(RED.replace("{op}", op))
        assemble(ptx, "sm_90a")
        out = _run(ptx)
        count = sum(1 for t in range(128) if (t & 5) == 1)
        assert (out == (((tid + 32) % 128) * 3 | count << 16)).all()
        return
    if ".arrive" in form:
        ptx = kernel(PROD_CONS.replace("{arrive}", op).replace("{sync}", "barrier.sync"))
    else:
        ptx = kernel(ALL_SYNC.replace("{op}", op))
        assemble(ptx, "sm_90a")
        out = _run(ptx)
        assert (out == ((tid + 32) % 128) * 3).all()
        ptx = kernel(PROD_CONS.replace("{arrive}", "bar.arrive").replace("{sync}", op))
    assemble(ptx, "sm_90a")
    out = _run(ptx)
    assert (out[:64] == 3 * np.arange(64, 128)).all() and (out[64:] == 0).all()


def _cluster(op):
    """Each CTA of a 2-CTA cluster stores into its peer's shared memory (mapa), both pass
    barrier.cluster (the row's arrive or wait, the other plain), each reads its own word."""
    arrive = op if ".arrive" in op else "barrier.cluster.arrive"
    wait = op if ".wait" in op else "barrier.cluster.wait"
    # .relaxed takes the release away: a fence before it restores the ISA's guarantee
    fence = "\tfence.acq_rel.cluster;\n" if ".relaxed" in arrive else ""
    body = ("\tmov.u32 %r6, %cluster_ctarank;\n\txor.b32 %r7, %r6, 1;\n"
            "\tmapa.shared::cluster.u32 %r8, %r5, %r7;\n\tadd.u32 %r9, %r6, 100;\n"
            "\tst.shared::cluster.u32 [%r8], %r9;\n" + fence +
            f"\t{arrive};\n\t{wait};\n"
            "\tld.shared.u32 %r9, [%r5];\n\tmad.lo.u32 %r7, %r6, 64, %r1;\n"
            "\tmul.wide.u32 %rd3, %r7, 4;\n\tadd.u64 %rd3, %rd1, %rd3;\n"
            "\tst.global.u32 [%rd3], %r9;\n")
    out = _run(kernel(body, cluster=True), grid=2, threads=64)
    assert (out[:64] == 101).all() and (out[64:] == 100).all()  # each holds its peer's store


def _warp_sync(op):
    """The two halves of a warp diverge and store, pass bar.warp.sync on the whole warp, then read
    the other half's store.  (tile-sim asks the lanes to meet at one bar.warp.sync instruction,
    the ISA's rule for sm_6x; on sm_70 and later they may meet at different ones.)"""
    body = ("\tsetp.lt.u32 %p1, %r1, 16;\n\tmul.lo.u32 %r6, %r1, 3;\n\tmov.u32 %r12, -1;\n"
            "\t@%p1 bra A;\n\tst.shared.u32 [%r5], %r6;\n"
            "\tbra.uni J;\nA:\n\tst.shared.u32 [%r5], %r6;\nJ:\n"
            f"\t{op} %r12;\n"
            "\txor.b32 %r7, %r1, 16;\n\tshl.b32 %r7, %r7, 2;\n\tadd.u32 %r7, %r3, %r7;\n"
            "\tld.shared.u32 %r8, [%r7];\n\tst.global.u32 [%rd2], %r8;\n")
    out = _run(kernel(body), threads=32, n=32)
    assert (out == (np.arange(32) ^ 16) * 3).all()
