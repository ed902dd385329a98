"""tile-sim's .approx math (ex2, lg2, rcp, rsqrt, sqrt, sin, cos, tanh) against literal GPU outputs.

test/fixtures/approx/approx_gpu_outputs.json holds, per instruction form, ~300 inputs (special values,
range boundaries, one input per exponent) and the outputs an sm_90 GPU gave for them
(bench/gpu/approx/fixture.py); the exhaustive check over every input is bench/gpu/approx/check.py
(docs/emulator.md, "Approximate math").
"""

import json
from pathlib import Path

import numpy as np
import pytest

from isa_harness import isa_rows
from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim.handlers.approx import FORMS

FIXTURE = Path(__file__).parents[2] / "fixtures" / "approx" / "approx_gpu_outputs.json"
GPU = json.loads(FIXTURE.read_text())
DT = {16: np.uint16, 32: np.uint32, 64: np.uint64}


def test_every_form_has_gpu_outputs():
    assert set(GPU["forms"]) == set(FORMS)


def test_registered_rows_are_the_forms_run_here():
    """The coverage table's rows registered to test_instruction_in_a_kernel are exactly the forms
    it runs (sim/coverage/tests.py)."""
    rows = isa_rows("test/python/sim/test_approx.py::test_instruction_in_a_kernel")
    assert {r["form"] for r in rows} == set(GPU["forms"])


@pytest.mark.parametrize("form", sorted(GPU["forms"]))
def test_model_equals_gpu(form):
    fn, w = FORMS[form]
    x, y = (np.array(v, DT[w]) for v in zip(*GPU["forms"][form]))
    got = fn(x)
    bad = [(hex(int(a)), hex(int(b)), hex(int(c))) for a, b, c in zip(x, y, got) if b != c]
    assert not bad, f"{form}: {len(bad)} of {len(x)} differ (input, gpu, model): {bad[:5]}"


def _kernel(form, w, n):
    reg = {16: ".b16 %h<3>", 32: ".b32 %r<3>", 64: ".b64 %d<3>"}[w]
    r = {16: "%h", 32: "%r", 64: "%d"}[w]
    sz = w // 8
    return (HEADER + ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
            f"\t.reg .b64 %rd<8>;\n\t.reg .b32 %t<2>;\n\t.reg {reg};\n"
            "\tld.param.u64 %rd1, [k_in];\n\tld.param.u64 %rd2, [k_out];\n"
            "\tmov.u32 %t1, %tid.x;\n"
            f"\tmul.wide.u32 %rd3, %t1, {sz};\n\tadd.s64 %rd4, %rd1, %rd3;\n\tadd.s64 %rd5, %rd2, %rd3;\n"
            f"\tld.global.b{w} {r}1, [%rd4];\n\t{form} {r}2, {r}1;\n\tst.global.b{w} [%rd5], {r}2;\n"
            "\tret;\n}\n")


@pytest.mark.parametrize("form", sorted(GPU["forms"]))
def test_instruction_in_a_kernel(form, assemble):
    """The handler runs the model: 32 inputs of the table through one warp of a PTX kernel."""
    w = FORMS[form][1]
    pairs = GPU["forms"][form][::max(1, len(GPU["forms"][form]) // 32)][:32]
    x, y = (np.array(v, DT[w]) for v in zip(*pairs))
    src = _kernel(form, w, len(x))
    assemble(src)
    out = np.zeros_like(x)
    run_ptx(src, "k", [x, out], block=(len(x), 1, 1))
    assert out.tolist() == y.tolist()


@pytest.mark.parametrize("form", ["ex2.approx.ftz.f16", "lg2.approx.f16", "ex2.approx.bf16",
                                  "rcp.approx.f64", "sin.approx.f64", "tanh.approx.ftz.f32"])
def test_forms_outside_the_isa_are_refused(form):
    w = 64 if form.endswith("f64") else 16 if "16" in form else 32
    with pytest.raises(EmulationError, match=r"not an instruction form of the PTX ISA.*\.approx forms"):
        run_ptx(_kernel(form, w, 1), "k", [np.zeros(1, DT[w]), np.zeros(1, DT[w])], block=(1, 1, 1))
