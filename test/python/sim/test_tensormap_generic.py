"""tensormap.replace without a state space edits the map at a generic address, of global memory
or of shared memory (PTX ISA "tensormap.replace": generic addressing when .ss is absent): the
rows of the ISA coverage table registered to this test, checked by decoding the edited bytes."""

import numpy as np
import pytest

from isa_harness import isa_rows
from tile_mlir.sim import TensorMap, run_ptx
from tile_mlir.sim.tensor_map_bytes import decode, encode

T = "test/python/sim/test_tensormap_generic.py::"


def _kernel(edits, where):
    to = ("mov.u64 %rd5, %rd2;" if where == "global" else
          "mov.u64 %rd5, tm_s; cvta.shared.u64 %rd5, %rd5;")
    copy = "".join(f"  ld.param.v2.b64 {{%rd10, %rd11}}, [tmap+{16 * i}];\n"
                   f"  st.v2.b64 [%rd5+{16 * i}], {{%rd10, %rd11}};\n" for i in range(8))
    back = "".join(f"  ld.v2.b64 {{%rd10, %rd11}}, [%rd5+{16 * i}];\n"
                   f"  st.global.v2.b64 [%rd3+{16 * i}], {{%rd10, %rd11}};\n" for i in range(8))
    return f""".version 8.8
.target sm_100a
.address_size 64
.shared .align 128 .b8 tm_s[128];
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 pws, .param .u64 pout)
{{
  .reg .b32 %r<8>; .reg .b64 %rd<16>;
  ld.param.u64 %rd2, [pws]; cvta.to.global.u64 %rd2, %rd2;
  ld.param.u64 %rd3, [pout]; cvta.to.global.u64 %rd3, %rd3;
  {to}
{copy}  mov.u64 %rd6, 0x7f0000001000; mov.u32 %r1, 0;
{edits}{back}  ret;
}}
"""


@pytest.mark.parametrize("where", ["global", "shared"])
def test_tensormap_generic_rows(where, assemble):
    rows = isa_rows(T + "test_tensormap_generic_rows")
    assert {r["form"] for r in rows} == {"tensormap.replace.tile.global_address.b1024.b64",
                                         "tensormap.replace.tile.rank.b1024.b32"}
    edits = ("  tensormap.replace.tile.global_address.b1024.b64 [%rd5], %rd6;\n"
             "  tensormap.replace.tile.rank.b1024.b32 [%rd5], %r1;\n")
    g = np.zeros(64, np.float32)
    tm = TensorMap("float32", g, (8, 8), (32,), (8, 2))
    ws, out = np.zeros(128, np.uint8), np.zeros(128, np.uint8)
    ptx = _kernel(edits, where)
    assemble(ptx)
    run_ptx(ptx, "k", [tm, ws, out], block=(1, 1, 1), workers=1)
    before = encode(tm, 0)
    raw = out.tobytes()
    assert raw != before
    # the edited map: rank 1 (the field holds rank - 1), pointing at the new address
    m, addr = decode(raw, "edited map")
    assert addr == 0x7F0000001000 and m.rank == 1
