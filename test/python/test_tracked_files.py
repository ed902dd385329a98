"""Invariants of the files git tracks: a checkout works on a case-folding file system (macOS, Windows)."""
from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
