"""Findings: rules the PTX ISA states that a kernel breaks, reported like a sanitizer report.

A *finding* is a broken ordering rule whose effect tile-sim can still define: NVIDIA's own CuTe
DSL kernels, as shipped and run on their silicon, wait on a tcgen05.commit's mbarrier and then
tcgen05.ld without the tcgen05.fence::after_thread_sync the ISA's pattern puts between them, and
read tcgen05.ld's destination registers with no tcgen05.wait::ld at all.  Refusing such kernels
would make tile-sim useless on real code; accepting them silently would hide that they rely on
something the ISA does not promise.  So in lenient mode (``run_ptx(strict=False)``, the default for
foreign PTX) each one is recorded once per (rule, PTX line) with a count, kept on
``SimResult.findings`` and printed by tile-run; in strict mode (what our own compiled kernels run
under) it raises :class:`EmulationError` like any fault.  Genuine faults (out of bounds,
misalignment, deadlock, unallocated tensor memory, a race whose access overlaps an in-flight
copy's bytes: ``Machine.violation(race=True)``) are never findings: they stop the run in both modes.

Every other ordering violation the handlers report through ``Machine.violation`` becomes a finding
of rule ``ordering`` in lenient mode (its message says which); the rules below have their own
names.  The tcgen05.ld register poison that reports ``tcgen05.wait::ld`` is handlers/ld_poison.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import EmulationError

#: rule -> what the PTX ISA says (the sentence each report cites)
RULES = {
    "tcgen05.fence::after_thread_sync": (
        "PTX ISA, tcgen05 memory consistency: an asynchronous tcgen05 operation ordered by a "
        "thread synchronisation (here the mbarrier wait on tcgen05.commit) is ordered with the "
        "waiting thread's later tcgen05 operations only through tcgen05.fence::after_thread_sync "
        "after the wait"),
    "tcgen05.wait::ld": (
        "PTX ISA, tcgen05.ld: the load is asynchronous; tcgen05.wait::ld waits for the completion "
        "of the thread's prior tcgen05.ld, before which its destination registers must not be "
        "read"),
    "generic-address": (
        "PTX ISA, Addresses as Operands: an instruction without a state space uses generic "
        "addressing, and a .shared::cta offset is no generic address of shared memory"),
    "smem-descriptor-version": (
        "PTX ISA, tcgen05 shared memory descriptor (Table 40): bits 46-48 hold the fixed constant "
        "0b001"),
    "ordering": "an ordering rule of the PTX ISA (the message names it)",
}


@dataclass
class Finding:
    rule: str
    message: str
    line: int | None  # 1-based PTX line
    source: str | None = None  # file:line of the nearest .loc before it, when the PTX has one
    count: int = 1  # how many times (threads, warps, iterations) it was seen

    def __str__(self):
        where = f"line {self.line}" if self.line is not None else "kernel"
        if self.source:
            where += f" ({self.source})"
        n = f" [x{self.count}]" if self.count > 1 else ""
        return f"tile-sim finding: {where}: [{self.rule}] {self.message}{n}"


def report(M, rule: str, message: str, *, line: int | None):
    """A broken ISA rule: an EmulationError in strict mode, else a finding (one per rule and line,
    counted)."""
    if M.strict:
        raise EmulationError(f"{message} [ISA rule {rule}; strict mode: run_ptx(strict=False) "
                             f"reports it as a finding]", line=line)
    f = seen(M, rule, line)
    if f is None:
        M.findings.append(Finding(rule, message, line))
    else:
        f.count += 1


def seen(M, rule: str, line: int | None):
    """The finding of this rule at this line, if reported already (there are few per run)."""
    for f in M.findings:
        if f.line == line and f.rule == rule:
            return f
    return None


def line_in(message: str) -> int | None:
    """The PTX line an ordering violation's message names first (``line N``), if any."""
    m = re.search(r"\bline (\d+)", message)
    return int(m.group(1)) if m else None


def collected(M, ptx: str) -> list[Finding]:
    """The run's findings in the order first seen, with their source lines (the ``.loc`` of the
    instruction at each finding's PTX line, sim/locations.py)."""
    src = {i.line: i.loc for i in M.code if i.loc} if any(f.line for f in M.findings) else {}
    for f in M.findings:
        f.source = src.get(f.line)
    return list(M.findings)


def generic_as_shared(M, t, a, space, what, line):
    """Triton's tcgen05.commit names its mbarrier by a zero-extended .shared::cta offset with no
    state space (generic addressing): outside the generic shared window, an address below the
    CTA's shared memory size is taken as the .shared::cta offset it is, and reported."""
    if (space != "generic" or M.classify_generic(a) == "generic_shared"
            or not 0 <= a < t.cta.smem.size):
        return space
    report(M, "generic-address",
           f"{what} at line {line} takes 0x{a:x}, a .shared::cta offset, as its generic mbarrier "
           f"address (no state space given); tile-sim uses it as that shared offset", line=line)
    return "shared"
