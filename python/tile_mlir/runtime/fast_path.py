"""The fast path of a repeated kernel call: the argument objects of the last GPU call again, with the
default grid/block/stream, launch again as one driver call on the parameters already packed.

:func:`fast_path` generates a kernel's ``__call__`` and ``launch`` once per parameter count, bound
to the kernel's runner (jit.py), which provides

    last            the argument tuple of the launch to repeat, None when there is none
    fn, args        that launch: ``fn(*args)`` is the driver call (launch.Launcher)
    result          its LaunchResult
    call(args, grid, block, stream), launch_failed(err)    everything else

The arguments are named positional parameters compared unrolled (``a0 is l[0] and a1 is l[1] ...``).
What that saves, measured on the development VM (median Python time per call above the launch
itself, the self-test copy kernel's 3 arguments, a C function standing in for cuLaunchKernel):
``kernel(...)`` 125 ns and ``kernel.launch(...)`` 60 ns this way, 270 ns and 180 ns for the same
logic over ``*args`` with ``all(map(operator.is_, args, last))``. A raw cuLaunchKernel through
cuda-bindings takes 4.5-6 us on the H200, so generation keeps about 3 % off the ratio that
bench/launch.py holds to 1.1x.
"""
from __future__ import annotations

import functools
from types import MethodType

__all__ = ["fast_path"]

_MISSING = object()  # a positional argument not passed (the call then has too few)


_TEMPLATE = """
def call(r, {params}*rest, grid=None, block=None, stream=None):
    l = r.last
    if l is not None and grid is None and block is None and stream is None and not rest{same}:
        err = r.fn(*r.args)[0]
        if err:
            r.launch_failed(err)
        return r.result
    return r.call(_given(({names}), rest), grid, block, stream)

def launch(r, {params}*rest):
    l = r.last
    if l is not None and not rest{same}:
        err = r.fn(*r.args)[0]
        if err:
            r.launch_failed(err)
        return
    r.call(_given(({names}), rest), None, None, None)
"""


def _given(head: tuple, rest: tuple) -> tuple:
    """The positional arguments of a generated call (trailing unpassed parameters dropped)."""
    if head and head[-1] is _MISSING:
        head = tuple(a for a in head if a is not _MISSING)
    return head + rest


@functools.cache
def _generated(n: int) -> tuple:
    names = [f"a{i}" for i in range(n)]
    src = _TEMPLATE.format(params="".join(f"{a}=_MISSING, " for a in names),
                           same="".join(f" and {a} is l[{i}]" for i, a in enumerate(names)),
                           names="".join(f"{a}, " for a in names))
    ns = {"_MISSING": _MISSING, "_given": _given}
    exec(compile(src, f"<tile_mlir.runtime fast path, {n} params>", "exec"), ns)
    return ns["call"], ns["launch"]


def fast_path(nparams: int, runner) -> tuple:
    """(call, launch) of a kernel with ``nparams`` parameters, bound to its runner."""
    call, launch = _generated(nparams)
    return MethodType(call, runner), MethodType(launch, runner)
