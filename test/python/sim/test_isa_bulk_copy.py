"""Non-tensor bulk copies (cp.async.bulk global -> shared::cta / shared::cluster, shared::cta ->
shared::cluster, shared::cta -> global with its bulk group), the bulk-group commit / wait rows, and
cp.async.ca with its commit / wait rows, on tile-sim: every row registered to this test runs in a
one-thread kernel that copies 64 (cp.async.ca: 16) bytes and reads them back only after the row's
completion mechanism (mbarrier tx, bulk group, cp.async group); the bytes are checked against the
source and the run must have no finding.  ``test_*_needs_its_wait`` shows that leaving the wait out
is a finding, so the wait rows are what make these runs clean."""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import EmulationError, run_ptx

T = "test/python/sim/test_isa_bulk_copy.py::"

HEAD = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 psrc, .param .u64 pdst)
{
  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
  .shared .align 128 .b8 buf[64];
  .shared .align 128 .b8 buf2[64];
  .shared .align 8 .b64 mbar;
  ld.param.u64 %rd1, [psrc]; ld.param.u64 %rd2, [pdst];
  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;
"""
DUMP = """  mov.u32 %r1, 0;
DUMP:
  mov.u32 %r2, {src}; add.u32 %r2, %r2, %r1; ld.shared.u32 %r3, [%r2];
  cvt.u64.u32 %rd5, %r1; add.u64 %rd6, %rd2, %rd5; st.global.u32 [%rd6], %r3;
  add.u32 %r1, %r1, 4; setp.lt.u32 %p1, %r1, 64; @%p1 bra DUMP;
"""
INIT = "  mbarrier.init.shared::cta.b64 [mbar], 1;\n"
FILL = """  mov.u32 %r1, 0;
FILL:
  mov.u32 %r2, buf; add.u32 %r2, %r2, %r1; cvt.u64.u32 %rd5, %r1; add.u64 %rd6, %rd1, %rd5;
  ld.global.u32 %r3, [%rd6]; st.shared.u32 [%r2], %r3;
  add.u32 %r1, %r1, 4; setp.lt.u32 %p1, %r1, 64; @%p1 bra FILL;
"""
MBAR_LOAD = """  mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], {n};
  {copy}
WAIT{i}:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar], {ph};
  @!%p2 bra WAIT{i};
"""


def body(form, text, wait=True):
    op = text.partition(" ")[0]
    if form.startswith("cp.async.bulk.shared::"):
        if ".shared::cta.mbarrier" in form:  # shared -> shared: fill buf by a global -> shared copy
            first = INIT + MBAR_LOAD.format(n=64, i=0, ph=0, copy=(
                "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf], [%rd1], 64, [mbar];"))
            return first + MBAR_LOAD.format(n=64, i=1, ph=1, copy=f"{op} [buf2], [buf], 64, [mbar];") \
                + DUMP.format(src="buf2")
        return INIT + MBAR_LOAD.format(n=64, i=0, ph=0, copy=f"{op} [buf], [%rd1], 64, [mbar];") + DUMP.format(src="buf")
    if form.startswith("cp.async.bulk"):  # to global, through a bulk group
        w = text if "wait_group" in form else "cp.async.bulk.wait_group 0;"
        w = w.replace(" 1;", " 0;")
        return (FILL + "  fence.proxy.async.shared::cta;\n"
                + "  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [buf], 64;\n"
                + "  cp.async.bulk.commit_group;\n" + (f"  {w}\n" if wait else ""))
    # cp.async.ca and the cp.async groups
    copy = text if form.startswith("cp.async.ca") else "cp.async.ca.shared.global [buf], [%rd1], 16;"
    copy = copy.replace("[%rd9], [%rd9]", "[buf], [%rd1]")
    w = text.replace(" 1;", " 0;") if "wait" in form else "cp.async.wait_all;"
    return (f"  {copy}\n  cp.async.commit_group;\n" + (f"  {w}\n" if wait else "")
            + DUMP.format(src="buf"))


ROWS = isa_rows(T + "test_bulk_copy_rows")


def go(form, text, wait=True):
    ptx = HEAD + body(form, text, wait) + "  ret;\n}\n"
    src = np.arange(16, dtype=np.uint32) * 0x01030507 + 9
    dst = np.zeros(16, np.uint32)
    res = run_ptx(ptx, "k", [src, dst], block=(1, 1, 1), workers=1, strict=False)
    return ptx, src, dst, res


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_bulk_copy_rows(row, assemble):
    form = row["form"]
    ptx, src, dst, res = go(form, row["text"])
    assemble(ptx)
    assert res.findings == []
    k = 4 if (form.startswith("cp.async.ca") or form.startswith("cp.async.commit")
              or form.startswith("cp.async.wait")) else 16
    assert (dst[:k] == src[:k]).all()


@pytest.mark.parametrize("form", ["cp.async.bulk.commit_group", "cp.async.commit_group"])
def test_bulk_copy_needs_its_wait(form):
    try:
        *_, res = go(form, form + ";", wait=False)
    except EmulationError as e:  # a race is an error in lenient mode too
        assert "waited for" in str(e)
    else:
        assert res.findings, "reading a copy's bytes before its wait must be a finding"
