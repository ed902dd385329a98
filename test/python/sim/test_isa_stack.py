"""alloca / stacksave / stackrestore on tile-sim: every row of the ISA coverage table registered to
this test allocates aligned .local memory that ld.local / st.local reach, distinct per allocation,
and stackrestore releases what was allocated after the stacksave (PTX ISA "alloca",
"stacksave", "stackrestore")."""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import EmulationError, run_ptx

T = "test/python/sim/test_isa_stack.py::"
ROWS = isa_rows(T + "test_stack_rows")


def _kernel(ty):
    r = "%rd" if ty == "u64" else "%r"
    cv = (lambda x: f"mov.b64 %rd20, {x};") if ty == "u64" else (lambda x: f"cvt.u64.u32 %rd20, {x};")
    return f""".version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pout)
{{
  .reg .b32 %r<16>; .reg .b64 %rd<24>;
  .local .align 4 .b8 fixed[12];
  ld.param.u64 %rd21, [pout];
  mov.u32 %r9, %tid.x; mul.wide.u32 %rd22, %r9, 64; add.u64 %rd21, %rd21, %rd22;
  st.local.u32 [fixed], 7;
  alloca.{ty} {r}1, 24, 16;
  st.local.u32 [{r}1], 11; st.local.u32 [{r}1+20], 12;
  stacksave.{ty} {r}2;
  alloca.{ty} {r}3, 40;
  st.local.u32 [{r}3], 13;
  stackrestore.{ty} {r}2;
  alloca.{ty} {r}4, 8, 32;
  st.local.u32 [{r}4], 14;
  ld.local.u32 %r10, [{r}1]; ld.local.u32 %r11, [{r}1+20]; ld.local.u32 %r12, [fixed];
  {cv(r + "1")} st.global.u64 [%rd21], %rd20;
  {cv(r + "2")} st.global.u64 [%rd21+8], %rd20;
  {cv(r + "3")} st.global.u64 [%rd21+16], %rd20;
  {cv(r + "4")} st.global.u64 [%rd21+24], %rd20;
  cvt.u64.u32 %rd20, %r10; st.global.u64 [%rd21+32], %rd20;
  cvt.u64.u32 %rd20, %r11; st.global.u64 [%rd21+40], %rd20;
  cvt.u64.u32 %rd20, %r12; st.global.u64 [%rd21+48], %rd20;
  ret;
}}
"""


@pytest.mark.parametrize("ty", ["u32", "u64"])
def test_stack_rows(ty, assemble):
    """The three instructions of one address width, together (the rows of that width)."""
    assert {r["form"] for r in ROWS if r["form"].endswith(ty)} == \
        {f"alloca.{ty}", f"stacksave.{ty}", f"stackrestore.{ty}"}
    out = np.zeros((4, 8), np.uint64)
    assemble(_kernel(ty))
    run_ptx(_kernel(ty), "k", [out], block=(4, 1, 1), workers=1)
    for lane in range(4):
        p1, sp, p3, p4, v1, v2, vf = (int(x) for x in out[lane, :7])
        assert p1 % 16 == 0 and p1 >= 12          # after the static .local variable, aligned
        assert sp >= p1 + 24                       # the stack pointer is past the first allocation
        assert p3 % 8 == 0 and p3 >= sp            # default alignment 8, above the save
        assert p4 % 32 == 0 and sp <= p4 < p3 + 40  # reuses the released space
        assert (v1, v2, vf) == (11, 12, 7)         # allocations do not overlap each other or .local


def test_stackrestore_outside_the_stack_is_refused():
    ptx = _kernel("u32").replace("stackrestore.u32 %r2;", "add.u32 %r2, %r2, 4096; stackrestore.u32 %r2;")
    with pytest.raises(EmulationError, match="stackrestore"):
        run_ptx(ptx, "k", [np.zeros((1, 8), np.uint64)], block=(1, 1, 1), workers=1)
