"""div.full.f32 as the sequence ptxas emits (sim/div_full.py), over a stand-in for MUFU.RCP (the
correctly rounded reciprocal with .ftz: not the hardware's; sim-approx measures that): the
scalings' effect on literal inputs, and the ISA's 2-ulp bound over a sample with that stand-in.
The sequence itself is read from ptxas's output (test_sequence_is_what_ptxas_emits)."""

import math
import os
import re
import subprocess
import tempfile

import numpy as np
import pytest

from tile_mlir.sim.div_full import div_full_f32
from tile_mlir.sim.fpexact import Spec, rcp
from tile_mlir.sim.fpformat import F32

RCP = Spec(F32, "rn", ftz=True)


def stand_in(b):
    return rcp(b, RCP)


def bits(x):
    return int(np.float32(x).view(np.uint32))


def val(u):
    return float(np.uint32(u).view(np.float32))


@pytest.mark.parametrize("a, b, full, ftz", [
    (1.0, 2.0 ** 127, 2.0 ** -127, 0.0),  # 1/b subnormal: scaled by 1/4 it stays normal
    (3.0, 2.0 ** 127, 3 * 2.0 ** -127, 3 * 2.0 ** -127),  # normal: no flush
    (2.0 ** -10, 2.0 ** -130, 2.0 ** 120, math.inf),  # b subnormal: scaled by 2^24; .ftz: 1/0
    (1.0, 0.0, math.inf, math.inf),
    (-6.0, 3.0, -2.0, -2.0),
    (2.0 ** 100, 2.0 ** -100, math.inf, math.inf),
])
def test_scalings(a, b, full, ftz):
    assert val(div_full_f32(bits(a), bits(b), stand_in)) == full
    assert val(div_full_f32(bits(a), bits(b), stand_in, ftz=True)) == ftz


@pytest.mark.parametrize("a, b", [(0.0, 0.0), (math.inf, math.inf), (math.nan, 1.0),
                                  (1.0, math.nan)])
def test_invalid_is_the_canonical_nan(a, b):
    for ftz in (False, True):
        assert div_full_f32(bits(a), bits(b), stand_in, ftz) == F32.nan


def test_two_ulp_over_a_sample():
    """With a correctly rounded reciprocal, every normal quotient of a sample is within the 2 ulp
    the ISA gives div.full.f32 (the hardware's MUFU.RCP is less accurate: sim-approx's model)."""
    rng = np.random.default_rng(7)
    a = rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32)
    worst = 0.0
    for x, y in zip(a.tolist(), b.tolist()):
        q = float(np.float32(val(x))) / val(y) if val(y) != 0 else math.nan
        if not (math.isfinite(q) and 2.0 ** -126 <= abs(q) < 2.0 ** 127):
            continue
        d = val(div_full_f32(x, y, stand_in))
        ulp = 2.0 ** (math.frexp(q)[1] - 24)
        worst = max(worst, abs(d - q) / ulp)
    assert worst <= 2.0


def test_sequence_is_what_ptxas_emits():
    """ptxas's SASS for div.full.f32 on sm_90a and sm_100a: the compares, scalings, MUFU.RCP and
    FMUL the model follows (skipped without ptxas / nvdisasm)."""
    try:
        from tile_mlir.toolchain import find_tool
        ptxas, nvdisasm = find_tool("ptxas"), find_tool("nvdisasm")
    except Exception:
        ptxas = nvdisasm = None
    if not ptxas or not nvdisasm:
        pytest.skip("no ptxas / nvdisasm")
    ptx = """.version 8.8
.target {arch}
.address_size 64
.visible .entry k(.param .u64 p)
{{
	.reg .b32 %f<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	ld.global.f32 %f1, [%rd1];
	ld.global.f32 %f2, [%rd1+4];
	div.full.f32 %f3, %f1, %f2;
	st.global.f32 [%rd1+8], %f3;
	ret;
}}
"""
    want = ["FSETP.GT.AND P0, PT, |R4|, 8.50705917302346158658e+37, PT",
            "FSETP.GEU.AND P1, PT, |R4|, 1.175494350822287508e-38, PT",
            "@P0 FMUL R4, R4, 0.25", "@P0 FMUL R0, R0, 0.25",
            "@!P1 FMUL R4, R4, 16777216", "@!P1 FMUL R0, R0, 16777216",
            "MUFU.RCP R5, R4", "FMUL R5, R5, R0"]
    for arch in ("sm_90a", "sm_100a"):
        with tempfile.TemporaryDirectory() as d:
            src, cub = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
            open(src, "w").write(ptx.format(arch=arch))
            subprocess.run([ptxas, f"-arch={arch}", "-O3", src, "-o", cub], check=True)
            sass = subprocess.run([nvdisasm, "-c", cub], check=True, capture_output=True,
                                  text=True).stdout
        got = [re.sub(r"\s+", " ", m).strip() for m in
               re.findall(r"/\*[0-9a-f]{4}\*/\s+(.*?) ;", sass)]
        arith = [g for g in got if re.match(r"(@!?P\d )?(FSETP|FMUL|MUFU)", g)]
        assert arith == want, (arch, arith)


def test_div_full_runs_on_the_measured_reciprocal():
    """A kernel's div.full{.ftz}.f32 on tile-sim: the sequence over the measured MUFU.RCP model
    (handlers/approx.py), within the ISA's 2 ulp where the quotient is normal, and the scaled paths
    (a divisor above 2^126, a subnormal one) finite where the quotient is."""
    from tile_mlir.sim import run_ptx
    from tile_mlir.sim.handlers.approx import scalar

    ptx = (".version 8.8\n.target sm_90a\n.address_size 64\n"
           ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd, .param .u64 pe)\n{\n"
           " .reg .b32 %r<4>; .reg .f32 %f<6>; .reg .b64 %rd<12>;\n"
           " ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pd]; ld.param.u64 %rd4, [pe];\n"
           " mov.u32 %r1, %tid.x; mul.wide.u32 %rd5, %r1, 4;\n"
           " add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5; add.s64 %rd8, %rd3, %rd5; add.s64 %rd9, %rd4, %rd5;\n"
           " ld.global.f32 %f1, [%rd6]; ld.global.f32 %f2, [%rd7];\n"
           " div.full.f32 %f3, %f1, %f2; st.global.f32 [%rd8], %f3;\n"
           " div.full.ftz.f32 %f4, %f1, %f2; st.global.f32 [%rd9], %f4;\n ret;\n}\n")
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(128) * 1e3).astype(np.float32)
    b = rng.standard_normal(128).astype(np.float32)
    b[:3] = [3e38, 1e-40, -5e37]
    a[:3] = [1e30, 1e-38, 2.0]
    d, e = np.zeros(128, np.float32), np.zeros(128, np.float32)
    run_ptx(ptx, "k", [a, b, d, e], block=(128, 1, 1))
    rcp_hw = scalar("rcp.approx.ftz.f32")
    for i in range(128):
        x, y = int(a.view(np.uint32)[i]), int(b.view(np.uint32)[i])
        assert int(d.view(np.uint32)[i]) == div_full_f32(x, y, rcp_hw, False)
        assert int(e.view(np.uint32)[i]) == div_full_f32(x, y, rcp_hw, True)
    exact = a[3:].astype(np.float64) / b[3:].astype(np.float64)
    ulps = np.abs(d[3:].astype(np.float64) - exact) / np.spacing(np.abs(exact).astype(np.float32))
    assert ulps.max() <= 2.0
    assert np.isfinite(d[:3]).all() and d[1] != 0  # 1e-38 / 1e-40 = 100: the 2^24 scaling keeps it
