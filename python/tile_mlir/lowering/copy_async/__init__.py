"""copy_async variants, one module per instruction; VARIANTS lists them (a test checks the registry)."""
from __future__ import annotations

import importlib

# (module, variant name) of every copy_async variant; importing a module registers its variant.
VARIANTS = (
    ("tcgen05_cp", "smem->tmem"),
    ("tcgen05_ldst", "tmem->reg"),
    ("tcgen05_ldst", "reg->tmem"),
    ("cp_async", "global->shared"),
    ("tma", "tma"),
    ("st_global", "shared->global"),
)


def load_variants() -> None:
    for module, _ in VARIANTS:
        importlib.import_module(f"{__name__}.{module}")
