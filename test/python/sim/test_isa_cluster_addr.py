"""isspacep (global, local, shared, shared::cta, shared::cluster), mapa and getctarank (generic and
shared::cluster addresses) on tile-sim, in a cluster of two CTAs: every row registered to this test.
Each CTA stores 100 * rank + 7 into its shared word; mapa's address of the peer's word must load the
peer's value, getctarank must name the CTA an address belongs to, and isspacep must classify a
global pointer, a cvta.local address, the CTA's own generic shared address and the peer's (from
mapa), a kernel parameter's generic address and a .const variable's as the PTX ISA says:
shared::cta (and .shared, its default) is the executing CTA's window only, shared::cluster takes
the whole cluster's, .param (.param::entry) the parameters, which .global includes."""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_cluster_addr.py::"
ROWS = isa_rows(T + "test_cluster_addr_rows")

HEAD = """.version 8.8
.target sm_100a
.address_size 64
.const .align 8 .b32 cvar = 5;
.visible .entry k(.param .u64 pout)
.reqnctapercluster 2, 1, 1
{{
  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
  .shared .align 8 .b32 buf;
  .local .align 8 .b32 loc;
  ld.param.u64 %rd10, [pout];
  mov.u32 %r10, %cluster_ctarank; sub.u32 %r11, 1, %r10;
  mad.lo.u32 %r4, %r10, 100, 7; st.shared.u32 [buf], %r4;
  barrier.cluster.arrive; barrier.cluster.wait;
  mov.u64 %rd4, buf; cvta.shared.u64 %rd2, %rd4; mov.u32 %r2, buf;
  mov.u32 %r5, 0;
{body}
  mul.wide.u32 %rd11, %r10, 4; add.u64 %rd11, %rd10, %rd11; st.global.u32 [%rd11], %r5;
  barrier.cluster.arrive; barrier.cluster.wait;
  ret;
}}
"""


def body(form, op):
    if form.startswith("isspacep"):
        vals = ["%rd10", "%rd6", "%rd2", "%rd7", "%rd8", "%rd13"]
        lines = ["mov.u64 %rd5, loc; cvta.local.u64 %rd6, %rd5;", "mapa.u64 %rd7, %rd2, %r11;",
                 "mov.u64 %rd9, pout; cvta.param.u64 %rd8, %rd9;",
                 "mov.u64 %rd12, cvar; cvta.const.u64 %rd13, %rd12;"]
        for v in vals:
            lines.append(f"{op} %p1, {v}; selp.u32 %r6, 1, 0, %p1; shl.b32 %r5, %r5, 1; or.b32 %r5, %r5, %r6;")
        return lines
    if form == "mapa.u64":
        return [f"{op} %rd1, %rd2, %r11;", "ld.u32 %r5, [%rd1];"]
    if form == "mapa.shared::cluster.u32":
        return [f"{op} %r1, %r2, %r11;", "ld.shared::cluster.u32 %r5, [%r1];"]
    if form == "mapa.shared::cluster.u64":
        return [f"{op} %rd1, %rd4, %r11;", "ld.shared::cluster.u32 %r5, [%rd1];"]
    if form == "getctarank.u64":
        return ["mapa.u64 %rd1, %rd2, %r11;", f"{op} %r6, %rd1; {op} %r7, %rd2;", "mad.lo.u32 %r5, %r6, 10, %r7;"]
    if form == "getctarank.shared::cluster.u32":
        return ["mapa.shared::cluster.u32 %r1, %r2, %r11;", f"{op} %r6, %r1;",
                "mapa.shared::cluster.u32 %r3, %r2, %r10;", f"{op} %r7, %r3;", "mad.lo.u32 %r5, %r6, 10, %r7;"]
    if form == "getctarank.shared::cluster.u64":
        return ["mapa.shared::cluster.u64 %rd1, %rd4, %r11;", f"{op} %r6, %rd1;",
                "mapa.shared::cluster.u64 %rd3, %rd4, %r10;", f"{op} %r7, %rd3;", "mad.lo.u32 %r5, %r6, 10, %r7;"]
    raise AssertionError(form)


#: bits, high to low: a global pointer, a local address, the CTA's own shared word, the peer's
#: (mapa), the generic address of a kernel parameter, of a .const variable.  .shared is .shared::cta
#: and .param is .param::entry (the ISA's defaults); the parameter window lies in .global's (the
#: ISA), and so does .const's in tile-sim (W18)
ISSPACEP = {"global": 0b100011, "local": 0b010000, "shared::cluster": 0b001100,
            "shared::cta": 0b001000, "shared": 0b001000, "param": 0b000010,
            "param::entry": 0b000010, "const": 0b000001}


def expected(form, rank):
    peer = 1 - rank
    if form.startswith("isspacep"):
        return ISSPACEP[form.split(".", 1)[1]]
    if form.startswith("mapa"):
        return 100 * peer + 7
    return 10 * peer + rank


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_cluster_addr_rows(row, assemble):
    check(row, assemble)


def test_isspacep_rows_cover_every_space():
    assert {r["form"] for r in ROWS if r["form"].startswith("isspacep")} == {
        f"isspacep.{s}" for s in ISSPACEP}


def check(row, assemble):
    form = row["form"]
    ptx = HEAD.format(body="\n".join("  " + x for x in body(form, row["text"].partition(" ")[0])))
    assemble(ptx)
    out = np.zeros(2, np.uint32)
    res = run_ptx(ptx, "k", [out], grid=(2, 1, 1), block=(1, 1, 1), cluster=(2, 1, 1), strict=False)
    assert res.findings == []
    assert [int(x) for x in out] == [expected(form, 0), expected(form, 1)]
