"""LoweringError: a tile op its lowering cannot express (reported as an error at `op`, never a traceback)."""
from __future__ import annotations

from ..errors import TileMLIRError

__all__ = ["LoweringError"]


class LoweringError(TileMLIRError):
    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op
