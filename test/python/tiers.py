"""The test tiers' sizes (test/python/conftest.py sets FAST from `--tier`).

A property test (hypothesis) carries the `tiered` marker and takes its example count from
:func:`examples`: `make test` (`--tier=fast`, the fast tier) runs it with an eighth of its examples, and
`make test-slow` (`-m "slow or tiered"`) runs it again with all of them, so CI runs every example.
"""
from __future__ import annotations

FAST = False  # set by conftest.py's pytest_configure, before the test modules are imported


def examples(n: int) -> int:
    """Hypothesis examples of a property test that has `n` in full."""
    return max(12, n // 8) if FAST else n
