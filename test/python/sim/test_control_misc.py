"""trap and brkpt stop the run at their line; nanosleep, prefetch and prefetchu change nothing."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

HEAD = ".version 8.8\n.target sm_90a\n.address_size 64\n"


def kernel(body, funcs=""):
    return (HEAD + funcs + ".visible .entry k(.param .u64 pout)\n{\n\t.reg .pred %p<2>;\n"
            "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [pout];\n"
            "\tcvta.to.global.u64 %rd1, %rd1;\n\tmov.u32 %r1, %tid.x;\n" + body +
            "\tst.global.u32 [%rd1], 7;\n\tret;\n}\n")


@pytest.mark.parametrize("inst", ["trap", "brkpt"])
def test_trap_and_brkpt_fault_at_their_line(inst, assemble):
    ptx = kernel(f"\tsetp.eq.u32 %p1, %r1, 3;\n\t@%p1 {inst};\n")
    assemble(ptx, "sm_90a")
    line = next(i for i, l in enumerate(ptx.split("\n"), 1) if inst in l)
    out = np.zeros(1, np.uint32)
    with pytest.raises(EmulationError, match=f"{inst} executed") as e:
        run_ptx(ptx, "k", [out], block=(32, 1, 1))
    assert e.value.line == line and "lane 3" in str(e.value)


def test_hints_change_nothing(assemble):
    body = ("\tnanosleep.u32 100;\n\tnanosleep.u32 %r1;\n\tprefetch.global.L2 [%rd1];\n"
            "\tprefetch.global.L1 [%rd1];\n\tprefetchu.L1 [%rd1];\n\tprefetch.L2::evict_last [%rd1];\n")
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    out = np.zeros(1, np.uint32)
    run_ptx(ptx, "k", [out], block=(32, 1, 1), strict=True)
    assert out[0] == 7
