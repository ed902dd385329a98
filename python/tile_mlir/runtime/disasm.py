"""SASS of a cubin through nvdisasm (package nvidia-cuda-nvdisasm, else PATH)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from .errors import TileRuntimeError

__all__ = ["find_nvdisasm", "disassemble"]


def find_nvdisasm() -> str | None:
    """nvidia/cu13/bin/nvdisasm (or cu12, or the older nvidia/cuda_nvcc layout) in site-packages,
    else nvdisasm on PATH, else None."""
    roots = []
    for key in ("purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p and p not in roots:
            roots.append(p)
    roots += [p for p in sys.path if p.endswith("site-packages") and p not in roots]
    try:  # the namespace package knows where it really is
        import nvidia  # type: ignore
        roots = [os.path.dirname(p) for p in getattr(nvidia, "__path__", [])] + roots
    except ImportError:
        pass
    for root in roots:
        for sub in ("cu13", "cu12", "cuda_nvdisasm", "cuda_nvcc"):
            cand = os.path.join(root, "nvidia", sub, "bin", "nvdisasm")
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return cand
    return shutil.which("nvdisasm")


def disassemble(cubin: bytes) -> str:
    """``nvdisasm -c`` of the cubin (written to a temporary file)."""
    tool = find_nvdisasm()
    if tool is None:
        raise TileRuntimeError("nvdisasm not found: pip install nvidia-cuda-nvdisasm "
                               "(or put the CUDA toolkit's bin directory on PATH)")
    if not cubin:
        raise TileRuntimeError("the artifact has no cubin to disassemble")
    with tempfile.TemporaryDirectory(prefix="tile_mlir_sass_") as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        proc = subprocess.run([tool, "-c", path], capture_output=True, text=True)
    if proc.returncode != 0:
        raise TileRuntimeError(f"nvdisasm failed ({proc.returncode}): "
                               f"{(proc.stderr or proc.stdout).strip()}")
    return proc.stdout
