"""Python's cyclic garbage collector, made to run less often while tile-sim emulates.

An emulation allocates millions of short-lived objects (operand tuples, register values, closures'
frames); with Python's default first-generation threshold (700 allocations) each few thousand
instructions start a collection that walks the young objects, and every tenth of those the older
ones: measured 15-25 % of the CPU time of the corpus and attention tests. Raising the threshold
keeps the collector (cycles are still freed) but runs it about 70 times less often.
"""
from __future__ import annotations

import contextlib
import functools
import gc

#: allocations between first-generation collections while an emulation runs (Python's default: 700)
THRESHOLD0 = 50_000


@contextlib.contextmanager
def fewer_collections():
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], THRESHOLD0), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def during(fn):
    """``fn`` run under :func:`fewer_collections` (a decorator: the entry points of an emulation)."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with fewer_collections():
            return fn(*args, **kwargs)
    return wrapped
