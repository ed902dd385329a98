"""The test tiers' sizes and splits (test/python/conftest.py sets FAST from `--tier`).

A property test (hypothesis) carries the `tiered` marker and takes its example count from
:func:`examples`: `make test` (`--tier=fast`, the fast tier) runs it with an eighth of its examples, and
`make test-slow` (`-m "slow or tiered"`) runs it again with all of them, so CI runs every example. A
sweep (every row of an ISA table, every 16-bit source) is split the same way: :func:`sample` picks the
part `make test` checks, and the whole runs in `make test-slow` (marker `tiered`).

A parametrised family whose cases are each worth running keeps a representative set in the fast tier
and marks the rest `slow` (:func:`cover`, :func:`chunks`), so that no test id is lost between the
tiers: `make test-all` runs every one of them.
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np
import pytest

_PARAM = type(pytest.param(None))  # pytest's ParameterSet

FAST = False  # set by conftest.py's pytest_configure, before the test modules are imported


def examples(n: int) -> int:
    """Hypothesis examples of a property test that has `n` in full."""
    return max(12, n // 8) if FAST else n


def sample(n: int) -> np.ndarray:
    """The indices 0 .. n-1 a `tiered` sweep checks: all of them, or in the fast tier an eighth,
    k * 8 + k % 8 (every residue of the low three bits, and every value of the others: a sweep of
    codes keeps its exponents, signs and rounding bits)."""
    if not FAST:
        return np.arange(n, dtype=np.uint64)
    k = np.arange(n // 8, dtype=np.uint64)
    return k * np.uint64(8) + k % np.uint64(8)


def cover(params: Sequence, *keys: Callable) -> list:
    """`params` (pytest.param objects or values) with those that the fast tier does not need marked
    slow: it keeps, in order, the first case of every value of each key (a key sees the case's
    values: a pytest.param's `values`, else the value itself), so that every kind, every shape, ...
    still runs in `make test`; the rest run in `make test-slow`. A case already marked slow stays
    so, and represents nothing."""
    seen: list[set] = [set() for _ in keys]
    out = []
    for p in params:
        if any(m.name == "slow" for m in getattr(p, "marks", ())):
            out.append(p)
            continue
        values = p.values if isinstance(p, _PARAM) else (p,)
        ks = [key(*values) for key in keys]
        new = any(k not in s for k, s in zip(ks, seen))
        for k, s in zip(ks, seen):
            s.add(k)
        if new:
            out.append(p)
        elif isinstance(p, _PARAM):
            out.append(pytest.param(*p.values, id=p.id, marks=[*p.marks, pytest.mark.slow]))
        else:
            out.append(pytest.param(p, marks=pytest.mark.slow))
    return out


def chunks(n: int, fast: Iterable[int]) -> list:
    """Indices 0 .. n-1, those not in `fast` marked slow: the chunks of a test that splits its rows
    into strided chunks (rows[chunk::n], each a sample of the whole table), or the draws of a fixed
    sample."""
    keep = set(fast)
    return [c if c in keep else pytest.param(c, marks=pytest.mark.slow) for c in range(n)]
