"""Locating NVIDIA command-line tools (ptxas, nvdisasm): the pip packages first, then PATH.

The nvidia-cuda-nvcc and nvidia-cuda-nvdisasm wheels install them under site-packages/nvidia/cu*/bin,
so a fresh `make test` never depends on a system CUDA installation.
"""
from __future__ import annotations

import glob
import os
import shutil
import site
import sys

__all__ = ["find_tool"]


def find_tool(name: str) -> str | None:
    roots = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    roots += [p for p in sys.path if p.endswith("site-packages") and p not in roots]
    for r in roots:
        # newest toolkit first (cu13 before cu12)
        for cand in sorted(glob.glob(os.path.join(r, "nvidia", "cu*", "bin", name)), reverse=True):
            if os.access(cand, os.X_OK):
                return cand
    return shutil.which(name)
