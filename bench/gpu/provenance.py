"""What a generated GPU artifact was made from: the sha256 of each source file (its generator script,
its input .mlir/.ptx or the script generating that input), recorded by the generators in the manifest
as meta["sources"] and recomputed by test/python/project/test_tracked_files.py, which reports a changed
source as "stale: run make gpu-artifacts"."""
from __future__ import annotations

import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def source_hashes(*paths) -> dict[str, str]:
    """{path from the repository root, with '/': sha256 hex digest} of each file."""
    hashes = {Path(p).resolve().relative_to(ROOT).as_posix(): hashlib.sha256(Path(p).read_bytes()).hexdigest()
              for p in paths}
    return dict(sorted(hashes.items()))
