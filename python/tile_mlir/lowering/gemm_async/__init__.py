"""gemm_async variants, one module per instruction (with its pure planner); VARIANTS lists them (a test checks
the registry). docs/gemm.md describes the op, both variants and every check."""
from __future__ import annotations

import importlib

# (module, variant name) of every gemm_async variant; importing a module registers its variant.
VARIANTS = (
    ("tcgen05_mma", "tcgen05_mma"),
    ("wgmma", "wgmma"),
)


def load_variants() -> None:
    for module, _ in VARIANTS:
        importlib.import_module(f"{__name__}.{module}")
