"""bench/zoo/farm.py, the campaign runner for exploration on many cores: jobs of (kernel, seed,
schedules) run on a process pool and are logged; the tally adds the seeds of a kernel and counts a
seed logged twice once; the plan sizes the jobs that bring every kernel to the target by the rates
the log measured (tile-sim; docs/emulator.md §15)."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
FARM = os.path.join(ROOT, "bench", "zoo", "farm.py")


def _farm(*args, env=None):
    e = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python"), **(env or {})}
    return subprocess.run([sys.executable, FARM, *args], capture_output=True, text=True, env=e,
                          check=True).stdout


def test_a_campaign_runs_tallies_and_plans(tmp_path):
    jobs, log, plan = tmp_path / "jobs", tmp_path / "log.jsonl", tmp_path / "plan"
    # the same seed twice (counted once), a second seed, and a job with its own bound (CAP)
    jobs.write_text("triton_layer_norm_fwd_10 7 30\ntriton_layer_norm_fwd_10 7 20\n"
                    "triton_layer_norm_fwd_10 8 25\nhopper_cta_norm_rms 7 5 60\n")
    out = _farm("run", str(jobs), "--workers", "2", "--seconds", "300", "--log", str(log))
    assert out.count("clean") == 4, out
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert {(e["name"], e["seed"], e["schedules"]) for e in entries} == {
        ("triton_layer_norm_fwd_10", 7, 30), ("triton_layer_norm_fwd_10", 7, 20),
        ("triton_layer_norm_fwd_10", 8, 25), ("hopper_cta_norm_rms", 7, 5)}
    table = _farm("tally", str(log), "--target", "50")
    row = next(r for r in table.splitlines() if r.startswith("| triton_layer_norm_fwd_10 "))
    assert row.split("|")[2].strip() == "55" and row.split("|")[4].strip() == "7..8"
    assert "1 at 50 schedules or more" in table
    _farm("plan", str(log), "--target", "50", "--seconds", "100", "--out", str(plan),
          "--first-seed", "7")
    lines = plan.read_text().splitlines()
    rms = [ln.split() for ln in lines if ln.startswith("hopper_cta_norm_rms ")]
    assert sum(int(n) for _, _, n in rms) == 45 and all(int(s) >= 8 for _, s, _ in rms)
    assert not any(ln.startswith("triton_layer_norm_fwd_10 ") for ln in lines)  # at the target


@pytest.mark.slow  # (a local dask cluster's start-up)
def test_a_campaign_runs_on_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    jobs, log = tmp_path / "jobs", tmp_path / "log.jsonl"
    jobs.write_text("triton_layer_norm_fwd_10 9 20\nhopper_cta_norm_rms 9 10\n")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
        _farm("run", str(jobs), "--scheduler", cluster.scheduler_address, "--seconds", "120",
              "--log", str(log))
    got = {(e["name"], e["schedules"], e["failure"])
           for e in map(json.loads, log.read_text().splitlines())}
    assert got == {("triton_layer_norm_fwd_10", 20, None), ("hopper_cta_norm_rms", 10, None)}
