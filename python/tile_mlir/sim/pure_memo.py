"""Results of pure arithmetic kept across the schedules of one exploration (docs/emulator.md §15).

A schedule changes when an MMA runs, never what it computes from what it read: the matrix
arithmetic of tcgen05.mma, wgmma and mma.sync (``mma_numerics``: a pure function of its operand bits,
accumulator bits, types and flags) gets the same inputs under most schedules of a launch.  While
:func:`active` is on (exploration's runs, sim/explore/driver.py), :func:`call` keys
such a call by the function and every argument -- each array by its dtype, shape and a 128-bit
BLAKE2 digest of its bytes -- and hands back a copy of the first result for those inputs.  The
operand reads, their race checks and the tensor-memory writes stay with the caller, so a schedule
still reads, checks and writes what it did; only the arithmetic is looked up.  A call that raises
is not kept (it raises again).  Outside exploration :func:`call` just calls.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager

import numpy as np

#: bytes of results kept (oldest dropped first); a 128 x 256 f32 accumulator is 128 KiB
LIMIT = 256 << 20

_memo: dict | None = None  # key -> result, while active
_size = 0
hits = misses = 0  # (counted for bench/zoo/explore_rate.py)


@contextmanager
def active():
    """Keep results for the duration (nested: the outermost one's table)."""
    global _memo, _size
    if _memo is not None:
        yield
        return
    _memo, _size = {}, 0
    try:
        yield
    finally:
        _memo, _size = None, 0


def _key(x):
    if isinstance(x, np.ndarray):
        a = np.ascontiguousarray(x)
        return ("nd", a.dtype.str, a.shape, hashlib.blake2b(a.view(np.uint8).reshape(-1),
                                                           digest_size=16).digest())
    if isinstance(x, (tuple, list)):
        return (type(x).__name__,) + tuple(_key(v) for v in x)
    if isinstance(x, dict):
        return ("dict",) + tuple((k, _key(v)) for k, v in sorted(x.items()))
    if type(x) is float:
        return ("float", x.hex())  # (0.0 and -0.0 are equal keys otherwise)
    if x is None or type(x) in (int, str, bool, np.bool_):
        return (type(x).__name__, x)  # (True and 1 too)
    raise TypeError  # not a value this table keys: the call is made


def call(fn, *args, **kw):
    """``fn(*args, **kw)``, looked up while active (``fn``: a pure function of its arguments
    returning an array)."""
    global _size, hits, misses
    if _memo is None:
        return fn(*args, **kw)
    try:
        key = (fn.__module__, fn.__qualname__, _key(args), _key(kw))
    except TypeError:
        return fn(*args, **kw)
    out = _memo.get(key)
    if out is not None:
        hits += 1
        return out.copy()
    misses += 1
    out = fn(*args, **kw)
    if isinstance(out, np.ndarray):
        _memo[key] = out.copy()
        _size += out.nbytes
        while _size > LIMIT and _memo:
            _size -= _memo.pop(next(iter(_memo))).nbytes
    return out
