"""Pass `tile-verify`: runs the tile verifier over the module (first in every pipeline). Its option `chip`
(given by compile() and by the pipeline aliases' chip) adds the target checks (target_checks.py): an op
the chip cannot run is refused at the op, before any lowering."""
from __future__ import annotations

from ..pass_base import Option, TilePass
from ..target import parse_arch
from .verifier import verify_module


class TileVerifyPass(TilePass):
    name = "tile-verify"
    description = "Verify tile ops: types, scopes, layouts, regions, tensor-memory allocation, cta_group"
    OPTIONS = {"chip": Option("target chip whose features the ops must have (tensor memory: a tcgen05 chip); "
                              "default none: no target checks", parse_arch)}

    def run(self, module_op) -> bool:
        return verify_module(module_op, self.values.get("chip"))
