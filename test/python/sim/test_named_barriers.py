"""Named CTA barriers with thread counts (bar.sync / barrier.sync id, n; bar.arrive; bar.red),
barrier.cluster with .relaxed / .aligned, and griddepcontrol with a sequence of launches."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_launches, run_ptx

HEAD = ".version 8.8\n.target sm_90a\n.address_size 64\n"


def kernel(body, name="k", smem=True):
    return (HEAD + (".shared .align 4 .b32 buf[256];\n" if smem else "") +
            f".visible .entry {name}(.param .u64 pout)\n{{\n"
            "\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n"
            "\tld.param.u64 %rd1, [pout];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 5;\n"  # %r2: the warp
            "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd2, %rd1, %rd2;\n" + body + "\tret;\n}\n")


# producer warps 0-1 store to shared and bar.arrive on barrier 1 (count 128); consumer warps 2-3
# bar.sync on it, then read what a producer lane stored; barrier 2 joins the consumers only
PRODUCER_CONSUMER = (
    "\tmov.u32 %r3, buf;\n\tshl.b32 %r4, %r1, 2;\n\tadd.u32 %r5, %r3, %r4;\n"
    "\tsetp.lt.u32 %p1, %r2, 2;\n\t@!%p1 bra CONSUMER;\n"
    "\tmul.lo.u32 %r6, %r1, 3;\n\tst.shared.u32 [%r5], %r6;\n"
    "\tbar.arrive 1, 128;\n\tbra.uni END;\n"
    "CONSUMER:\n\tbarrier.sync 1, 128;\n"
    "\tsub.u32 %r7, %r5, 256;\n\tld.shared.u32 %r8, [%r7];\n"
    "\tbar.sync 2, 64;\n\tst.global.u32 [%rd2], %r8;\nEND:\n")


def test_producer_consumer_named_barriers(assemble):
    assemble(kernel(PRODUCER_CONSUMER), "sm_90a")
    out = np.zeros(128, np.uint32)
    res = run_ptx(kernel(PRODUCER_CONSUMER), "k", [out], block=(128, 1, 1), strict=False)
    assert res.findings == []
    assert (out[64:] == 3 * np.arange(64)).all() and (out[:64] == 0).all()


# warp 0 arrives on barrier 1 (for warp 1) and then waits on barrier 2 for warp 2, which stores to
# shared memory first: barrier 1 completing must not release warp 0 from barrier 2 (tile-sim's
# release once set every participant blocked on any CTA barrier running, which made exploration
# report races and deadlocks in FlashAttention-3's turn-taking barriers that the kernel does not have)
ARRIVE_THEN_WAIT = (
    "\tmov.u32 %r3, buf;\n\tsetp.eq.u32 %p1, %r2, 1;\n\t@%p1 bra W1;\n"
    "\tsetp.eq.u32 %p1, %r2, 2;\n\t@%p1 bra W2;\n"
    "\tbar.arrive 1, 64;\n\tbar.sync 2, 64;\n\tld.shared.u32 %r8, [%r3];\n"
    "\tst.global.u32 [%rd2], %r8;\n\tbra.uni END;\n"
    "W1:\n\tbar.sync 1, 64;\n\tbra.uni END;\n"
    "W2:\n\tst.shared.u32 [%r3], 77;\n\tbar.sync 2, 64;\nEND:\n")


def test_a_barrier_completing_releases_only_its_waiters(assemble):
    ptx = kernel(ARRIVE_THEN_WAIT)
    assemble(ptx, "sm_90a")
    out = np.zeros(96, np.uint32)
    res = run_ptx(ptx, "k", [out], block=(96, 1, 1))
    assert res.findings == [] and (out[:32] == 77).all()
    r = run_ptx(ptx, "k", [np.zeros(96, np.uint32)], block=(96, 1, 1), explore=30, seed=0,
                workers=1, progress=False)
    assert not r.found, r.failure


def test_one_id_with_two_counts_is_a_finding(assemble):
    """Warps 0-1 wait on barrier 3 for 128 threads, warps 2-3 for 96: whichever come first, the
    others arrive while they wait (neither count is reached by two warps)."""
    body = ("\tsetp.lt.u32 %p1, %r2, 2;\n\t@%p1 bra A;\n\tbar.sync 3, 96;\n\tbra.uni END;\n"
            "A:\n\tbar.sync 3, 128;\nEND:\n\tst.global.u32 [%rd2], %r1;\n")
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    res = run_ptx(ptx, "k", [np.zeros(128, np.uint32)], block=(128, 1, 1), strict=False)
    assert [f.rule for f in res.findings] == ["bar-count"]
    with pytest.raises(EmulationError, match="bar-count"):
        run_ptx(ptx, "k", [np.zeros(128, np.uint32)], block=(128, 1, 1), strict=True)


@pytest.mark.parametrize("form,want", [("popc.u32 %r9", lambda p: sum(p)),
                                       ("and.pred %p3", lambda p: int(all(p))),
                                       ("or.pred %p3", lambda p: int(any(p)))])
@pytest.mark.parametrize("which", ["some", "all", "none"])
def test_bar_red(form, want, which, assemble):
    cond = {"some": "\tand.b32 %r5, %r1, 5;\n\tsetp.eq.u32 %p2, %r5, 1;\n",
            "all": "\tsetp.lt.u32 %p2, %r1, 1000;\n", "none": "\tsetp.gt.u32 %p2, %r1, 1000;\n"}
    store = "\tst.global.u32 [%rd2], %r9;\n" if "popc" in form else \
        "\tselp.u32 %r9, 1, 0, %p3;\n\tst.global.u32 [%rd2], %r9;\n"
    body = cond[which] + f"\tbar.red.{form}, 0, %p2;\n" + store
    assemble(kernel(body), "sm_90a")
    out = np.zeros(96, np.uint32)
    run_ptx(kernel(body), "k", [out], block=(96, 1, 1))
    p = [{"some": (t & 5) == 1, "all": True, "none": False}[which] for t in range(96)]
    assert (out == want(p)).all()


@pytest.mark.parametrize("quals", ["", ".aligned", ".relaxed.aligned"])
def test_barrier_cluster_orders_peer_stores(quals, assemble):
    """CTA 1 stores into CTA 0's shared memory (mapa), then both pass barrier.cluster; CTA 0
    reads the value after the wait."""
    body = ("\tmov.u32 %r3, %cluster_ctarank;\n\tmov.u32 %r4, buf;\n"
            "\tmapa.shared::cluster.u32 %r5, %r4, 0;\n\tsetp.eq.u32 %p1, %r3, 1;\n"
            "\tsetp.eq.u32 %p2, %r1, 0;\n\tand.pred %p1, %p1, %p2;\n"
            "\t@%p1 st.shared::cluster.u32 [%r5], 77;\n"
            f"\tbarrier.cluster.arrive{quals};\n"
            "\tbarrier.cluster.wait.aligned;\n"
            "\tld.shared.u32 %r6, [%r4];\n\tmad.lo.u32 %r7, %r3, 64, %r1;\n"
            "\tmul.wide.u32 %rd3, %r7, 4;\n\tadd.u64 %rd3, %rd1, %rd3;\n"
            "\tst.global.u32 [%rd3], %r6;\n")
    ptx = kernel(body).replace(".visible .entry k(.param .u64 pout)",
                               ".visible .entry k(.param .u64 pout) .reqnctapercluster 2, 1, 1")
    assemble(ptx, "sm_90a")
    out = np.zeros(128, np.uint32)
    run_ptx(ptx, "k", [out], grid=(2, 1, 1), block=(64, 1, 1))
    assert out[0] == 77


PRIMARY = ("\tmul.lo.u32 %r3, %r1, 5;\n\tgriddepcontrol.launch_dependents;\n"
           "\tst.global.u32 [%rd2], %r3;\n")
DEPENDENT = ("\tgriddepcontrol.wait;\n\tld.global.u32 %r3, [%rd2];\n\tadd.u32 %r3, %r3, 1;\n"
             "\tst.global.u32 [%rd2], %r3;\n")


def test_griddepcontrol_sequence(assemble):
    p1, p2 = kernel(PRIMARY, "primary", False), kernel(DEPENDENT, "dependent", False)
    assemble(p1, "sm_90a")
    assemble(p2, "sm_90a")
    buf = np.zeros(64, np.uint32)
    res = run_launches([{"ptx": p1, "kernel": "primary", "args": [buf]},
                        {"ptx": p2, "kernel": "dependent", "args": [buf], "programmatic": True},
                        {"ptx": p2, "kernel": "dependent", "args": [buf]}], block=(64, 1, 1))
    assert len(res) == 3 and (buf == 5 * np.arange(64) + 2).all()


def test_sequence_names_a_missing_field():
    with pytest.raises(EmulationError, match="launch 0 of the sequence has no 'args'"):
        run_launches([{"ptx": kernel(PRIMARY, "primary", False)}])
