"""Issue #22: st.const is refused as ptxas refuses it (it ran); a .sync warp instruction whose
membermask does not hold the executing thread is an error at once (shfl.sync with membermask 0 spun
until the step budget)."""
import time

import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx


def kernel(body, decls=""):
    return (HEADER + decls + ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
            "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"
            "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n" + body + "\tret;\n}\n")


def test_st_const_is_refused():
    ptx = kernel("\tmov.u32 %r1, 5;\n\tst.const.u32 [c], %r1;\n", decls=".const .align 4 .b32 c[4];\n")
    with pytest.raises(EmulationError, match="st.const: the constant state space is read-only"):
        run_ptx(ptx, "k", [np.zeros(32, np.uint32)], block=32)


@pytest.mark.parametrize("mask", ["0", "%r3"])
def test_shfl_with_membermask_0_is_an_error_not_a_spin(mask):
    body = ("\tmov.u32 %r3, 0;\n\tmov.u32 %r1, %tid.x;\n"
            f"\tshfl.sync.idx.b32 %r2, %r1, 0, 31, {mask};\n\tst.global.u32 [%rd1], %r2;\n")
    start = time.monotonic()
    with pytest.raises(EmulationError, match="membermask 0x00000000 does not hold the executing lane"):
        run_ptx(kernel(body), "k", [np.zeros(32, np.uint32)], block=32)
    assert time.monotonic() - start < 10


def test_full_membermask_still_shuffles():
    body = ("\tmov.u32 %r1, %tid.x;\n\tshfl.sync.idx.b32 %r2, %r1, 3, 31, 0xffffffff;\n"
            "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd2, %rd1, %rd2;\n\tst.global.u32 [%rd2], %r2;\n")
    out = np.zeros(32, np.uint32)
    run_ptx(kernel(body), "k", [out], block=32)
    assert (out == 3).all()
