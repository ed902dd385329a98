"""Replay of the H200 TMA campaign on tile-sim: a sample of the shipped cases (bench/tma/cases/),
re-simulated, must give the bytes the H200 gave (bench/results/h200-tma-campaign-2026-12-01.log:
640 of 640 cases byte-identical).  The full bytes of the first cases are shipped; the others are
checked by their sha256.  The shipped PTX and cubin must be what the generator makes today."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the H200 TMA campaign's cases, replayed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HERE = os.path.join(ROOT, "bench", "tma")
CASES = os.path.join(HERE, "cases")
sys.path.append(HERE)


def _module(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


campaign = _module("tma_campaign", "campaign.py")
tma_kernels = _module("tma_kernels", "tma_kernels.py")
with open(os.path.join(CASES, "cases.json")) as f:
    BOOK = json.load(f)
with np.load(os.path.join(CASES, "expected_sample.npz")) as z:
    FULL = {k: z[k] for k in z.files}
PTX = tma_kernels.module()
# every full-bytes case, and every 29th of the rest (29 is prime to the generator's kind cycle)
SAMPLE = [c for c in BOOK["cases"] if f"case{c['id']}" in FULL][:24] + \
    [c for c in BOOK["cases"] if f"case{c['id']}" not in FULL][::29]


def test_shipped_ptx_is_the_generators():
    with open(os.path.join(CASES, "tma.ptx")) as f:
        assert f.read() == PTX, "stale: run bench/tma/campaign.py"


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="no ptxas")
def test_shipped_cubin_is_ptxas_of_the_ptx(tmp_path):
    out = tmp_path / "tma.cubin"
    subprocess.run(["ptxas", "-arch=sm_90a", os.path.join(CASES, "tma.ptx"), "-o", str(out)],
                   check=True)
    with open(os.path.join(CASES, "tma.cubin"), "rb") as f:
        assert out.read_bytes() == f.read()


def test_campaign_coverage():
    """The campaign the H200 ran covers what issue 11 asks for."""
    cases = BOOK["cases"]
    assert len(cases) >= 500
    assert {c["swizzle"] for c in cases} == {"none", "32b", "64b", "128b"}
    assert {campaign.C.DTYPES[c["dtype"]][1] for c in cases} >= {1, 2, 4}
    assert {len(c["dims"]) for c in cases} >= {2, 3, 4, 5}
    assert sum(c["category"].endswith("/edge") for c in cases) > 100
    assert sum(any(x < 0 for x in c["coords"]) for c in cases) > 50
    assert sum(c["kind"] == "mcast" and c["cluster"] == [2, 1, 1] for c in cases) > 50
    assert sum(c["kind"] == "store" for c in cases) > 50
    assert sum(any(e > 1 for e in c["estrides"]) for c in cases) > 20


@pytest.mark.parametrize("case", SAMPLE, ids=lambda c: f"{c['id']}-{c['category']}")
def test_replay(case):
    got = campaign.simulate(PTX, case)
    full = FULL.get(f"case{case['id']}")
    if full is not None:
        g = np.frombuffer(got, np.uint8)
        assert g.shape == full.shape
        bad = np.nonzero(g != full)[0]
        assert not bad.size, (f"{bad.size} bytes differ from the H200's, first at {bad[0]}: "
                              f"tile-sim {g[bad[0]]:#x}, H200 {full[bad[0]]:#x}")
    assert campaign.C.digest(got) == case["expected_sha256"]
