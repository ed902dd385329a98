"""mbarrier.* and cp.async.mbarrier.arrive(.noinc) on tile-sim: every row of the ISA coverage table
registered to this test runs in a one-thread scenario of its family (PTX ISA "mbarrier"), which
records, after each step, whether the barrier's phase is complete (test_wait.parity) -- so each row's
count, pending arrivals, expected arrival count (arrive_drop), transaction count (expect_tx /
complete_tx) and returned state (test_wait / try_wait on it) are checked against the sequence the
ISA gives (tile-sim parks a wait that returns false until some thread makes progress, so no two
such waits follow each other without an arrival between them).  The generic-address forms get the barrier's generic address (cvta.shared), the others
its shared address.  inval is checked by the barrier's word being plain memory again (a store and
load with no finding) and re-initialisable; cp.async.mbarrier.arrive by the copy's bytes and by when
the phase completes (the form without .noinc adds one pending arrival, .noinc does not)."""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_mbarrier.py::"

HEAD = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pout, .param .u64 psrc)
{
  .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<16>;
  .shared .align 16 .b8 sbuf[16];
  .shared .align 8 .b64 mbar;
  ld.param.u64 %rd10, [pout]; ld.param.u64 %rd11, [psrc];
  mov.u32 %r6, 0;
"""
INIT = "mbarrier.init.shared::cta.b64 [mbar], {};"
ARR = "mbarrier.arrive.shared::cta.b64 %rd5, [mbar];"
TX = "mbarrier.complete_tx.shared::cta.b64 [mbar], {};"
AEX = "mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [mbar], {};"
REC = "selp.u32 %r7, 1, 0, %p1; shl.b32 %r6, %r6, 1; or.b32 %r6, %r6, %r7;"


def P(k):
    return f"mbarrier.test_wait.parity.shared::cta.b64 %p1, [mbar], {k}; " + REC


TWS = "mbarrier.test_wait.shared::cta.b64 %p1, [mbar], %rd1; " + REC


def scenario(form, row):
    """(steps, the recorded bits, the count of bits)"""
    s = form.split(".")
    if form.startswith("cp.async.mbarrier"):
        n = 2 if ".noinc" in form else 1
        return [INIT.format(n), "cp.async.ca.shared.global [sbuf], [%rd11], 16;", row,
                "cp.async.wait_all;", P(0), ARR, P(0)], "01"
    fam = s[1]
    if fam == "init":
        return ["mov.u32 %r2, 2;", row, ARR, P(0), ARR, P(0)], "01"
    if fam in ("test_wait", "try_wait"):
        return [INIT.format(2), ARR, "mov.b64 %rd3, %rd5;", row, REC, ARR, row, REC], "01"
    if fam == "expect_tx":
        return [INIT.format(1), "mov.u32 %r2, 16;", row, ARR, P(0), TX.format(16), P(0)], "01"
    if fam == "complete_tx":
        return [INIT.format(1), AEX.format(16), "mov.u32 %r2, 8;", row, P(0), row, P(0)], "01"
    if fam == "inval":
        return [INIT.format(1), row, "mov.b64 %rd6, 0x1234567890abcdef; st.shared.b64 [mbar], %rd6;",
                "ld.shared.b64 %rd7, [mbar]; setp.eq.u64 %p1, %rd7, %rd6; " + REC,
                INIT.format(2), ARR, P(0), ARR, P(0)], "101"
    drop = fam == "arrive_drop"
    if "noComplete" in s:
        if drop:
            return [INIT.format(2), "mov.u32 %r3, 1;", row, P(0), ARR, P(0), ARR, P(1)], "011"
        return [INIT.format(3), "mov.u32 %r3, 2;", row, P(0), ARR, P(0)], "01"
    if "expect_tx" in s:
        if drop:
            return [INIT.format(2), "mov.u32 %r3, 16;", row, P(0), ARR, P(0), TX.format(16), P(0),
                    ARR, P(1)], "0011"
        return [INIT.format(1), "mov.u32 %r3, 16;", row, P(0), TX.format(8), P(0), TX.format(8), P(0),
                TWS], "0011"
    if drop:
        return [INIT.format(2), row, P(0), ARR, P(0), ARR, P(1)], "011"
    return [INIT.format(2), row, TWS, ARR, TWS, P(0)], "011"


ROWS = isa_rows(T + "test_mbarrier_rows")


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_mbarrier_rows(row, assemble):
    form = row["form"]
    generic = ".shared" not in form
    addr = ("mov.u64 %rd8, mbar; cvta.shared.u64 %rd9, %rd8;" if generic else "mov.u64 %rd9, mbar;")
    steps, want = scenario(form, row["text"])
    out = ("st.global.u32 [%rd10], %r6; ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [sbuf];"
           " st.global.v4.u32 [%rd10+16], {%r1, %r2, %r3, %r4};")
    ptx = HEAD + "\n".join("  " + x for x in [addr] + steps + [out]) + "\n  ret;\n}\n"
    assemble(ptx)
    o = np.zeros(8, np.uint32)
    src = np.arange(4, dtype=np.uint32) * 0x01010101 + 0x11
    res = run_ptx(ptx, "k", [o, src], block=(1, 1, 1), workers=1, strict=False)
    assert res.findings == []
    assert format(int(o[0]), f"0{len(want)}b") == want
    if form.startswith("cp.async"):
        assert (o[4:] == src).all()


def test_every_family_is_a_row():
    fams = {r["form"].split(".")[1] for r in ROWS if r["form"].startswith("mbarrier")}
    assert fams == {"init", "arrive", "arrive_drop", "expect_tx", "complete_tx", "test_wait",
                    "try_wait", "inval"}
