"""What a run of tile-sim returns (run.py builds it; explore/ compares them)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SimResult:
    #: per CTA: (128, 512) uint32, contents as of the last dealloc of each column range (a CTA that
    #: never used tensor memory shares one read-only array of the poison pattern)
    tmem: list
    steps: int  # warp-instructions executed
    warnings: list = field(default_factory=list)
    shared: list = field(default_factory=list)  # per CTA: final shared memory bytes (uint8)
    #: ISA rules the kernel broke, in lenient mode (sim/findings.py: rule, PTX line, source line)
    findings: list = field(default_factory=list)
    #: how the clusters ran: "serial: <why>" or "pool: ..." (sim/pool.py)
    schedule: str = ""
