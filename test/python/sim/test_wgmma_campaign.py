"""Replays the shipped H200 wgmma campaign (bench/wgmma/cases) on tile-sim: the PTX regenerated from
each sampled configuration is the one whose cubin ran on the H200, and tile-sim still gives the
H200-confirmed outputs bit for bit (bench/results/h200-wgmma-campaign-2026-12-01.log: 2400 of 2400
cases matched)."""

import hashlib
import json
import os

import numpy as np
import pytest

from wgmma_cases import BENCH, cases, kernels, run

pytestmark = pytest.mark.slow  # the H200 wgmma campaign's cases, replayed

CASES = os.path.join(BENCH, "cases")
LOG = os.path.join(BENCH, "..", "results", "h200-wgmma-campaign-2026-12-01.log")

with open(os.path.join(CASES, "manifest.json")) as f:
    MANIFEST = json.load(f)
with np.load(os.path.join(CASES, "sample.npz")) as z:
    SAMPLE = {k: z[k] for k in z.files}
CONFIGS = {c["name"]: c for c in MANIFEST["configs"]}


def test_h200_log_confirms_every_case():
    with open(LOG) as f:
        total = [ln for ln in f if ln.startswith("total:")][0]
    n = sum(len(c["modes"]) for c in MANIFEST["configs"])
    assert total.startswith(f"total: {n} match, 0 mismatch, 0 crash"), total
    assert n >= 2000


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_sampled_case_replays_bit_for_bit(name):
    cfg = CONFIGS[name]
    ptx = kernels.module([kernels.entry(cfg, cfg["name"])])
    assert hashlib.sha256(ptx.encode()).hexdigest()[:24] == cfg["ptx_sha256"]
    one = dict(cfg, modes=cfg["modes"][:1])  # instance 0: its inputs depend on the seed alone
    out, _ = run(one, ptx)
    assert np.array_equal(out[0], SAMPLE[name])
    assert cases.digest(out[0]) == cfg["expected"][0]
