"""NVVM enum attributes of the tile dialect's typed enums: the one place that spells them."""
from __future__ import annotations

from ..dialect.enums import CtaGroup, FenceKind

__all__ = ["nvvm_enum"]

_NVVM = {
    CtaGroup.CTA_1: "#nvvm.cta_group<cta_1>", CtaGroup.CTA_2: "#nvvm.cta_group<cta_2>",
    FenceKind.TCGEN05_BEFORE_SYNC: "#nvvm.tcgen05_fence<before>",
    FenceKind.TCGEN05_AFTER_SYNC: "#nvvm.tcgen05_fence<after>",
}


def nvvm_enum(em, value):
    """The NVVM attribute of enum member `value` (a verified op's, or its plain value: 2 is CTA_2), parsed
    once per emitter cache."""
    return em.attr(_NVVM[value])
