"""The one home of the environment variables tile_mlir reads: each one's name, default and meaning.

    from tile_mlir import env
    env.get("TILE_MLIR_ARCH")        # the value, or the variable's default (a str or None)

Every variable is spelled TILE_MLIR_*, the test suite's knobs too; the older names (TILE_EMU_*, TILE_SIM_*,
TILE_FUZZ_*) are still read, with a DeprecationWarning naming the new one, when the new one is not set.
docs/environment.md's table of them is checked against ``VARIABLES`` by test/python/driver/test_env.py.
This module imports nothing of the package, so every part of it (the emulator included) can read its
settings here.
"""
from __future__ import annotations

import os
import warnings
from typing import NamedTuple

__all__ = ["Variable", "VARIABLES", "get", "given_as", "flag"]


class Variable(NamedTuple):
    name: str
    default: str | None
    doc: str
    old: tuple[str, ...] = ()  # deprecated names, still read


VARIABLES: dict[str, Variable] = {v.name: v for v in (
    Variable("TILE_MLIR_BINDINGS", None, "which MLIR Python bindings: `cutlass` (cutlass._mlir of "
             "nvidia-cutlass-dsl) or `upstream` (the upstream `mlir` package; `mlir` is an alias); unset: cutlass "
             "when installed, else upstream"),
    Variable("TILE_MLIR_ARCH", None, "the target of `arch=\"auto\"` in compile(), jit() and tile-run "
             "(default sm_100a)"),
    Variable("TILE_MLIR_BACKEND", None, "`sim`, `gpu` or `auto` forces every kernel's backend in jit() and "
             "tile-run, whatever `backend=` says (`sim` as TRITON_INTERPRET=1 does)"),
    Variable("TILE_MLIR_DUMP_DIR", None, "a directory where each compile writes its artifact and every "
             "stage's IR (`<kernel>.<stage>.mlir`, the PTX, the cubin); no compile is answered from the cache"),
    Variable("TILE_MLIR_CACHE", None, "`0` / `off` / `false` / `no` turns the disk compile cache off"),
    Variable("TILE_MLIR_CACHE_DIR", None, "the disk compile cache's directory (default "
             "~/.cache/tile_mlir, or $XDG_CACHE_HOME/tile_mlir)"),
    Variable("TILE_MLIR_DEVICE", "0", "the CUDA device ordinal the GPU backend uses"),
    Variable("TILE_MLIR_WORKER_DRIVER", None, "`module:callable` run in the GPU worker process "
             "instead of the CUDA driver (tests' fakes)"),
    Variable("TILE_MLIR_SIM_TRACE", None, "non-empty: tile-sim logs every executed instruction",
             old=("TILE_EMU_TRACE",)),
    Variable("TILE_MLIR_SIM_MAX_SECONDS", None, "wall-clock seconds one tile-sim run may take "
             "(default: no limit; the budget is in steps)", old=("TILE_SIM_MAX_SECONDS",)),
    Variable("TILE_MLIR_SIM_MAX_STEPS", None, "warp-instructions one tile-sim run may execute "
             "(default: 2,000,000 + 64 per warp and static instruction of the launch)"),
    Variable("TILE_MLIR_SIM_WORKERS", None, "processes tile-sim spreads a launch's independent clusters "
             "over (default: every core)"),
    Variable("TILE_MLIR_SIM_MMA", None, "`mmasim`: tile-sim computes every MMA with MMA-Sim instead of "
             "its exact fast path"),
    Variable("TILE_MLIR_SIM_STRICT", None, "`1`: tile_mlir.sim.run_ptx runs strict by default (ISA rule "
             "breaks are errors, not findings; the test suite sets it)", old=("TILE_SIM_STRICT",)),
    Variable("TILE_MLIR_SIM_PROGRESS", None, "`0` turns tile-sim's progress bar off (it shows on "
             "a terminal for runs over 2 s)"),
    Variable("TILE_MLIR_FUZZ_EXAMPLES", "36", "test knob: valid copies the differential fuzz test draws "
             "(test/python/e2e/test_fuzz_differential.py; bench/fuzz.py draws as many as asked)",
             old=("TILE_FUZZ_EXAMPLES",)),
    Variable("TILE_MLIR_FUZZ_INVALID_EXAMPLES", "20", "test knob: invalid copies the differential fuzz "
             "test draws", old=("TILE_FUZZ_INVALID_EXAMPLES",)),
    Variable("TILE_MLIR_FAST_START", None, "internal: `1`, set by tile-opt, skips the bindings' "
             "numpy-only attribute builders"),
)}

_warned: set[str] = set()


def get(name: str) -> str | None:
    """The value of the variable ``name`` (one of VARIABLES), else of an old name of it, else its
    default. An old name warns once (DeprecationWarning) per process."""
    var = VARIABLES[name]
    value = os.environ.get(name)
    if value is not None:
        return value
    for old in var.old:
        value = os.environ.get(old)
        if value is not None:
            if old not in _warned:
                _warned.add(old)
                warnings.warn(f"the environment variable {old} is deprecated: set {name} instead",
                              DeprecationWarning, stacklevel=2)
            return value
    return var.default


def given_as(name: str) -> str | None:
    """The name under which ``name``'s value is set: itself, an old name of it, or None."""
    if name in os.environ:
        return name
    return next((old for old in VARIABLES[name].old if old in os.environ), None)


def flag(name: str) -> bool:
    """Whether a switch variable is set to something other than empty, 0, off, false or no."""
    value = get(name)
    return value is not None and value.strip().lower() not in ("", "0", "off", "false", "no")
