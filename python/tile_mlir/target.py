"""Targets: the default arch, chip names, and which PTX features a chip has.

Pure Python (no MLIR bindings): the runtime imports it on machines without them. Dispatch predicates,
the pass pipelines and the runtime all ask here, so each fact has one home.

A chip is named as ptxas names it: ``sm_XY`` (runs on compute capability X.Y and later), ``sm_XYa``
(architecture-specific features, exactly X.Y) or ``sm_XYf`` (family-specific features, X.Y and later
minors of major X). Feature facts are the "Target ISA notes" of the PTX ISA:

    feature    instruction                               targets
    cp.async   cp.async.{ca,cg}.shared.global             sm_80 and later
    TMA        cp.async.bulk.tensor                       sm_90 and later
    clusters   %cluster_ctarank, barrier.cluster, ...     sm_90 and later
    wgmma      wgmma.mma_async                            sm_90a only
    setmaxnreg setmaxnreg.{inc,dec}.sync.aligned.u32      sm_90a, and the a and f variants from sm_100 on
    tcgen05    tcgen05.alloc/cp/mma/ld/st/commit/...      sm_100a/101a/103a/110a and the f variants
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DEFAULT_ARCH", "SUPPORTED_CHIPS", "ArchInfo", "parse_arch", "check_ptx_features", "TMEM_LANES", "TMEM_COLUMNS",
           "MAX_THREAD_REGISTERS", "register_budget", "TCGEN05_CHIPS"]

DEFAULT_ARCH = "sm_100a"  # tcgen05 needs the architecture-specific target
# tensor memory of one CTA on the tcgen05 chips: 128 lanes x 512 columns of 32 bits (PTX ISA, Tensor Memory)
TMEM_LANES, TMEM_COLUMNS = 128, 512
# The register file as ptxas budgets a CTA of .reqntid threads on sm_90 and sm_100 alike: four SM
# sub-partitions of 16384 32-bit registers, the CTA's warps dealt among them, a thread's registers in
# units of 8, at most 255 (PTX ISA "Registers"). Measured: ptxas 13.4's C7602 "Insufficient registers (N)"
# names 128 for 416 to 512 threads, 96 for 640, 72 for 896.
MAX_THREAD_REGISTERS = 255
_PARTITIONS, _PARTITION_REGISTERS, _REGISTER_UNIT = 4, 16384, 8


def register_budget(threads: int) -> int:
    """The most 32-bit registers ptxas gives each thread of a CTA of `threads` threads."""
    warps = -(-threads // 32)
    per_partition = -(-warps // _PARTITIONS)  # warps on the busiest sub-partition
    per_thread = _PARTITION_REGISTERS // (32 * per_partition) // _REGISTER_UNIT * _REGISTER_UNIT
    return min(MAX_THREAD_REGISTERS, per_thread)


# ASCII digits only (\d would take any Unicode digit); two or three of them, no leading zero
_ARCH_RE = re.compile(r"sm_([1-9][0-9]{1,2})([af]?)", re.ASCII)
# the features string of #nvvm.target: a PTX ISA version for LLVM's NVPTX backend, e.g. +ptx88 (PTX 8.8)
_FEATURES_RE = re.compile(r"\+ptx[1-9][0-9]{1,2}", re.ASCII)
_TCGEN05_SM = frozenset({100, 101, 103, 110})  # sm_101 is sm_110 from CUDA 13 on: both are accepted
# The chips there are: the GPU names of ptxas 13.0 (`ptxas --help`, --gpu-name) and sm_101 (CUDA 12.9's
# name of sm_110). Every sm_XY; the `a` variants from sm_90 on; the `f` variants from sm_100 on.
_CHIP_SMS = (75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121)
SUPPORTED_CHIPS: tuple[str, ...] = tuple(f"sm_{sm}{s}" for sm in _CHIP_SMS for s in ("", "a", "f")
                                         if not (s == "a" and sm < 90 or s == "f" and sm < 100))

#: the chips with tensor memory and the tcgen05 instructions (what a target check names)
TCGEN05_CHIPS: tuple[str, ...] = tuple(c for c in SUPPORTED_CHIPS if int(c[3:6].rstrip("af")) in _TCGEN05_SM
                                       and c[-1] in "af")


@dataclass(frozen=True)
class ArchInfo:
    arch: str
    major: int
    minor: int
    suffix: str  # "", "a" or "f"

    @property
    def sm(self) -> int:
        return self.major * 10 + self.minor

    @property
    def has_cp_async(self) -> bool:
        return self.sm >= 80

    @property
    def has_tma(self) -> bool:
        return self.sm >= 90

    @property
    def has_clusters(self) -> bool:
        return self.sm >= 90

    @property
    def has_wgmma(self) -> bool:
        return self.sm == 90 and self.suffix == "a"

    @property
    def has_setmaxnreg(self) -> bool:
        return self.sm >= 90 and self.suffix in ("a", "f")

    @property
    def has_f32x2(self) -> bool:
        """add / mul / fma.rn.f32x2 (PTX ISA: sm_100 and later)."""
        return self.sm >= 100

    @property
    def has_tcgen05(self) -> bool:
        return self.sm in _TCGEN05_SM and self.suffix in ("a", "f")


def parse_arch(arch: str) -> ArchInfo:
    """The chip `arch` names (surrounding blanks ignored); ValueError when it names none, or a chip
    not in SUPPORTED_CHIPS (refused here, once, rather than by each op's dispatch). ArchInfo.arch
    is then a token of the grammar sm_XY[a|f], safe to put in pass-pipeline text."""
    if not isinstance(arch, str):
        raise TypeError(f"a GPU architecture is a str such as 'sm_100a', got {type(arch).__name__}")
    m = _ARCH_RE.fullmatch(arch.strip())
    if not m:
        raise ValueError(f"unknown GPU architecture {arch!r}: expected sm_XY, sm_XYa or sm_XYf "
                         "(e.g. sm_100a, sm_90a)")
    if m.group(0) not in SUPPORTED_CHIPS:
        raise ValueError(f"unknown GPU architecture {arch!r}: no such chip; supported: {', '.join(SUPPORTED_CHIPS)}")
    digits = m.group(1)
    return ArchInfo(m.group(0), int(digits[:-1]), int(digits[-1]), m.group(2))


def check_ptx_features(features: str) -> str:
    """`features` (the PTX ISA version LLVM emits, +ptxXY) when it is well formed; else ValueError."""
    if not isinstance(features, str) or not _FEATURES_RE.fullmatch(features):
        raise ValueError(f"PTX features {features!r}: expected a PTX ISA version such as +ptx88")
    return features
