"""st.async / red.async completing on an mbarrier (the scalar 32- and 64-bit forms), on tile-sim:
every row of the ISA coverage table registered to this test.  Each row stores into (or reduces
into) a shared word of the CTA (a one-CTA cluster) that a barrier expecting exactly the access's
byte count tracks; the test checks the word against numpy (a store replaces its bytes; red.async
add/and/or/xor/min/max/inc/dec by the PTX ISA's definitions, every other byte unchanged), that the
barrier's phase 0 was still pending before the access and completed after it (mbarrier.test_wait
.parity) -- so the access's complete_tx counted its bytes."""

from __future__ import annotations

import re

import numpy as np

from isa_harness import isa_rows
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_async_mbarrier.py::"

HEAD = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pg, .param .u64 pin, .param .u64 pph)
{
  .reg .pred %p<8>; .reg .b32 %r<8>; .reg .b64 %rd<20>;
  .shared .align 8 .b8 sbuf[16];
  .shared .align 8 .b64 mbar;
  ld.param.u64 %rd10, [pg]; ld.param.u64 %rd11, [pin]; ld.param.u64 %rd16, [pph];
  mov.u64 %rd12, sbuf; mov.u64 %rd13, mbar;
"""


def _bits(form):
    return int(re.sub(r"\D", "", form.split(".")[-1]))


def _row(i, text, bits):
    op = text.partition(" ")[0]
    src = "%rd2" if bits == 64 else "%r2"
    cv = "mov.b64 %rd2, %rd14;" if bits == 64 else "cvt.u32.u64 %r2, %rd14;"
    return [f"  ld.global.b64 %rd14, [%rd11+{8 * i}];", f"  {cv}",
            f"  ld.global.b64 %rd15, [%rd10+{8 * i}]; st.shared.b64 [sbuf], %rd15;",
            "  mbarrier.init.shared::cta.b64 [mbar], 1;",
            f"  mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], {bits // 8};",
            "  mbarrier.test_wait.parity.shared::cta.b64 %p2, [mbar], 0;",
            "  selp.u32 %r3, 1, 0, %p2;",
            f"  {op} [%rd12], {src}, [%rd13];",
            f"W{i}:", "  mbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar], 0;", f"  @!%p1 bra W{i};",
            "  mbarrier.test_wait.parity.shared::cta.b64 %p3, [mbar], 0;",
            "  selp.u32 %r4, 2, 0, %p3; or.b32 %r3, %r3, %r4;",
            f"  st.global.u32 [%rd16+{4 * i}], %r3;",
            "  mbarrier.inval.shared::cta.b64 [mbar];",
            f"  ld.shared.b64 %rd15, [sbuf]; st.global.b64 [%rd10+{8 * i}], %rd15;"]


def _signed(x, bits):
    return x - (1 << bits) if x >> (bits - 1) else x


def expect(form, old, v, bits):
    """The new low ``bits`` of the word: PTX ISA st.async / red.async."""
    m = (1 << bits) - 1
    o, v = old & m, v & m
    if form.startswith("st."):
        return v
    op, ty = form.split(".")[-2:]
    if op == "add":
        return (o + v) & m
    if op == "and":
        return o & v
    if op == "or":
        return o | v
    if op == "xor":
        return o ^ v
    if op == "inc":
        return 0 if o >= v else o + 1
    if op == "dec":
        return v if o == 0 or o > v else o - 1
    key = (lambda x: _signed(x, bits)) if ty.startswith("s") else (lambda x: x)
    return (min if op == "min" else max)(o, v, key=key)


def test_async_mbarrier_rows(assemble):
    rows = isa_rows(T + "test_async_mbarrier_rows")
    assert len(rows) >= 48
    rng = np.random.default_rng(78)
    n = len(rows)
    g = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    inp = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    # small operands for half the rows so inc/dec and min/max meet both branches
    inp[::2] &= np.uint64(0xFFFFFFFF00000007)
    g[1::4] &= np.uint64(0xFFFFFFFF00000003)
    old = g.copy()
    ph = np.full(n, 7, np.uint32)
    body = []
    for i, r in enumerate(rows):
        body += _row(i, r["text"], _bits(r["form"]))
    ptx = HEAD + "\n".join(body) + "\n  ret;\n}\n"
    assemble(ptx)
    run_ptx(ptx, "k", [g, inp, ph], block=(1, 1, 1), workers=1)
    bad = []
    for i, r in enumerate(rows):
        bits = _bits(r["form"])
        m = (1 << bits) - 1
        want = (int(old[i]) & ~m & ((1 << 64) - 1)) | expect(r["form"], int(old[i]), int(inp[i]), bits)
        if int(g[i]) != want:
            bad.append(f"{r['text']}: {int(g[i]):#x} != {want:#x}")
        if ph[i] != 2:  # phase 0 pending before the access, complete after it
            bad.append(f"{r['text']}: phase bits {ph[i]}")
    assert not bad, "; ".join(bad[:4])


def test_expect_reference_branches():
    f = "red.async.relaxed.cluster.mbarrier::complete_tx::bytes.{}.{}"
    assert expect(f.format("inc", "u32"), 5, 5, 32) == 0
    assert expect(f.format("inc", "u32"), 4, 5, 32) == 5
    assert expect(f.format("dec", "u32"), 0, 5, 32) == 5
    assert expect(f.format("dec", "u32"), 6, 5, 32) == 5
    assert expect(f.format("dec", "u32"), 3, 5, 32) == 2
    assert expect(f.format("min", "s32"), 0xFFFFFFFF, 1, 32) == 0xFFFFFFFF
    assert expect(f.format("max", "u32"), 0xFFFFFFFF, 1, 32) == 0xFFFFFFFF
