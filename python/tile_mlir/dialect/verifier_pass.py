"""Pass `tile-verify`: runs the tile verifier over the module (first in every pipeline)."""
from __future__ import annotations

from ..pass_base import TilePass
from .verifier import verify_module


class TileVerifyPass(TilePass):
    name = "tile-verify"
    description = "Verify tile ops: types, scopes, layouts, regions, tensor-memory allocation, cta_group"

    def run(self, module_op) -> bool:
        return verify_module(module_op)
