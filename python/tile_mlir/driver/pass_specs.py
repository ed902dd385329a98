"""What our passes say of themselves: each pass's description and options, and the pipeline aliases.

A light module (the target's parsers and the stage list; no MLIR bindings, no pass code), so that
`tile-opt --help` lists the passes without loading them (bench/startup.py: at most 0.2x `import cutlass`).
The pass classes take their `description` and `OPTIONS` from `PASSES` by their `name`
(TilePass.__init_subclass__); the registry that loads their code is passes.py, which re-exports PIPELINES.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..target import DEFAULT_ARCH, ArchInfo, check_ptx_features, parse_arch
from .stages import passes_through

__all__ = ["Option", "PassSpec", "PASSES", "PIPELINES", "DISPATCH_OPTIONS", "DEFAULT_FEATURES", "chip",
           "features", "boolean"]

# PTX ISA 8.8: the bundled ptxas accepts it; without it libNVVM emits .version 9.4
DEFAULT_FEATURES = "+ptx88"


@dataclass(frozen=True)
class Option:
    """A pass option: its help, how its text is read (`parse` raises ValueError naming the problem) and
    the CompileOptions field it sets (None: the pass reads it from `self.values`)."""

    help: str
    parse: Callable[[str], object] = str
    field: str | None = None


def chip(text: str) -> ArchInfo:
    """An explicit `chip=` (an empty one is an error, never the default)."""
    return parse_arch(text)


def features(text: str) -> str:
    return check_ptx_features(text)


def boolean(text: str) -> bool:
    value = {"true": True, "1": True, "false": False, "0": False}.get(text.strip().lower())
    if value is None:
        raise ValueError(f"expected true or false, got '{text}'")
    return value


@dataclass(frozen=True)
class PassSpec:
    """One pass as --help and pipeline text see it: what it does and the options it takes."""

    description: str
    options: dict  # option name -> Option (or its help, for a str option)


# the options of every dispatch pass (lowering/dispatch_pass.py)
DISPATCH_OPTIONS = {
    "chip": Option(f"target chip the variants must run on, default {DEFAULT_ARCH}", chip, "arch"),
    "all-variants": Option("list every variant in a dispatch failure, not only those for the op's memory pair "
                           "(true/false, default false)", boolean, "all_variants"),
}

# pass argument -> its spec, in pipeline order
PASSES: dict[str, PassSpec] = {
    "tile-verify": PassSpec(
        "Verify tile ops: types, scopes, layouts, regions, tensor-memory allocation, cta_group",
        {"chip": Option("target chip whose features the ops must have (tensor memory: a tcgen05 chip); "
                        "default none: no target checks", chip, "arch")}),
    "tile-lower-copy-async": PassSpec(
        "Lower tile.copy_async through the dispatch registry (tcgen05.cp for shared -> tmem)", DISPATCH_OPTIONS),
    "tile-lower-gemm-async": PassSpec(
        "Lower tile.gemm_async through the dispatch registry (tcgen05.mma on sm_100a, wgmma on sm_90a)",
        DISPATCH_OPTIONS),
    "convert-tile-to-nvvm": PassSpec(
        "Lower tile kernels to llvm.func kernels of NVVM ops in a gpu.module (chip=sm_100a)",
        {"chip": Option("target chip, e.g. sm_100a or sm_90a", chip, "arch"),
         "features": Option(f"PTX features, default {DEFAULT_FEATURES}", features, "features")}),
}

# the aliases, spelled from the compile's stages (stages.py)
PIPELINES: dict[str, tuple[str, str]] = {
    "tile-to-nvvm": (",".join(passes_through("llvm")),
                     "tile IR to NVVM/LLVM dialect in a gpu.module (verify, dispatch copy_async and gemm_async, lower)"),
    "tile-to-ptx": (",".join(passes_through("ptx")),
                    "tile-to-nvvm then gpu-module-to-binary{format=isa}; tile-opt prints the PTX"),
}


def option_help(name: str) -> list[tuple[str, str]]:
    """(option, help) of pass `name`'s options, for --help."""
    return [(k, v.help if isinstance(v, Option) else str(v)) for k, v in PASSES[name].options.items()]
