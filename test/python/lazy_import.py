"""A module that a test imports on its first use rather than while pytest collects.

torch (MMA-Sim's base) costs about 4 s of CPU to import, and every pytest-xdist worker collects
every test module: imported at module level it was paid by each worker at collection, for the few
tests that call MMA-Sim. ``torch = Lazy("torch")`` imports on the first attribute read; where the
module is missing, that test is skipped with the import's reason, as pytest.importorskip does.
"""
from __future__ import annotations

import importlib

import pytest


class Lazy:
    def __init__(self, name: str):
        self._name = name
        self._module = None

    def __getattr__(self, attr: str):
        if attr.startswith("_"):  # pytest's collection probes every module attribute for its
            raise AttributeError(attr)  # markers (`_pytestfixturefunction`...): not an import
        if self._module is None:
            try:
                self._module = importlib.import_module(self._name)
            except ImportError as e:
                pytest.skip(f"{self._name} is not installed (the `test` extra): {e}")
        return getattr(self._module, attr)
