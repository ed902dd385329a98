"""sim.DeviceTable: global memory holding global addresses (a grouped GEMM's per-group pointer
array): the kernel loads an address from the table and dereferences it; the arrays it names are
the same allocations as every other argument that is the same array, copied back after the run;
a table may name another table."""

import numpy as np
import pytest

from tile_mlir.sim import ByValue, DeviceTable, EmulationError, run_ptx

PTX = """.version 8.8
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 ptab)
{
  .reg .b32 %r<8>; .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [ptab]; cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4;
  ld.global.u64 %rd3, [%rd1]; ld.global.u64 %rd4, [%rd1+8]; ld.global.u64 %rd5, [%rd1+16];
  add.u64 %rd3, %rd3, %rd2; add.u64 %rd4, %rd4, %rd2; add.u64 %rd5, %rd5, %rd2;
  ld.global.u32 %r2, [%rd3]; ld.global.u32 %r3, [%rd4]; add.u32 %r4, %r2, %r3;
  st.global.u32 [%rd5], %r4;
  ret;
}
"""


def test_a_table_of_addresses(assemble):
    assemble(PTX, "sm_90a")
    a, b = np.arange(32, dtype=np.uint32), 100 * np.arange(32, dtype=np.uint32)
    out = np.zeros(32, np.uint32)
    tab = DeviceTable(bytes(24), {0: a, 8: b, 16: out})
    run_ptx(PTX, "k", [tab], block=(32, 1, 1))
    assert (out == 101 * np.arange(32)).all()
    # the same table behind a by-value struct's pointer field, one level down
    out[:] = 0
    run_ptx(PTX.replace(".param .u64 ptab", ".param .align 8 .b8 ptab[8]"), "k",
            [ByValue(bytes(8), {0: tab})], block=(32, 1, 1))
    assert (out == 101 * np.arange(32)).all()


def test_a_field_outside_the_table_is_refused():
    with pytest.raises(EmulationError, match="pointer field offset 24"):
        run_ptx(PTX, "k", [DeviceTable(bytes(24), {24: np.zeros(4, np.uint32)})], block=(1, 1, 1))
