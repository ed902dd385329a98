"""tcgen05.mma of the dense kinds f16, tf32, f8f6f4 (bit for bit against MMA-Sim's Blackwell model on
the logical matrices) and i8 (exact integer product), cta_group::1 and ::2, on tile-sim: every row
registered to this test builds one end-to-end case of test_tcgen05_mma.py (tcgen05.st -> mma ->
commit -> mbarrier wait -> tcgen05.ld) whose PTX issues exactly that row's form, and checks D in
each CTA of the pair."""

from __future__ import annotations

import numpy as np
import pytest

import test_tcgen05_mma as M
from isa_harness import isa_rows
from tcgen05_mma_cases import Case

T = "test/python/sim/test_isa_tcgen05_mma_rows.py::"
ROWS = isa_rows(T + "test_tcgen05_mma_rows")
KW = {"f16": dict(atype="f16", dtype="f32"), "tf32": dict(atype="tf32", dtype="f32"),
      "f8f6f4": dict(atype="e4m3", btype="e5m2", dtype="f32"),
      "i8": dict(atype="s8", btype="s8", dtype="s32", mode="special")}


def _i8(x):
    return np.where(x >= 128, x.astype(np.int64) - 256, x.astype(np.int64))


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_tcgen05_mma_rows(row):
    cg = int(row["form"].split("cta_group::")[1][0])
    kind = row["form"].split("kind::")[1]
    c = Case(kind=kind, m=128 * cg, n=16 * cg, cg=cg, **KW[kind])
    assert f"tcgen05.mma.cta_group::{cg}.kind::{kind} " in c.ptx
    M.ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    for r in range(cg):
        if kind == "i8":
            d = _i8(c.a) @ _i8(c.b).T + c.c_full.view(np.int32).astype(np.int64)
            want = (d & 0xFFFFFFFF).astype(np.uint32)
            if cg == 2:
                want = want[128 * r:128 * (r + 1)]
        else:
            want = M._mmasim(c, r)
        assert np.array_equal(c.d_of(out, r), want), f"CTA {r}"
