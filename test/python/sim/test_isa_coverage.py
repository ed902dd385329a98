"""The ISA coverage table and its machinery: statuses derived from tile-sim, the test registry,
the command, and decode's report of every unsupported instruction of a kernel at once."""

from __future__ import annotations

import os
import re

import pytest

import tiers
from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim import __main__ as cli
from tile_mlir.sim import coverage
from tile_mlir.sim.coverage import table
from tile_mlir.sim.coverage import load, summary
from tile_mlir.sim.coverage.tests import TESTS, checking_test

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


def test_registered_tests_exist():
    """Every test the registry names is a test function of an existing file."""
    for _, tid in TESTS:
        path, name = tid.split("::")
        text = open(os.path.join(ROOT, path)).read()
        assert re.search(rf"^def {name}\(", text, re.M), tid


def test_table_source_and_forms():
    data = load()
    src = data["source"]
    assert src["ptx_version"] == "8.8" and src["targets"] == ["sm_80", "sm_90a", "sm_100a"]
    forms = [r["form"] for r in data["forms"]]
    assert len(forms) == len(set(forms))
    for f in ("add.rz.ftz.f32", "fma.rn.f32x2", "max.NaN.f32", "cvt.rn.satfinite.e2m1x2.f32",
              "cvt.rp.satfinite.ue8m0x2.f32", "fma.rn.f32.bf16", "setmaxnreg.inc.sync.aligned.u32"):
        assert f in forms, f
    assert checking_test("add.rm.f64").endswith("test_arith_rows")
    assert checking_test("ex2.approx.ftz.f32").endswith("test_instruction_in_a_kernel")
    assert checking_test("createpolicy.cvt.L2.b64").endswith("test_hint_rows")
    assert checking_test("wmma.load.a.sync.aligned.row.m16n16k16.f16") is None  # refused


@pytest.mark.tiered
def test_coverage_command(capsys, monkeypatch):
    # coverage.rows decodes every form of the table (8,802: 6 s of CPU): once here, not once a command,
    # and in the fast tier only the forms of the two families the commands print
    if tiers.FAST:
        full = table.load()
        part = dict(full, forms=[f for f in full["forms"] if f["file"] in ("copysign", "cvt")])
        monkeypatch.setattr(table, "load", lambda: part)
    rows = coverage.rows()
    monkeypatch.setattr(coverage, "rows", lambda: list(rows))
    assert cli.main(["coverage", "--family", "copysign"]) == 0
    out = capsys.readouterr().out
    assert "copysign" in out and re.search(r"total: 2 rows, 2 supported \(100\.0 %\)", out)
    assert cli.main(["coverage", "--status", "refused", "--family", "cvt"]) == 0
    out = capsys.readouterr().out
    assert "cvt.rs.f16x2.f32" in out and "stochastic rounding" in out


def test_markdown_section_counts():
    from tile_mlir.sim.coverage import Row
    from tile_mlir.sim.coverage.markdown import BEGIN, END, section
    rs = [Row("add.f32", "add", "", [], "supported", "t::a"),
          Row("div.approx.f32", "div", "", [], "refused", "an approximation")]
    text = section(rs)
    assert text.startswith(BEGIN) and END in text
    assert "**2 forms: 1 supported (50.0 %), 0 decoded but untested, 1 refused.**" in text
    assert summary(rs) == {"rows": 2, "supported": 1, "untested": 0, "refused": 1}


def test_decode_reports_every_unsupported_instruction_at_once():
    """Three forms tile-sim refuses, one of them twice: one error, before anything runs, naming
    each form with its count and lines."""
    body = """
    .reg .b32 %r<8>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    div.approx.f32 %r1, %r2, %r3;
    cvt.rs.f16x2.f32 %r4, %r2, %r3, %r1;
    div.approx.f32 %r1, %r1, %r3;
    mbarrier.pending_count.b64 %r5, %rd1;
    st.global.u32 [%rd1], %r1;
    ret;
"""
    ptx = HEADER + ".visible .entry k(.param .u64 p)\n{" + body + "}\n"
    import numpy as np
    out = np.zeros(1, np.uint32)
    with pytest.raises(EmulationError) as e:
        run_ptx(ptx, "k", [out], block=(1, 1, 1))
    msg = e.value.message
    assert "cannot run 4 instructions of k (3 forms); nothing ran" in msg
    assert re.search(r"`div\.approx\.f32` x2 \(PTX lines \d+, \d+\)", msg)
    assert "`cvt.rs.f16x2.f32` x1" in msg and "`mbarrier.pending_count.b64` x1" in msg
    assert out[0] == 0
