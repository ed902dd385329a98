"""Modules imported at their first use, so that a command-line tool pays only for what it runs.

    from ..lazy import numpy as np      # `np.zeros(...)` imports numpy the first time

``tile-opt --help`` imports the pass modules for their descriptions; with numpy imported at the top of
the planners on that chain it paid about 0.15 s for a library it never called (bench/startup.py). After
the first attribute access the proxy holds the module's namespace, so later look-ups are plain
attribute reads. This module imports nothing of the package. (layout/, which imports nothing outside itself, imports
numpy inside the functions that use it instead.)
"""
from __future__ import annotations

import importlib
import types

__all__ = ["LazyModule", "numpy"]


class LazyModule(types.ModuleType):
    """A stand-in for the module ``name`` that imports it at the first attribute access."""

    def __init__(self, name: str):
        super().__init__(name)
        self.__dict__["_lazy_target"] = name

    def __getattr__(self, attr: str):  # only for names not yet in __dict__
        module = importlib.import_module(self.__dict__["_lazy_target"])
        self.__dict__.update(module.__dict__)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__dict__['_lazy_target']!r}>"


numpy = LazyModule("numpy")
