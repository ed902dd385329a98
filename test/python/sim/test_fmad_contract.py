"""tile-sim fuses a ``mul`` and an ``add`` / ``sub`` without rounding modifiers into one ``fma``, as
ptxas does by default (sim/contract.py; docs/emulator.md Table A row A53).

Inputs a = b = 1 + 2^-12 make the two answers differ: a * b = 1 + 2^-11 + 2^-24 exactly, which f32
rounds (a tie, to even) to 1 + 2^-11; so a * b - 1 is 2^-11 (0x3A000000) when the product is rounded
first and 2^-11 + 2^-24 (0x3A000400, exact) when fused. Which one the hardware computes is the
assembler's choice: the SASS check below reads it from ptxas's own output (an FFMA where the PTX
has a mul and a sub), and the foreign corpus's attention kernels run bit for bit an H100 with it
(bench/results/corpus-gpu-2026-12-07.txt)."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from ptxgen import find_ptxas
from tile_mlir.runtime.disasm import find_nvdisasm
from tile_mlir.sim import run_ptx

A = "0f3F800800"  # 1 + 2^-12
FUSED, ROUNDED = 0x3A000400, 0x3A000000


def kernel(body: str) -> str:
    return (".version 8.8\n.target sm_90a\n.address_size 64\n"
            ".visible .entry k(.param .u64 out)\n{\n"
            "\t.reg .f32 %f<12>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n"
            "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            f"\tmov.f32 %f1, {A};\n\tmov.f32 %f2, {A};\n\tmov.f32 %f5, 0f3F800000;\n"
            + body + "\tret;\n}\n")


def run(body: str, n: int = 1) -> list[int]:
    out = np.zeros(n, np.uint32)
    run_ptx(kernel(body), "k", [out], block=(1, 1, 1))
    return [int(x) for x in out]


ST = "\tst.global.f32 [%rd1], %f4;\n"
ST2 = ST + "\tst.global.f32 [%rd1+4], %f6;\n"


@pytest.mark.parametrize("body, want", [
    ("\tmul.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f3, %f5;\n" + ST, [FUSED]),
    ("\tmul.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f5, %f3;\n" + ST, [FUSED | 1 << 31]),  # 1 - a*b
    ("\tneg.f32 %f5, %f5;\n\tmul.f32 %f3, %f1, %f2;\n\tadd.f32 %f4, %f5, %f3;\n" + ST, [FUSED]),
    ("\tmul.ftz.f32 %f3, %f1, %f2;\n\tsub.ftz.f32 %f4, %f3, %f5;\n" + ST, [FUSED]),
    # one product feeding two sums: both fused (the assembler fuses each use)
    ("\tmul.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f3, %f5;\n\tsub.f32 %f6, %f3, %f5;\n" + ST2,
     [FUSED, FUSED]),
], ids=["sub", "sub-product-second", "add", "ftz", "two-uses"])
def test_fused(body, want):
    assert run(body, len(want)) == want


@pytest.mark.parametrize("body", [
    "\tmul.rn.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f3, %f5;\n",  # a rounding modifier forbids it
    "\tmul.f32 %f3, %f1, %f2;\n\tsub.rn.f32 %f4, %f3, %f5;\n",
    "\tmul.ftz.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f3, %f5;\n",  # .ftz on one of them only
    "\tmul.f32 %f3, %f1, %f2;\n\tmov.f32 %f3, %f3;\n\tsub.f32 %f4, %f3, %f5;\n",  # %f3 redefined
    "\tsetp.eq.f32 %p1, %f5, %f5;\n\t@%p1 mul.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f3, %f5;\n",
    # the product also read by something other than a sum (here a store): computed as such, sums apart
    "\tmul.f32 %f3, %f1, %f2;\n\tst.global.f32 [%rd1+8], %f3;\n\tsub.f32 %f4, %f3, %f5;\n",
], ids=["mul.rn", "sub.rn", "ftz-mismatch", "redefined", "guarded", "read-elsewhere"])
def test_not_fused(body):
    assert run(body + ST, 3)[0] == ROUNDED


def test_switch_off(monkeypatch):
    monkeypatch.setenv("TILE_MLIR_SIM_FMAD", "0")
    assert run("\tmul.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f3, %f5;\n" + ST) == [ROUNDED]


def test_ptxas_fuses_the_pairs_tile_sim_fuses():
    """ptxas's SASS has an FFMA for each pair tile-sim fuses and none where it does not."""
    ptxas, nvdisasm = find_ptxas(), find_nvdisasm()
    if ptxas is None or nvdisasm is None:
        pytest.skip("ptxas and nvdisasm are needed to read the assembler's choice")

    def ffmas(body):
        with tempfile.TemporaryDirectory() as d:
            src, cubin = Path(d, "k.ptx"), Path(d, "k.cubin")
            src.write_text(kernel(body))
            subprocess.run([ptxas, "-arch=sm_90a", str(src), "-o", str(cubin)], check=True)
            sass = subprocess.run([nvdisasm, "-c", str(cubin)], capture_output=True, text=True,
                                  check=True).stdout
        return len(re.findall(r"\bFFMA\b", sass))
    # the inputs from memory, so that ptxas cannot fold the arithmetic away
    load = "\tld.global.f32 %f1, [%rd1];\n\tld.global.f32 %f2, [%rd1+4];\n\tld.global.f32 %f5, [%rd1+8];\n"
    assert ffmas(load + "\tmul.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f3, %f5;\n" + ST) == 1
    assert ffmas(load + "\tmul.rn.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f3, %f5;\n" + ST) == 0
    # a product a shuffle also reads stays an FMUL, its sum an FADD (test_foreign_ptx's CuTe ping-pong)
    assert ffmas(load + "\tmul.f32 %f3, %f1, %f2;\n\tst.global.f32 [%rd1+8], %f3;\n"
                 "\tsub.f32 %f4, %f3, %f5;\n" + ST) == 0
