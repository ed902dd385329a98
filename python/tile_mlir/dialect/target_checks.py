"""The target checks of tile-verify{chip=...}: an op that needs a feature the target chip lacks is refused
at the op (the first such op of each kernel), naming the chip and the chips that have it, before any lowering (a dispatch failure later would
name the instruction, not the user's op). The facts are target.py's (ArchInfo.has_*).

    tensor memory   ops of both traits TCGEN05 and USES_TMEM (tile.tmem.alloc, .dealloc, .relinquish,
                    .load), and any op taking or making a tmem buffer: a tcgen05 chip (TCGEN05_CHIPS)
"""
from __future__ import annotations

from ..target import TCGEN05_CHIPS, ArchInfo
from .decline import fail
from .enums import MemScope
from .op_def import Trait
from .types import BufferType

__all__ = ["check_target"]


def _tmem(v) -> bool:
    try:
        bt = BufferType.of(v.type)
    except Exception:  # a malformed type: the generic checks report it
        return False
    return bt is not None and bt.scope is MemScope.TMEM


def check_target(op, spec, arch: ArchInfo | None, kernel) -> None:
    """Decline (check `target`) when ``op`` needs a feature ``arch`` lacks; nothing without a target.
    Once a kernel (``kernel``: its KernelFacts): the first such op is the one the user must change, and
    every later op would repeat the same sentence."""
    if arch is None or arch.has_tcgen05 or kernel.target_refused:
        return
    traits = spec.traits
    if (Trait.TCGEN05 in traits and Trait.USES_TMEM in traits) or any(map(_tmem, op.operands)) \
            or any(map(_tmem, op.results)):
        kernel.target_refused = True
        fail("target", f"tensor memory needs a tcgen05 target ({', '.join(TCGEN05_CHIPS)}), not {arch.arch}")
