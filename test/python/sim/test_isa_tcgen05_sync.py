"""tcgen05.alloc / dealloc / relinquish_alloc_permit, tcgen05.commit, tcgen05.fence and tcgen05.wait
on tile-sim: every row registered to this test takes its place in one program run by warp 0 of each
CTA of a cta_group-sized cluster (PTX ISA "tcgen05 memory consistency", "tensor memory allocation"):
allocate 32 and 64 columns (the slots must get lane 0 and disjoint column ranges), a tcgen05.st /
wait::st / tcgen05.ld / wait::ld round trip through the first allocation (the values come back),
the thread-sync fences around a bar.sync, a commit arriving once on an mbarrier of count 1 (its
phase completes; it was pending before), dealloc of both, then an allocation of all 512 columns
(it must start at column 0: the deallocations freed everything), dealloc, relinquish.  The wait::ld
row is also shown to matter: the program without it is refused.  tcgen05.fence::before/after_thread_sync
and wait::st are not registered: tile-sim accepts this program without them, so it cannot check them."""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import EmulationError, run_ptx

T = "test/python/sim/test_isa_tcgen05_sync.py::"
ROWS = isa_rows(T + "test_tcgen05_sync_rows")


def program(form, text, omit=False):
    cg = int(form.split("cta_group::")[1][0]) if "cta_group::" in form else 1
    g = f"cta_group::{cg}"
    row = "" if omit else text.partition(" ")[0].rstrip(";")
    fam = form.split(".")[1].split("::")[0]

    def pick(f, default):
        if fam != f:
            return default
        return row

    alloc_op = pick("alloc", f"tcgen05.alloc.{g}.sync.aligned.shared::cta.b32")
    slot = ("%rd8" if alloc_op and ".shared::cta" not in alloc_op else "%rd7")
    dealloc = pick("dealloc", f"tcgen05.dealloc.{g}.sync.aligned.b32")
    relinq = pick("relinquish_alloc_permit", f"tcgen05.relinquish_alloc_permit.{g}.sync.aligned")
    commit = pick("commit", f"tcgen05.commit.{g}.mbarrier::arrive::one.shared::cluster.b64")
    mb = "%rd6" if commit and ".shared::cluster" not in commit else "%rd5"
    before = row if form == "tcgen05.fence::before_thread_sync" else "tcgen05.fence::before_thread_sync"
    after = row if form == "tcgen05.fence::after_thread_sync" else "tcgen05.fence::after_thread_sync"
    wst = row if form == "tcgen05.wait::st.sync.aligned" else "tcgen05.wait::st.sync.aligned"
    wld = row if form == "tcgen05.wait::ld.sync.aligned" else "tcgen05.wait::ld.sync.aligned"
    return f""".version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pout)
.reqnctapercluster {cg}, 1, 1
{{
  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
  .shared .align 8 .b32 slot[4];
  .shared .align 8 .b64 mbar;
  ld.param.u64 %rd10, [pout];
  mov.u32 %r1, %tid.x; mov.u32 %r10, %cluster_ctarank;
  mov.u64 %rd7, slot; cvta.shared.u64 %rd8, %rd7; mov.u64 %rd5, mbar; cvta.shared.u64 %rd6, %rd5;
  add.u64 %rd12, %rd7, 4; add.u64 %rd13, %rd8, 4;
  {alloc_op} [{slot}], 32;
  {alloc_op} [{slot.replace("%rd7", "%rd12").replace("%rd8", "%rd13")}], 64;
  {before}{';' if before else ''}
  bar.sync 0;
  {after}{';' if after else ''}
  ld.shared.u32 %r2, [slot]; ld.shared.u32 %r3, [slot+4];
  mad.lo.u32 %r4, %r1, 3, 1; mad.lo.u32 %r4, %r10, 1000, %r4;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {{%r4}};
  {wst}{';' if wst else ''}
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r5}}, [%r2];
  {wld}{';' if wld else ''}
  mul.wide.u32 %rd11, %r10, 32; cvt.u64.u32 %rd9, %r1; add.u64 %rd11, %rd11, %rd9;
  shl.b64 %rd11, %rd11, 5; add.u64 %rd11, %rd10, %rd11; st.global.u32 [%rd11], %r5;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [mbar], 1;
  bar.sync 0;
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [mbar], 0; selp.u32 %r6, 1, 0, %p2;
  @%p1 {commit} [{mb}];
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [mbar], 0;
  @!%p3 bra W;
  {after}{';' if after else ''}
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r8}}, [%r2];
  tcgen05.wait::ld.sync.aligned;
  setp.ne.u32 %p2, %r8, %r4; selp.u32 %r9, 2, 0, %p2; or.b32 %r6, %r6, %r9;
  {dealloc} %r2, 32;
  {dealloc} %r3, 64;
  {alloc_op} [{slot}], 512;
  bar.sync 0;
  ld.shared.u32 %r7, [slot];
  {dealloc} %r7, 512;
  {relinq}{';' if relinq else ''}
  st.global.v4.u32 [%rd11+16], {{%r2, %r3, %r7, %r6}};
  barrier.cluster.arrive; barrier.cluster.wait;
  ret;
}}
"""


def run(ptx, cg):
    out = np.zeros((cg, 32, 8), np.uint32)
    res = run_ptx(ptx, "k", [out], grid=(cg, 1, 1), block=(32, 1, 1), cluster=(cg, 1, 1), strict=False)
    return out, res


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_tcgen05_sync_rows(row, assemble):
    form = row["form"]
    cg = int(form.split("cta_group::")[1][0]) if "cta_group::" in form else 1
    ptx = program(form, row["text"])
    assemble(ptx)
    out, res = run(ptx, cg)
    assert res.findings == []
    for c in range(cg):
        o = out[c]
        assert (o[:, 0] == np.arange(32) * 3 + 1 + 1000 * c).all()
        t0, t1, t2, pend = (int(x) for x in o[0, 4:])
        assert t0 >> 16 == 0 and t1 >> 16 == 0 and t2 == 0 and pend == 0
        assert not set(range(t0, t0 + 32)) & set(range(t1, t1 + 64)) and max(t0 + 32, t1 + 64) <= 512
    if form.startswith("tcgen05.wait"):
        try:
            _, res = run(program(form, row["text"], omit=True), cg)
        except EmulationError:
            return
        assert res.findings, "the program without the row must be refused or have a finding"
