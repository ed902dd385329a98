"""Invariants of the files git tracks: a checkout works on a case-folding file system (macOS, Windows),
and the committed GPU artifacts are current with their sources."""
from __future__ import annotations

import hashlib
import json
import subprocess
from collections import defaultdict
from pathlib import Path

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
