"""wgmma.mma_async on tile-sim: every row of the ISA coverage table registered to this test (every N,
every float and integer kind, .satfinite), run as the wgmma campaign's kernel (bench/wgmma, written
from the PTX ISA) with A and B from shared-memory descriptors and D accumulated onto C: float kinds
bit for bit against MMA-Sim's Hopper model on the logical matrices (test_wgmma._direct_mmasim),
integer kinds against the exact product (clamped to s32 with .satfinite).  Inputs cycle over the
campaign's normal, special-value and cancelling modes.  Rows with N >= 128 are marked slow; of the
others the fast tier runs the first row of every kind and of every N (tiers.cover), the slow tier the
rest.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tiers
from isa_harness import isa_rows
from test_wgmma import _direct_mmasim
from wgmma_cases import cases, config, d_matrix, run

T = "test/python/sim/test_isa_wgmma.py::"
FORM = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(\d+)(\.satfinite)?"
                  r"\.(f16|f32|s32)\.(\w+)\.(\w+)")
MODES = ("normal", "special", "cancel")


def _params():
    out = []
    for i, r in enumerate(isa_rows(T + "test_wgmma_rows")):
        n = int(FORM.match(r["form"]).group(1))
        marks = [pytest.mark.slow] if n >= 128 else []
        out.append(pytest.param(r, i, id=r["form"], marks=marks))
    kind = lambda r, i: FORM.match(r["form"]).groups()[2:]  # noqa: E731 (.satfinite, D, A, B)
    n = lambda r, i: FORM.match(r["form"]).group(1)  # noqa: E731
    return tiers.cover(out, kind, n)


@pytest.mark.parametrize("row,i", _params())
def test_wgmma_rows(row, i):
    n, _, sat, dtype, atype, btype = FORM.match(row["form"]).groups()
    n = int(n)
    if dtype == "s32":
        cfg = config(atype=atype, btype=btype, dtype="s32", n=n, scale_d=1, satfinite=int(bool(sat)),
                     modes=(("raw", "special")[i % 2],), seed=i)
    else:
        cfg = config(atype=atype, btype=btype, dtype=dtype, n=n, scale_d=i % 2,
                     modes=(MODES[i % 3],), seed=i)
    out, _ = run(cfg)
    got = d_matrix(out[0], n, dtype)
    if dtype != "s32":
        want = _direct_mmasim(cfg, 0)
        assert np.array_equal(got, want), f"{row['form']} differs from MMA-Sim"
        return
    a, b, c, _ = cases.logical(cfg, 0)

    def signed(x, t):
        return np.where(x >= 128, x.astype(np.int64) - 256, x) if t == "s8" else x.astype(np.int64)
    cm = d_matrix(c, n, "s32").view(np.int32).astype(np.int64)
    d = signed(a, atype) @ signed(b, btype).T + cm
    d = np.clip(d, -2**31, 2**31 - 1) if sat else d
    assert np.array_equal(got, (d & 0xFFFFFFFF).astype(np.uint32))
