"""Which cubin can run on which GPU (pure logic, no CUDA).

Rules (CUDA's binary compatibility):

* ``sm_XYa`` (architecture-specific, e.g. sm_100a for tcgen05, sm_90a for wgmma/setmaxnreg): the
  SASS uses features of exactly one chip, so it needs compute capability exactly X.Y.
* ``sm_XYf`` (family-specific, CUDA 12.9+): any device of the same major with minor >= Y
  (sm_100f runs on 10.0 and 10.3).
* plain ``sm_XY``: compute capability >= X.Y. The cubin itself only runs within major X, so on a
  newer major the runtime loads the artifact's PTX instead and lets the driver JIT it.
"""
from __future__ import annotations

from .. import env as _env
from ..errors import ArgumentError, ArgumentTypeError
from ..target import DEFAULT_ARCH, ArchInfo, parse_arch  # one home for chips: tile_mlir.target

__all__ = ["ArchInfo", "parse_arch", "can_run", "refusal_message", "resolve_arch", "DEFAULT_ARCH"]


def can_run(arch: str, cc: tuple[int, int]) -> tuple[bool, str | None]:
    """(runnable, image) for an artifact built for ``arch`` on a device of compute capability cc.

    image is "cubin" (load the SASS) or "ptx" (load the PTX and let the driver JIT it), None when
    the artifact cannot run there.
    """
    a = parse_arch(arch)
    major, minor = int(cc[0]), int(cc[1])
    if a.suffix == "a":
        ok = (major, minor) == (a.major, a.minor)
        return ok, ("cubin" if ok else None)
    if a.suffix == "f":
        ok = major == a.major and minor >= a.minor
        return ok, ("cubin" if ok else None)
    if (major, minor) < (a.major, a.minor):
        return False, None
    return True, ("cubin" if major == a.major else "ptx")


def refusal_message(arch: str, device_name: str, cc: tuple[int, int]) -> str:
    """E.g. "cubin for sm_100a cannot run on NVIDIA H200 (compute capability 9.0): use
    backend='sim' or an sm_100 GPU"."""
    a = parse_arch(arch)
    if a.suffix == "a":
        want = f"an sm_{a.sm} GPU"
    elif a.suffix == "f":
        want = f"an sm_{a.major}x GPU (compute capability {a.major}.{a.minor} or a later {a.major}.x)"
    else:
        want = f"a GPU of compute capability {a.major}.{a.minor} or newer"
    return (f"cubin for {arch} cannot run on {device_name} (compute capability {cc[0]}.{cc[1]}): "
            f"use backend='sim' or {want}")


def resolve_arch(arch: str | None) -> str:
    """"auto"/None -> $TILE_MLIR_ARCH if set, else sm_100a; otherwise the validated name."""
    if arch is None or arch == "auto":
        arch = _env.get("TILE_MLIR_ARCH") or DEFAULT_ARCH
    if not isinstance(arch, str):
        raise ArgumentTypeError(f"arch must be a str such as 'sm_100a', got {type(arch).__name__}")
    try:
        parse_arch(arch)
    except ValueError as e:
        raise ArgumentError(str(e)) from None
    return arch.strip()
