"""cp.async.bulk.tensor loads (shared::cta / shared::cluster destination, .tile or the default mode,
cta_group::1 / ::2) and stores (bulk_group) of every rank on tile-sim: every row of the ISA coverage
table registered to this test moves one box of a uint32 tensor (box inside the tensor, no swizzle)
and is checked against numpy's slice of the same coordinates: a load's bytes in shared memory and
the barrier's completion by exactly the box's transaction bytes; a store's bytes in global memory,
every byte outside the box unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import tiers
from isa_harness import isa_rows
from tile_mlir.sim import TensorMap, run_ptx

T = "test/python/sim/test_isa_tma.py::"
DIMS = (8, 3, 2, 3, 2)    # innermost first
BOX = (4, 2, 1, 2, 1)
AT = (4, 1, 1, 1, 1)
SMEM = 256


def kernel(body):
    return f""".version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)
{{
  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
  .shared .align 1024 .b8 buf[{SMEM}];
  .shared .align 8 .b64 mbar;
  ld.param.u64 %rd1, [out]; mov.u64 %rd3, tmap; cvta.param.u64 %rd3, %rd3;
{body}
  mov.u32 %r1, 0;
DUMP:
  mov.u32 %r2, buf; add.u32 %r2, %r2, %r1; ld.shared.u32 %r3, [%r2];
  cvt.u64.u32 %rd5, %r1; add.u64 %rd6, %rd1, %rd5; st.global.u32 [%rd6], %r3;
  add.u32 %r1, %r1, 4; setp.lt.u32 %p1, %r1, {SMEM}; @%p1 bra DUMP;
  ret;
}}
"""


def box_of(g, n):
    return g[tuple(slice(AT[d], AT[d] + BOX[d]) for d in reversed(range(n)))]


ROWS = isa_rows(T + "test_tma_rows")


# make test: every rank, and every direction, state space and cta_group once, .tile spelled or not
# (tiers.cover); all in the slow tier
@pytest.mark.parametrize("row", tiers.cover(
    ROWS, lambda r: r["form"].split(".")[4],
    lambda r: ".".join(p for i, p in enumerate(r["form"].split(".")) if i != 4 and p != "tile")),
    ids=lambda r: r["form"])
def test_tma_rows(row, assemble):
    form = row["form"]
    n = int(form.split(".")[4][0])
    op = row["text"].partition(" ")[0]
    shape = DIMS[:n][::-1]
    g = (np.arange(int(np.prod(shape)), dtype=np.uint32) * 7 + 3).reshape(shape)
    strides = [4 * int(np.prod(DIMS[:d])) for d in range(1, n)]
    tm = TensorMap("uint32", g, DIMS[:n], strides, BOX[:n])
    cs = ", ".join(str(c) for c in AT[:n])
    nbytes = 4 * int(np.prod(BOX[:n]))
    if ".global.shared::cta" in form:  # store
        body = f"""  mov.u32 %r1, 0;
FILL:
  mov.u32 %r2, buf; add.u32 %r2, %r2, %r1; mad.lo.u32 %r3, %r1, 5, 1000; st.shared.u32 [%r2], %r3;
  add.u32 %r1, %r1, 4; setp.lt.u32 %p1, %r1, {SMEM}; @%p1 bra FILL;
  fence.proxy.async.shared::cta;
  {op} [%rd3, {{{cs}}}], [buf];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;"""
    else:
        body = f"""  mbarrier.init.shared::cta.b64 [mbar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], {nbytes};
  {op} [buf], [%rd3, {{{cs}}}], [mbar];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar], 0;
  @!%p2 bra WAIT;"""
    ptx = kernel(body)
    assemble(ptx)
    old = g.copy()
    out = np.zeros(SMEM // 4, np.uint32)
    run_ptx(ptx, "k", [tm, out], block=(1, 1, 1), workers=1)
    k = nbytes // 4
    if ".global.shared::cta" in form:
        want = old.copy()
        box_of(want, n)[...] = (np.arange(k, dtype=np.uint32) * 20 + 1000).reshape(box_of(want, n).shape)
        assert (g == want).all()
    else:
        assert (out[:k] == box_of(old, n).ravel()).all()
        assert (g == old).all()
