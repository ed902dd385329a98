"""setmaxnreg on tile-sim: executed by whole warps (.sync.aligned), its register count checked against the
PTX ISA's range (a multiple of 8 in [24, 256]); registers are no budget in tile-sim, so it changes no data."""

import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx

REGS = "\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"


def kernel(body):
    return (HEADER + ".visible .entry k(\n\t.param .u64 .ptr .global .align 8 k_param_0\n)\n{\n"
            + REGS + "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tmov.u32 %r1, %tid.x;\n" + body
            + "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n}\n")


def test_producer_releases_consumers_take(assemble):
    body = ("\tshr.u32 %r2, %r1, 7;\n\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra $L__producer;\n"
            "\tsetmaxnreg.inc.sync.aligned.u32 232;\n\tbra.uni $L__done;\n"
            "$L__producer:\n\tsetmaxnreg.dec.sync.aligned.u32 40;\n$L__done:\n")
    ptx = kernel(body)
    assemble(ptx)
    out = np.zeros(256, np.uint32)
    run_ptx(ptx, "k", [out], block=(256, 1, 1))
    assert list(out) == list(range(256))


@pytest.mark.parametrize("count", [16, 100, 264])
def test_register_count_out_of_range(count):
    with pytest.raises(EmulationError, match="multiple of 8 in \\[24, 256\\]"):
        run_ptx(kernel(f"\tsetmaxnreg.inc.sync.aligned.u32 {count};\n"), "k", [np.zeros(32, np.uint32)],
                block=(32, 1, 1))


def test_partial_warp_is_a_convergence_error():
    body = "\tsetp.eq.u32 %p1, %r1, 5;\n\t@%p1 bra $L__x;\n\tsetmaxnreg.dec.sync.aligned.u32 40;\n$L__x:\n"
    with pytest.raises(EmulationError, match="convergence error"):
        run_ptx(kernel(body), "k", [np.zeros(32, np.uint32)], block=(32, 1, 1))
