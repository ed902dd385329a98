"""One compiled kernel per configuration (docs/gemm-library.md §4): in memory, then as an Artifact on disk
under the compile cache's directory (`<cache dir>/gemm/<arch>/<config name>.json`, beside its PTX and cubin),
else built and compiled (which needs the MLIR bindings; a machine without them runs what the directory holds:
`precompile` fills it).
"""
from __future__ import annotations

import dataclasses
import os

from ..artifact import Artifact
from ..runtime.cache import cache_dir, usable_dir
from ..runtime.jit import JitKernel
from .targets import of_config

__all__ = ["artifact", "kernel", "kernel_dir", "precompile", "ARCH"]

ARCH = "sm_90a"  # (the kernel directory autotune keeps its winners beside)
_artifacts: dict[tuple[str, str], object] = {}
_kernels: dict[tuple[str, str, str], object] = {}


def kernel_dir(arch: str = ARCH) -> str | None:
    """Where the compiled configurations live (None when the compile cache is off)."""
    root = cache_dir()
    return os.path.join(root, "gemm", arch) if root else None


def artifact(cfg, arch: str | None = None):
    """cfg's Artifact (a GemmConfig's for sm_90a, a BlackwellConfig's for sm_100a): from memory, the kernel
    directory, or compiled (and saved there)."""
    arch = _arch(cfg, arch)
    key = (cfg.name, arch)
    art = _artifacts.get(key)
    if art is not None:
        return art
    folder = kernel_dir(arch)
    path = os.path.join(folder, cfg.name + ".json") if folder else None
    if path and os.path.isfile(path):
        art = Artifact.load(path)
    else:
        art = _compile(cfg, arch)
        if folder:
            if usable_dir(os.path.dirname(os.path.dirname(folder))):
                os.makedirs(folder, mode=0o700, exist_ok=True)
                art.save(folder)
    _artifacts[key] = art
    return art


def kernel(cfg, backend: str = "auto", arch: str | None = None, grid: int = 1):
    """cfg's JitKernel on `backend` launching `grid` CTAs by default (the same cubin for every grid: a kernel
    per grid keeps repeated calls on jit's fast path), one per (configuration, arch, backend, grid)."""
    arch = _arch(cfg, arch)
    key = (cfg.name, arch, backend, grid)
    k = _kernels.get(key)
    if k is None:
        art = dataclasses.replace(artifact(cfg, arch), grid=(grid, 1, 1))
        k = _kernels[key] = JitKernel(art, backend)
    return k


def precompile(configs, directory: str, arch: str | None = None) -> list[str]:
    """Compile each configuration into `directory` (for a machine without the MLIR bindings: point
    $TILE_MLIR_CACHE_DIR at the folder above `gemm/<arch>`); returns the manifests' paths."""
    os.makedirs(directory, exist_ok=True)
    return [(_artifacts.get((cfg.name, _arch(cfg, arch))) or _compile(cfg, _arch(cfg, arch))).save(directory)
            for cfg in dict.fromkeys(configs)]


def _arch(cfg, arch: str | None) -> str:
    """The chip cfg's kernel is for (its class decides; an arch= naming another is an error)."""
    own = of_config(cfg).arch
    if arch is not None and arch != own:
        raise ValueError(f"{type(cfg).__name__} is a kernel for {own}, not {arch}")
    return own


def _compile(cfg, arch: str):
    # (late: the compiler and the kernels' builders load the MLIR bindings, which a machine running saved
    # kernels need not have)
    from ..driver.compiler import compile as tile_compile
    from . import blackwell, hopper

    build = blackwell.build if arch == "sm_100a" else hopper.build
    return tile_compile(build(cfg), arch=arch)
