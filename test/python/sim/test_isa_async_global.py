"""st.async / red.async without an mbarrier (sm_100: a release into global memory, .mmio included)
and the 64-bit st.async forms completing on an mbarrier, on tile-sim: every row of the ISA coverage
table registered to this test, against the bytes numpy expects (little-endian, a store replaces its
bytes, red.async.add adds modulo 2^bits, every other byte unchanged)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import EmulationError, run_ptx

T = "test/python/sim/test_isa_async_global.py::"
W = {"%h": 16, "%r": 32, "%rd": 64}


def _w(reg):
    return W["%rd"] if reg.startswith("%rd") else W[reg[:2]]


def _bits(form):
    return int(re.sub(r"\D", "", form.split(".")[-1]))


HEAD = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pg, .param .u64 pin)
{
  .reg .pred %p<8>; .reg .b16 %h<8>; .reg .b32 %r<8>; .reg .b64 %rd<16>;
  .shared .align 8 .b8 sbuf[16];
  .shared .align 8 .b64 mbar;
  ld.param.u64 %rd10, [pg]; ld.param.u64 %rd11, [pin];
  mov.u64 %rd12, sbuf; mov.u64 %rd13, mbar;
"""


def _row(i, text, mbar):
    op, _, rest = text.rstrip(";").partition(" ")
    src = [o.strip() for o in rest.split(",")][1]
    w = _w(src)
    cv = f"mov.b64 {src}, %rd14;" if w == 64 else f"cvt.u{w}.u64 {src}, %rd14;"
    b = [f"  ld.global.b64 %rd14, [%rd11+{8 * i}];", f"  {cv}"]
    if not mbar:
        return b + [f"  add.u64 %rd9, %rd10, {8 * i};", f"  {op} [%rd9], {src};"]
    return b + [f"  ld.global.b64 %rd15, [%rd10+{8 * i}]; st.shared.b64 [sbuf], %rd15;",
                "  mbarrier.init.shared::cta.b64 [mbar], 1;",
                "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], 8;",
                f"  {op} [%rd12], {src}, [%rd13];",
                f"W{i}:", "  mbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar], 0;", f"  @!%p1 bra W{i};",
                "  mbarrier.inval.shared::cta.b64 [mbar];",
                f"  ld.shared.b64 %rd15, [sbuf]; st.global.b64 [%rd10+{8 * i}], %rd15;"]


def test_async_global_rows(assemble):
    rows = isa_rows(T + "test_async_global_rows")
    assert rows
    rng = np.random.default_rng(77)
    g = rng.integers(0, 1 << 63, len(rows), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    inp = rng.integers(0, 1 << 63, len(rows), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    old = g.copy()
    body = []
    for i, r in enumerate(rows):
        body += _row(i, r["text"], "mbarrier" in r["form"])
    ptx = HEAD + "\n".join(body) + "\n  ret;\n}\n"
    assemble(ptx)
    run_ptx(ptx, "k", [g, inp], block=(1, 1, 1), workers=1)
    bad = []
    for i, r in enumerate(rows):
        bits = _bits(r["form"])
        m = (1 << bits) - 1
        o, v = int(old[i]), int(inp[i]) & m
        low = ((o & m) + v) & m if r["form"].startswith("red") else v
        want = (o & ~m & ((1 << 64) - 1)) | low
        if int(g[i]) != want:
            bad.append(f"{r['text']}: {int(g[i]):#x} != {want:#x}")
    assert not bad, "; ".join(bad[:4])


@pytest.mark.parametrize("text, why", [
    ("st.async.release.gpu.global.u32 [%rd9+2], %r2;", "aligned"),
    ("cvta.shared.u64 %rd8, %rd12; st.async.release.gpu.u32 [%rd8], %r2;", "not in global memory"),
])
def test_async_global_refuses(text, why):
    ptx = HEAD + "  mov.u64 %rd9, %rd10; mov.u32 %r2, 5;\n  " + text + "\n  ret;\n}\n"
    with pytest.raises(EmulationError, match=why):
        run_ptx(ptx, "k", [np.zeros(2, np.uint64), np.zeros(1, np.uint64)], block=(1, 1, 1), workers=1)


@pytest.mark.parametrize("text", ["red.async.release.sys.global.add.u32 [%rd9], %r2;",
                                  "st.async.mmio.release.gpu.global.u32 [%rd9], %r2;",
                                  "red.async.release.gpu.global.min.u32 [%rd9], %r2;"])
def test_async_global_forms_outside_the_isa(text):
    ptx = HEAD + "  mov.u64 %rd9, %rd10;\n  " + text + "\n  ret;\n}\n"
    with pytest.raises(EmulationError, match="the ISA's forms"):
        run_ptx(ptx, "k", [np.zeros(2, np.uint64), np.zeros(1, np.uint64)], block=(1, 1, 1), workers=1)
