"""setmaxnreg: the register count's range and step refused at decode, the warpgroup rules and the
CTA's register pool checked as the PTX ISA states them (findings in lenient mode, errors strict)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim.handlers.regpool import ASSUMED

HEAD = ".version 8.8\n.target sm_90a\n.address_size 64\n"


def kernel(body, directives=""):
    return (HEAD + f".visible .entry k(.param .u64 pout){directives}\n{{\n"
            "\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n"
            "\tld.param.u64 %rd1, [pout];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 7;\n"  # %r2: the warpgroup
            "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd2, %rd1, %rd2;\n" + body +
            "\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n")


# CUTLASS's warp-specialised split: warpgroup 0 (producer) gives registers up, 1 and 2 take them
SPLIT = ("\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra PRODUCER;\n"
         "\tsetmaxnreg.inc.sync.aligned.u32 240;\n\tbra.uni DONE;\n"
         "PRODUCER:\n\tsetmaxnreg.dec.sync.aligned.u32 24;\nDONE:\n")


def test_warp_specialised_split_runs_clean(assemble):
    assemble(kernel(SPLIT), "sm_90a")
    out = np.zeros(384, np.uint32)
    res = run_ptx(kernel(SPLIT), "k", [out], block=(384, 1, 1), strict=False)
    assert res.findings == [] and (out == np.arange(384)).all()
    assert ASSUMED["launch_count"](12) == 168  # 384 threads start at 168 registers


def test_inc_waits_for_the_dec_that_frees_the_pool(assemble):
    """.maxnreg 168 x 384 threads leaves 1024 registers of the pool free: each consumer warp's
    .inc to 232 needs 2048, which only the producer's .dec to 40 frees (the consumers block until
    then)."""
    body = ("\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra PRODUCER;\n"
            "\tsetmaxnreg.inc.sync.aligned.u32 232;\n\tbra.uni DONE;\n"
            "PRODUCER:\n\tsetmaxnreg.dec.sync.aligned.u32 40;\nDONE:\n")
    ptx = kernel(body, " .maxnreg 168")
    assemble(ptx, "sm_90a")
    out = np.zeros(384, np.uint32)
    res = run_ptx(ptx, "k", [out], block=(384, 1, 1), strict=False)
    assert res.findings == [] and (out == np.arange(384)).all()


def test_inc_beyond_the_pool_never_returns():
    body = "\tsetmaxnreg.inc.sync.aligned.u32 256;\n"
    with pytest.raises(EmulationError, match=r"setmaxnreg|livelock"):
        run_ptx(kernel(body), "k", [np.zeros(384, np.uint32)], block=(384, 1, 1),
                strict=False, max_steps=20000)


def test_warps_of_a_warpgroup_disagree_is_a_finding(assemble):
    body = ("\tsetp.lt.u32 %p1, %r1, 64;\n\t@%p1 bra A;\n"
            "\tsetmaxnreg.dec.sync.aligned.u32 40;\n\tbra.uni DONE;\n"
            "A:\n\tsetmaxnreg.dec.sync.aligned.u32 56;\nDONE:\n")
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    lines = ptx.split("\n")
    res = run_ptx(ptx, "k", [np.zeros(128, np.uint32)], block=(128, 1, 1), strict=False)
    rules = {(f.rule, lines[f.line - 1].strip()) for f in res.findings}
    assert {r for r, _ in rules} == {"setmaxnreg"}
    assert any("must be executed by all warps" in f.message for f in res.findings)
    with pytest.raises(EmulationError, match="setmaxnreg"):
        run_ptx(ptx, "k", [np.zeros(128, np.uint32)], block=(128, 1, 1), strict=True)


def test_partial_warpgroup_and_wrong_direction_are_findings():
    body = "\tsetmaxnreg.inc.sync.aligned.u32 64;\n"
    res = run_ptx(kernel(body, " .maxnreg 128"), "k", [np.zeros(64, np.uint32)],
                  block=(64, 1, 1), strict=False)
    msgs = " ".join(f.message for f in res.findings)
    assert {f.rule for f in res.findings} == {"setmaxnreg", "setmaxnreg.count"}
    assert "has 2 warps, not 4" in msgs and ".inc must not lower" in msgs


@pytest.mark.parametrize("n", [16, 264, 100])
def test_count_out_of_range_or_step_is_refused(n):
    with pytest.raises(EmulationError, match=r"\[24, 256\] and a multiple of 8"):
        run_ptx(kernel(f"\tsetmaxnreg.dec.sync.aligned.u32 {n};\n"), "k",
                [np.zeros(128, np.uint32)], block=(128, 1, 1))
