"""The lowerings of convert-tile-to-nvvm, one module per op family (as sim/handlers/ has one per family of
the PTX they become): importing this package registers each as its op's one variant (registry.py)."""
from __future__ import annotations

from . import copy, kernel, persistent, regmath, sync, tmem  # noqa: F401  (register the lowerings)
from .registry import LoweringCtx, LoweringError, lowering_of, lowers

__all__ = ["LoweringCtx", "LoweringError", "lowering_of", "lowers"]
