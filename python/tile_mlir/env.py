"""The one home of the environment variables tile_mlir reads: each one's name, default and meaning.

    from tile_mlir import env
    env.get("TILE_MLIR_ARCH")        # the value, or the variable's default (a str or None)

Every variable is spelled TILE_MLIR_*, the test suite's knobs too. The spellings before 2026-12-07, TILE_X for
TILE_MLIR_X, are still read where the new name is unset, with a FutureWarning once per process naming the new
one. Any other variable that starts with TILE_ but not TILE_MLIR_ (a typo, or an older name of another form)
is not read, and is reported once per process with a warning naming the variable it resembles, so that a
setting tile_mlir ignores does not go unnoticed.
docs/environment.md's table of them is checked against ``VARIABLES`` by test/python/driver/test_env.py.
This module imports nothing of the package, so every part of it (the emulator included) can read its
settings here.
"""
from __future__ import annotations

import difflib
import os
import warnings
from typing import NamedTuple

__all__ = ["Variable", "VARIABLES", "get", "flag"]


class Variable(NamedTuple):
    name: str
    default: str | None
    doc: str


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
    Variable("TILE_MLIR_SIM_TRACE", None, "non-empty: tile-sim logs every executed instruction"),
    Variable("TILE_MLIR_SIM_MAX_SECONDS", None, "wall-clock seconds one tile-sim run may take "
             "(default: no limit; the budget is in steps)"),
    Variable("TILE_MLIR_SIM_MAX_STEPS", None, "warp-instructions one tile-sim run may execute "
             "(default: 2,000,000 + 64 per warp and static instruction of the launch)"),
    Variable("TILE_MLIR_SIM_WORKERS", None, "processes tile-sim spreads a launch's independent clusters "
             "over (default: every core)"),
    Variable("TILE_MLIR_SIM_MMA", None, "`mmasim`: tile-sim computes every MMA with MMA-Sim instead of "
             "its exact fast path"),
    Variable("TILE_MLIR_SIM_DEVICE", None, "`sm_90`, ...: the GPU tile-sim emulates when run_ptx is "
             "given no device (default: the module's .target); mma.sync computes as that GPU does"),
    Variable("TILE_MLIR_SIM_STRICT", None, "`1`: tile_mlir.sim.run_ptx runs strict by default (ISA rule "
             "breaks are errors, not findings; the test suite sets it)"),
    Variable("TILE_MLIR_SIM_FMAD", "1", "`0`: tile-sim runs each `mul` and `add` without a rounding "
             "modifier as written, unfused (ptxas --fmad=false); by default it fuses the pairs ptxas "
             "fuses (sim/contract.py)"),
    Variable("TILE_MLIR_SIM_PROGRESS", None, "`0` turns tile-sim's progress bar off (it shows on "
             "a terminal for runs over 2 s)"),
    Variable("TILE_MLIR_FUZZ_EXAMPLES", "36", "test knob: valid copies the differential fuzz test draws "
             "(test/python/e2e/test_fuzz_differential.py; bench/fuzz.py draws as many as asked)"),
    Variable("TILE_MLIR_FUZZ_INVALID_EXAMPLES", "20", "test knob: invalid copies the differential fuzz "
             "test draws"),
    Variable("TILE_MLIR_FAST_START", None, "internal: `1`, set by tile-opt, skips the bindings' "
             "numpy-only attribute builders"),
)}

def old_name(name: str) -> str:
    """The spelling before 2026-12-07, still read: the name without its MLIR_."""
    return "TILE_" + name[len("TILE_MLIR_"):]


# the old spellings, each to its new name
RENAMED: dict[str, str] = {old_name(n): n for n in VARIABLES}

_warned: set[str] = set()


def get(name: str) -> str | None:
    """The value of the variable ``name`` (one of VARIABLES), else its default."""
    var = VARIABLES[name]
    _warn_unread()
    value = os.environ.get(name)
    if value is None:
        value = os.environ.get(old_name(name))
    return var.default if value is None else value


_scanned = -1  # the size of os.environ when _warn_unread last looked at its names


def _warn_unread() -> None:
    """Warn once per name about a TILE_* variable outside the prefix: an old spelling (read) or one tile_mlir
    does not read. The names
    are looked at again only when the environment's size changed: a scan decodes every name (0.5 ms),
    and the emulator reads its settings per instruction (about 5% of an MXFP8 GEMM CTA's emulation, profiled)."""
    global _scanned
    if len(os.environ) == _scanned:
        return
    _scanned = len(os.environ)
    for key in os.environ:
        if key.startswith("TILE_") and not key.startswith("TILE_MLIR_") and key not in _warned:
            _warned.add(key)
            if key in RENAMED:
                warnings.warn(f"the environment variable {key} is the old name of {RENAMED[key]}: read where "
                              f"{RENAMED[key]} is unset; rename it", FutureWarning, stacklevel=3)
                continue
            near = difflib.get_close_matches("TILE_MLIR_" + key[len("TILE_"):], VARIABLES, n=1, cutoff=0.6)
            hint = f": set {near[0]}" if near else ""
            warnings.warn(f"the environment variable {key} is not read (tile_mlir's variables are spelled "
                          f"TILE_MLIR_*){hint}", UserWarning, stacklevel=3)


def flag(name: str) -> bool:
    """Whether a switch variable is set to something other than empty, 0, off, false or no."""
    value = get(name)
    return value is not None and value.strip().lower() not in ("", "0", "off", "false", "no")
