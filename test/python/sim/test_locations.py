"""Source locations (sim/locations.py): with `.file` / `.loc` line info in the PTX, every fault,
race, deadlock and warning of tile-sim names the source's path:line:col in MLIR's diagnostic form
(`path:line:col: error: ...`), with the PTX line too.  Hand-written PTX, as the pipeline emits it
once the MLIR locations reach the PTX."""

import numpy as np
import pytest

from test_cp_async import ISSUE16, READ_NEIGHBOUR, kernel, run  # noqa: F401 (conftest path)
from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim.ptx_parser import parse

FILE = '\t.file\t1 "/src/gemm.mlir"\n'


def _with_locs(ptx: str, locs: dict) -> str:
    """``ptx`` with `.file 1` at the top and `.loc 1 L C` before the first line containing each
    key of ``locs`` (key -> (L, C))."""
    out = []
    for ln in ptx.split("\n"):
        for key, (line, col) in locs.items():
            if key in ln and not ln.lstrip().startswith("."):
                out.append(f"\t.loc\t1 {line} {col}")
        out.append(ln)
        if ln.startswith(".address_size"):
            out.append(FILE)
    return "\n".join(out)


def test_loc_maps_each_instruction_to_the_last_preceding_loc():
    ptx = _with_locs(kernel(ISSUE16), {"mul.wide.u32 %rd3": (10, 3), "cp.async.cg": (12, 7)})
    mod = parse(ptx)
    fn = mod.entry("k")
    assert mod.files == {1: "/src/gemm.mlir"}
    by = {i.opcode: i.loc for i in fn.instructions}
    assert by["ld.param.u64"] is None
    assert by["mul.wide.u32"] == (1, 10, 3) and by["add.s64"] == (1, 10, 3)
    assert by["cp.async.cg.shared.global"] == (1, 12, 7) and by["ret"] == (1, 12, 7)


def test_race_names_the_source_line_and_the_ptx_line(assemble):
    ptx = _with_locs(kernel(ISSUE16 + "\tbar.sync 0;\n" + READ_NEIGHBOUR + "\tcp.async.wait_all;\n"),
                     {"ld.shared.v4.u32": (27, 5)})
    assemble(ptx, "sm_90a")
    ptx_line = next(k + 1 for k, l in enumerate(ptx.split("\n")) if "ld.shared.v4.u32" in l)
    with pytest.raises(EmulationError) as ei:
        run(ptx)
    msg = str(ei.value)
    assert msg.startswith(f"/src/gemm.mlir:27:5: error: PTX line {ptx_line}: `ld.shared.v4.u32"), msg
    assert "races with the cp.async" in msg and ei.value.source == "/src/gemm.mlir:27:5"
    with pytest.raises(EmulationError) as lenient:  # a race overlaps real bytes: a fault in lenient mode too
        run(ptx, strict=False)
    assert str(lenient.value).startswith("/src/gemm.mlir:27:5: error: ") and "[a race" in str(lenient.value)


def test_fault_deadlock_and_warning_name_the_source():
    head = ".version 8.0\n.target sm_90a\n.address_size 64\n" + FILE
    oob = head + """.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<4>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd1, %rd1;
  .loc 1 40 9
  div.u32 %r1, 7, 0;
  .loc 1 41 2
  st.global.u32 [%rd1+4096], %r1;
  ret;
}
"""
    with pytest.raises(EmulationError) as ei:
        run_ptx(oob, "k", [np.zeros(4, np.uint32)], block=(32, 1, 1))
    assert str(ei.value).startswith("/src/gemm.mlir:41:2: error: PTX line 14: `st.global.u32"), \
        str(ei.value)
    ok = oob.replace("[%rd1+4096]", "[%rd1]")
    res = run_ptx(ok, "k", [np.zeros(4, np.uint32)], block=(32, 1, 1))
    assert any(w.startswith("/src/gemm.mlir:40:9: warning: ") and "PTX line 12" in w
               for w in res.warnings), res.warnings
    dead = head + """.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  .shared .align 8 .b64 mb;
  mov.u32 %r2, %tid.x;
  setp.eq.u32 %p1, %r2, 0;
  mov.u32 %r1, mb;
  @%p1 mbarrier.init.shared.b64 [%r1], 2;
  .loc 1 55 4
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 0;
  @!%p1 bra WAIT;
  ret;
}
"""
    with pytest.raises(EmulationError) as ei:
        run_ptx(dead, "k", [], block=(32, 1, 1))
    msg = str(ei.value)
    assert msg.startswith("/src/gemm.mlir:55:4: error: deadlock"), msg
    assert "/src/gemm.mlir:55:4: PTX line 16 `mbarrier.try_wait" in msg, msg
