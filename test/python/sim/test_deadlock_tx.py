"""A deadlock on an mbarrier whose transaction bytes never balance names the bytes the phase expected
and the bytes that arrived (PTX ISA "mbarrier": tx-count = expect-tx sums minus complete-tx sums), not
the bare tx-count (`tx -8192`) alone; both sums restart with each phase."""
from __future__ import annotations

import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx


def _kernel(expect: int, complete: int, phases: int = 1) -> str:
    """One thread inits a count-1 barrier; per phase it arms `expect` bytes and completes `complete`
    (mbarrier.complete_tx stands in for a TMA copy's completion), then waits on the phase."""
    body = "\tmbarrier.init.shared::cta.b64 [sm], 1;\n"
    for p in range(phases):
        body += (f"\tmbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [sm], {expect};\n"
                 f"\tmbarrier.complete_tx.shared::cta.b64 [sm], {complete};\n"
                 f"\tmov.u32 %r3, {p & 1};\n$L__w{p}:\n"
                 f"\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [sm], %r3;\n\t@!%p2 bra $L__w{p};\n")
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 1 k_param_0\n)\n{\n\t"
            ".reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n\t.reg .pred %p<8>;\n\t"
            ".shared .align 16 .b8 sm[64];\n" + body + "\tret;\n}\n")


@pytest.mark.parametrize("expect,complete", [(8192, 16384), (16384, 4096)])
def test_deadlock_says_bytes_expected_and_arrived(assemble, expect, complete):
    ptx = _kernel(expect, complete)
    assemble(ptx)
    with pytest.raises(EmulationError) as ei:
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(1, 1, 1))
    msg = str(ei.value)
    assert msg.startswith("deadlock"), msg
    assert (f"(phase 0, pending 0/1, {expect} transaction bytes expected, {complete} arrived "
            f"(tx-count {expect - complete}))") in msg, msg


def test_the_sums_restart_with_each_phase(assemble):
    # phase 0 balances (4096 / 4096); phase 1 expects 4096 and gets 2048: the message counts phase 1 only
    ptx = _kernel(4096, 4096, phases=1).replace("\tret;", "\tmbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [sm], "
                                                "4096;\n\tmbarrier.complete_tx.shared::cta.b64 [sm], 2048;\n"
                                                "\tmov.u32 %r3, 1;\n$L__x:\n\tmbarrier.try_wait.parity.shared::cta"
                                                ".b64 %p2, [sm], %r3;\n\t@!%p2 bra $L__x;\n\tret;")
    assemble(ptx)
    with pytest.raises(EmulationError, match=r"\(phase 1, pending 0/1, 4096 transaction bytes expected, "
                                             r"2048 arrived \(tx-count 2048\)\)"):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32)], block=(1, 1, 1))
