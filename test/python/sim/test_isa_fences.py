"""membar / fence on tile-sim: every row of the ISA coverage table registered to this test, checked
by the one ordering tile-sim models beyond its sequentially consistent memory (docs/emulator.md):
a thread's generic-proxy stores to shared memory are seen by a later async-proxy read (here a bulk
copy shared -> global) only through a proxy fence that orders them (PTX ISA "membar / fence",
"proxies"): the bidirectional fence.proxy.async / membar.proxy.async over every state space or over
shared memory, and the generic-to-async release fence.proxy.async::generic.release.sync_restrict.
Every other fence -- thread fences of every semantics and scope, fence.proxy.async.global,
the acquire direction, the alias and tensormap proxies, fence.mbarrier_init -- leaves the copy's
read a finding.  The bytes copied are the bytes stored in every case.
"""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_fences.py::"
ORDERING = {"fence.proxy.async", "fence.proxy.async.shared::cta",
            "fence.proxy.async.shared::cluster", "membar.proxy.async",
            "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster"}


def kernel(fence):
    return f""".version 8.8
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 pdst)
{{
  .shared .align 128 .b8 buf[128];
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pdst]; cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x; mad.lo.u32 %r2, %r1, 7, 1;
  mov.u32 %r3, buf; shl.b32 %r4, %r1, 2; add.u32 %r3, %r3, %r4;
  st.shared.u32 [%r3], %r2;
  {fence}
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 128;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
END:
  ret;
}}
"""


ROWS = isa_rows(T + "test_fence_rows")


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_fence_rows(row, assemble):
    ptx = kernel(row["text"])
    if row["form"] != "membar.proxy.async":  # forms.json has it; the ptxas here refuses .async
        assemble(ptx, "sm_90a")
    dst = np.zeros(32, np.uint32)
    res = run_ptx(ptx, "k", [dst], block=(32, 1, 1), strict=False)
    assert (dst == np.arange(32) * 7 + 1).all()
    proxy = [f for f in res.findings if "fence.proxy.async" in f.message]
    if row["form"] in ORDERING:
        assert res.findings == []
    else:
        assert [f.rule for f in proxy] == ["ordering"], res.findings


def test_every_ordering_form_is_a_row():
    assert ORDERING <= {r["form"] for r in ROWS}
