"""Pass `tile-verify`: runs the tile verifier over the module (first in every pipeline). With a chip (its
option `chip`, given by the pipeline aliases' chip, or the CompileOptions compile() hands every pass) it
adds the target checks (target_checks.py): an op the chip cannot run is refused at the op, before any
lowering. Run alone without one, it checks no target."""
from __future__ import annotations

from ..driver.pass_base import TilePass
from .verifier import verify_module


class TileVerifyPass(TilePass):
    name = "tile-verify"
    # (its description and options: driver/pass_specs.py)

    def __init__(self, options=None, *, compile_options=None):
        super().__init__(options, compile_options=compile_options)
        known = "chip" in self.options or compile_options is not None
        self.chip = self.compile.arch if known else None

    def run(self, module_op) -> bool:
        return verify_module(module_op, self.chip)
