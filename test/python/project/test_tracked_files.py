"""Invariants of the files git tracks: a checkout works on a case-folding file system (macOS, Windows),
and the committed GPU artifacts are current: their sources unchanged, and what today's compiler makes
(their generators run into a temporary folder and every file must come out byte for byte as committed,
which catches a compiler change that alters the PTX, the cubin or the manifest)."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[3]


def tracked_paths() -> list[str]:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout: {e}")
    return out.stdout.decode().split("\0")[:-1]


def test_no_two_paths_differ_only_by_case():
    spellings = defaultdict(set)  # casefolded path -> its spellings, for files and every folder above them
    for path in tracked_paths():
        parts = path.split("/")
        for n in range(1, len(parts) + 1):
            prefix = "/".join(parts[:n])
            spellings[prefix.casefold()].add(prefix)
    clashes = sorted(sorted(s) for s in spellings.values() if len(s) > 1)
    assert not clashes, f"paths that differ only by case: {clashes}"


def artifact_manifests():
    """(path, manifest) of each committed Artifact manifest (Artifact.save's K.json)."""
    for path in tracked_paths():
        if not path.endswith(".json") or not (ROOT / path).is_file():
            continue
        manifest = json.loads((ROOT / path).read_text())
        if isinstance(manifest, dict) and "kernel_name" in manifest:
            yield path, manifest


def test_gpu_artifacts_are_current():
    """Each committed Artifact manifest records the sha256 of its sources in meta["sources"]
    (bench/gpu/provenance.py); none may have changed since it was generated."""
    stale = []
    for path, manifest in artifact_manifests():
        sources = manifest.get("meta", {}).get("sources")
        if not sources:
            stale.append(f"{path}: records no sources")
        for source, digest in (sources or {}).items():
            file = ROOT / source
            if not file.is_file() or hashlib.sha256(file.read_bytes()).hexdigest() != digest:
                stale.append(f"{path}: {source} changed")
    assert not stale, "stale: run make gpu-artifacts\n" + "\n".join(stale)


def test_gpu_artifact_data_has_its_parameters_dtypes():
    """Each array of a manifest's K.inputs.npz / K.expected.npz (bench/gpu/run_artifacts.py) names a
    parameter and has its dtype, or for a dtype only ml_dtypes defines (bf16, f8, f6, f4) the unsigned
    bit patterns the runtime takes for it: anything else the runtime refuses on the device."""
    np = pytest.importorskip("numpy")
    from tile_mlir.runtime.dtypes import BIT_PATTERNS

    wrong, checked = [], 0
    for path, manifest in artifact_manifests():
        params = {p["name"]: p["dtype"] for p in manifest["params"]}
        for kind in ("inputs", "expected"):
            data = ROOT / path.replace(".json", f".{kind}.npz")
            if not data.is_file():
                continue
            with np.load(data, allow_pickle=False) as z:
                for name in z.files:
                    want = params.get(name)
                    got = str(z[name].dtype)
                    checked += 1
                    if want is None:
                        wrong.append(f"{data.name}: {name} names no parameter of {sorted(params)}")
                    elif got not in (want, BIT_PATTERNS.get(want)):
                        wrong.append(f"{data.name}: {name} is {got}, its parameter {want}")
    assert checked, "no artifact data found"
    assert not wrong, "\n".join(wrong)


# Every committed folder of compiled artifacts with the generator that makes it. Compiled artifacts kept
# anywhere else are not committed: make gpu-artifacts builds them into build/ (bench/gpu/README.md).
REGENERATED = [
    ("bench/gpu/make_hopper_artifacts.py", "bench/gpu/artifacts"),
    ("bench/gpu/make_blackwell_demo.py", "bench/gpu/blackwell"),
]


def test_every_committed_compiled_artifact_is_regenerated_here():
    """A manifest made by our compiler (its sources are not its own hand-written .ptx) lies in a folder
    that test_compiled_artifacts_are_current regenerates, so no committed PTX or cubin can go stale."""
    folders = {folder for _, folder in REGENERATED}
    unchecked = []
    for path, manifest in artifact_manifests():
        own_ptx = path[:-len(".json")] + ".ptx"
        if own_ptx in manifest.get("meta", {}).get("sources", {}):
            continue  # hand-written PTX assembled by ptxas (make_selftest.py): the PTX is the source
        if str(PurePosixPath(path).parent) not in folders:
            unchecked.append(path)
    assert not unchecked, f"compiled artifacts no test regenerates: {unchecked}"


@pytest.mark.slow  # (each generator compiles its kernels and runs them on tile-sim)
@pytest.mark.parametrize("generator, folder", REGENERATED)
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
