"""run_ptx's arguments, checked before anything runs: each misuse is an EmulationError saying which
argument and why (before, grid="12" ran as grid (1, 2, 1), grid=(3.9, 1, 1) as 3 CTAs, a .u32 argument
of 2**64 as 0, max_seconds=nan turned the time budget off, and a read-only array raised numpy's
ValueError after the whole run).

A dimension is an int or a tuple or list of 1 to 3 ints (bool, float and str are not ints); budgets
are positive (max_seconds finite); an integer argument must fit its parameter's bits (two's
complement: -2**(n-1) <= v < 2**n); an array must be writable, since results are copied back into it.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .by_value import ByValue
from .errors import EmulationError

__all__ = ["check_options", "check_args"]


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _check_dims(v, name: str, optional: bool = False) -> None:
    if v is None and optional:
        return
    dims = (v,) if _is_int(v) else tuple(v) if isinstance(v, (tuple, list)) else None
    if dims is None or not 1 <= len(dims) <= 3 or not all(_is_int(d) for d in dims):
        raise EmulationError(f"run_ptx: bad {name} dimensions: {name}={v!r}: expected an int or a tuple of 1 to 3 ints"
                             + (" (or None)" if optional else ""))
    if any(d < 1 for d in dims):
        raise EmulationError(f"run_ptx: bad {name} dimensions: {name}={v!r}: each must be >= 1")


def check_options(*, grid, block, cluster, dynamic_smem, max_steps, max_seconds, trace, strict, args,
                  workers=None, progress=None, executor=None) -> None:
    """The launch options and the argument list's type, before the PTX is parsed."""
    _check_dims(grid, "grid")
    _check_dims(block, "block")
    _check_dims(cluster, "cluster", optional=True)
    if not _is_int(dynamic_smem) or dynamic_smem < 0:
        raise EmulationError(f"run_ptx: dynamic_smem={dynamic_smem!r}: expected an int >= 0 (bytes)")
    if max_steps is not None and (not _is_int(max_steps) or max_steps < 1):
        raise EmulationError(f"run_ptx: max_steps={max_steps!r}: expected an int >= 1 (warp-instructions), "
                             "or None for the launch's default")
    if workers is not None and (not _is_int(workers) or workers < 1):
        raise EmulationError(f"run_ptx: workers={workers!r}: expected an int >= 1 (processes), or None for "
                             "every core")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise EmulationError(f"run_ptx: executor={executor!r}: expected a concurrent.futures.Executor (an "
                             "object with submit(), e.g. a dask.distributed client's), or None for the "
                             "process pool")
    if max_seconds is not None and (not isinstance(max_seconds, numbers.Real) or isinstance(max_seconds, bool)
                                    or not math.isfinite(max_seconds) or max_seconds <= 0):
        raise EmulationError(f"run_ptx: max_seconds={max_seconds!r}: expected a finite number of seconds > 0 "
                             "(or None for the default)")
    if not isinstance(trace, (bool, np.bool_)):
        raise EmulationError(f"run_ptx: trace={trace!r}: expected True or False")
    for name, v in (("strict", strict), ("progress", progress)):
        if v is not None and not isinstance(v, (bool, np.bool_)):
            raise EmulationError(f"run_ptx: {name}={v!r}: expected True, False or None (the default)")
    if not isinstance(args, (list, tuple)):
        raise EmulationError(f"run_ptx: args must be a list (one value per .param), got {type(args).__name__}")


def check_args(fn, args) -> None:
    """Each argument against its .param of `fn` (a parsed .entry)."""
    for p, a in zip(fn.params, args):
        if isinstance(a, ByValue):
            for o, x in a.pointers.items():
                if isinstance(x, np.ndarray) and not x.flags.writeable:
                    raise EmulationError(f"run_ptx: the array of {p.name}'s pointer field at byte "
                                         f"{o} is read-only: the kernel's results are copied back "
                                         "into it (pass a writable array, e.g. a.copy())")
        elif isinstance(a, np.ndarray):
            if not a.flags.writeable:
                raise EmulationError(f"run_ptx: the array for {p.name} is read-only: the kernel's results are "
                                     "copied back into it (pass a writable array, e.g. a.copy())")
        elif _is_int(a) and p.type[:1] in "usb" and p.type[1:].isdigit():
            bits = 8 * p.size  # (a `.b8 name[N]` by-value struct takes an int of its N bytes)
            if not -(1 << (bits - 1)) <= int(a) < (1 << bits):
                raise EmulationError(f"run_ptx: argument {int(a)} for .{p.type} {p.name} does not fit in {bits} bits")
