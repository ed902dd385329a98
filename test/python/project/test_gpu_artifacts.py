"""The compiled GPU artifacts (bench/gpu/artifacts, bench/gpu/blackwell) are what today's compiler
makes: their generators run into a temporary folder and every file must come out byte for byte as
committed. (test_tracked_files.py checks the generators' sources; this catches a compiler change that
alters the PTX, the cubin or the manifest, e.g. the parameter names.)"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # regenerates every committed GPU artifact

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("generator, folder", [
    ("bench/gpu/make_hopper_artifacts.py", "bench/gpu/artifacts"),
    ("bench/gpu/make_blackwell_demo.py", "bench/gpu/blackwell"),
])
def test_compiled_artifacts_are_current(tmp_path, generator, folder):
    env = {**os.environ, "TILE_MLIR_BINDINGS": "cutlass"}  # the default provider builds the artifacts
    run = subprocess.run([sys.executable, str(ROOT / generator), str(tmp_path)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    made = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = {p.name: p.read_bytes() for p in (ROOT / folder).iterdir() if p.name in made}
    assert made.keys() == committed.keys(), f"not committed: {sorted(made.keys() - committed.keys())}"
    stale = sorted(name for name in made if made[name] != committed[name])
    assert not stale, f"stale: run make gpu-artifacts ({', '.join(stale)})"
