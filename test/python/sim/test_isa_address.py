"""cvta on tile-sim: every row of the ISA coverage table registered to this test. A state-space
address converted to generic names the same bytes (a generic load reads what the space's load
reads), and converting it back gives the address again (PTX ISA "cvta")."""

from __future__ import annotations

import numpy as np

from isa_harness import isa_rows
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_address.py::"
SPACE_ADDR = {  # space -> (how the kernel gets an address in it, the load of that space)
    "global": ("mov.u64 %rd2, %rd10;", "ld.global.u32"),
    "shared": ("mov.u64 %rd2, sbuf;", "ld.shared.u32"),
    "shared::cta": ("mov.u64 %rd2, sbuf;", "ld.shared::cta.u32"),
    "shared::cluster": ("mov.u64 %rd2, sbuf;", "ld.shared::cluster.u32"),
    "local": ("mov.u64 %rd2, lbuf;", "ld.local.u32"),
    "const": ("mov.u64 %rd2, cbuf;", "ld.const.u32"),
    "param": ("mov.u64 %rd2, pv;", "ld.param.u32"),
    "param::entry": ("mov.u64 %rd2, pv;", "ld.param::entry.u32"),
}
ROWS = isa_rows(T + "test_cvta_rows")


def test_cvta_rows():
    assert ROWS
    body = []
    n = 0
    for i, r in enumerate(ROWS):
        p = r["form"].split(".")
        to = "to" in p
        space = p[2] if to else p[1]
        get, ld = SPACE_ADDR[space]
        o = 3 * i * 4
        body += [f"  {get}", f"  {ld} %r1, [%rd2];", f"  st.global.u32 [%rd11+{o}], %r1;"]
        if to:  # a generic address of the space, back to the space
            body += [f"  cvta.{space}.u64 %rd3, %rd2;", f"  {r['form']} %rd4, %rd3;",
                     f"  {ld} %r2, [%rd4];", f"  st.global.u32 [%rd11+{o + 4}], %r2;",
                     "  setp.eq.u64 %p1, %rd4, %rd2; selp.u32 %r3, 1, 0, %p1;",
                     f"  st.global.u32 [%rd11+{o + 8}], %r3;"]
        else:
            body += [f"  {r['form']} %rd3, %rd2;", "  ld.u32 %r2, [%rd3];",
                     f"  st.global.u32 [%rd11+{o + 4}], %r2;", "  mov.u32 %r3, 1;",
                     f"  st.global.u32 [%rd11+{o + 8}], %r3;"]
        n += 1
    ptx = f""".version 8.8
.target sm_100a
.address_size 64
.const .align 4 .b32 cbuf[1] = {{0x12345678}};
.visible .entry k(.param .u64 pg, .param .u64 pout, .param .u32 pv)
{{
  .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<16>;
  .shared .align 4 .b32 sbuf[1];
  .local .align 4 .b32 lbuf[1];
  ld.param.u64 %rd10, [pg]; cvta.to.global.u64 %rd10, %rd10;
  ld.param.u64 %rd11, [pout]; cvta.to.global.u64 %rd11, %rd11;
  mov.u32 %r5, 0x5EED0001; st.shared.u32 [sbuf], %r5;
  mov.u32 %r5, 0x10CA1002; st.local.u32 [lbuf], %r5;
""" + "\n".join(body) + "\n  ret;\n}\n"
    g = np.array([0x6107A1], np.uint32)
    out = np.zeros(3 * n, np.uint32)
    run_ptx(ptx, "k", [g, out, 0xFA7A], block=(1, 1, 1))
    want = {"global": 0x6107A1, "shared": 0x5EED0001, "local": 0x10CA1002, "const": 0x12345678,
            "param": 0xFA7A}
    for i, r in enumerate(ROWS):
        p = r["form"].split(".")
        space = p[2] if "to" in p else p[1]
        v = want[space.split("::")[0]]
        assert list(out[3 * i:3 * i + 3]) == [v, v, 1], (r["form"], [hex(x) for x in out[3 * i:3 * i + 3]])
