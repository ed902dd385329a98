"""The adversarial harness's smoke run (bench/adversary.py): 200 tile-IR mutants through
tile-opt --tile-to-ptx (+ ptxas), 50 bytecode mutants, 200 PTX mutants on tile-sim and 40 surface
cases (subview windows checked against numpy, edited manifests, hostile cache entries) end in a
diagnostic or are accepted, never in a wrong result, a traceback, signal, hang, internal error, PTX that ptxas rejects or a silent exit.
A failing case replays with `bench/adversary.py --replay <key>`."""
from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from tile_mlir.driver.toolchain import find_tool

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
_spec = importlib.util.spec_from_file_location("adversary", os.path.join(ROOT, "bench", "adversary.py"))
adversary = sys.modules["adversary"] = importlib.util.module_from_spec(_spec)  # dataclasses look it up
_spec.loader.exec_module(adversary)

CASES = 200
BC_CASES = 50  # bytecode mutants (issue #22): each parse forks a probe, so fewer
SURF_CASES = 40  # windows run on tile-sim, manifests, cache entries (issue #22): each compiles a kernel
# CPU seconds per case after its start-up (a case blocked without the CPU: 4x that in wall time). Most cases
# take about 1 s; an accepted ptx:0:136 (ampere_sgemm, a predicate mutated: ~900,000 f32 fma whose accumulator
# overflowed to inf / NaN) took 14.7 s when tile-sim's fast f32 path left specials to its exact one, ~8 s of
# emulation since it takes them; the margin stays for loaded machines
TIMEOUT = 30.0


def _child(before_ready: float, after_ready: float) -> list[str]:
    """A sim-child stand-in: sleeps, reports ready on the READY_FD pipe, sleeps, exits 0."""
    code = (f"import os, time; time.sleep({before_ready}); "
            f"os.write(int(os.environ[{adversary.READY_FD!r}]), b'1'); time.sleep({after_ready})")
    return [sys.executable, "-c", code]


def test_the_timeout_excludes_start_up_but_catches_a_hang():
    """Start-up (torch + MMA-Sim for a PTX with an MMA) is not the case's time; a hang after it is."""
    assert adversary.run_limited(_child(2.0, 0.0), 1.0, ready=True)[0] == 0
    assert adversary.run_limited(_child(0.0, 60.0), 1.0, ready=True)[0] is None


@pytest.mark.slow  # the adversary's mutation campaign (make test-all)
@pytest.mark.skipif(find_tool("ptxas") is None, reason="ptxas not found")
@pytest.mark.parametrize("campaign", adversary.CAMPAIGNS)
def test_smoke(campaign):
    n = {"bc": BC_CASES, "surf": SURF_CASES}.get(campaign, CASES)
    counts = {f"{c}_cases": n if c == campaign else 0 for c in adversary.CAMPAIGNS}
    results = adversary.run_campaigns(**counts, seed=0, timeout=TIMEOUT, jobs=2)
    assert len(results[campaign]) == n
    bad = adversary.failures(results)
    assert not bad, (f"{len(bad)} of {n} cases failed:\n" + adversary.table(results) + "\n" +
                     adversary.signatures(results))
