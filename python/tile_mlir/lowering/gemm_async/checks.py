"""How the gemm_async planners decline: one exception naming the failing check and the reason."""
from __future__ import annotations

__all__ = ["PlanError"]


class PlanError(Exception):
    """The MMA cannot be done by this variant. `check` names the failing check, `reason` says why
    (docs/gemm.md §6 lists every check)."""

    def __init__(self, check: str, reason: str):
        super().__init__(f"{check}: {reason}")
        self.check = check
        self.reason = reason
