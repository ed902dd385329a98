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
misalignment, deadlock, unallocated tensor memory) are never findings.

Every ordering violation the handlers report through ``Machine.violation`` becomes a finding of
rule ``ordering`` in lenient mode (its message says which); the rules below have their own names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import EmulationError
from .state import Kept

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


class _Findings:
    __slots__ = ("items", "index")

    def __init__(self, M):
        self.items: list[Finding] = []
        self.index: dict = {}


MACHINE = Kept("findings", "machine", _Findings)


def report(M, rule: str, message: str, *, line: int | None):
    """A broken ISA rule: an EmulationError in strict mode, else a finding (one per rule and line,
    counted)."""
    if M.strict:
        raise EmulationError(f"{message} [ISA rule {rule}; strict mode: run_ptx(strict=False) "
                             f"reports it as a finding]", line=line)
    st = MACHINE.of(M)
    key = (rule, line)
    f = st.index.get(key)
    if f is None:
        f = st.index[key] = Finding(rule, message, line)
        st.items.append(f)
    else:
        f.count += 1


def line_in(message: str) -> int | None:
    """The PTX line an ordering violation's message names first (``line N``), if any."""
    m = re.search(r"\bline (\d+)", message)
    return int(m.group(1)) if m else None


def collected(M, ptx: str) -> list[Finding]:
    """The run's findings in the order first seen, with their source lines."""
    st = MACHINE.peek(M)
    if st is None:
        return []
    src = source_map(ptx) if any(f.line for f in st.items) else {}
    for f in st.items:
        f.source = src.get(f.line)
    return list(st.items)


def source_map(ptx: str) -> dict:
    """PTX line -> "file:line" of the last ``.loc`` before it (``.file`` names the files, often
    after the code)."""
    lines = ptx.split("\n")
    files = dict(m.groups() for m in (re.match(r'\s*\.file\s+(\d+)\s+"([^"]*)"', t) for t in lines)
                 if m)
    out, cur = {}, None
    for i, text in enumerate(lines, 1):
        m = re.match(r"\s*\.loc\s+(\d+)\s+(\d+)", text)
        if m:
            cur = f"{files.get(m.group(1), 'file' + m.group(1))}:{m.group(2)}"
        elif cur is not None:
            out[i] = cur
    return out


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


# ----------------------------------------------------------------- tcgen05.ld destination poison
class Unwaited(int):
    """A tcgen05.ld destination register before tcgen05.wait::ld: its bits, and any use of them is
    the ``tcgen05.wait::ld`` finding (the emulator's own code reads ``.value``)."""

    def __new__(cls, value, M, line):
        obj = super().__new__(cls, value)
        obj.value, obj.M, obj.line = value, M, line
        return obj

    def _touch(self):
        M = self.M
        f = None if M.strict else MACHINE.of(M).index.get(("tcgen05.wait::ld", self.line))
        if f is not None:  # seen: count it (a GEMM epilogue reads thousands)
            f.count += 1
            return
        report(M, "tcgen05.wait::ld",
               f"a destination register of the tcgen05.ld at line {self.line} is read before "
               f"the tcgen05.wait::ld that completes the load", line=self.line)


def _guarded(name):
    plain = getattr(int, name)

    def op(self, *args):
        self._touch()
        return plain(int(self.value), *args)
    op.__name__ = name
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__",
              "__rfloordiv__", "__truediv__", "__rtruediv__", "__mod__", "__rmod__", "__pow__",
              "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__and__", "__rand__",
              "__or__", "__ror__", "__xor__", "__rxor__", "__neg__", "__pos__", "__abs__",
              "__invert__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__",
              "__float__", "__index__", "__format__", "to_bytes"):
    setattr(Unwaited, _name, _guarded(_name))
Unwaited.__hash__ = int.__hash__


class _LdRegs:
    __slots__ = ("regs",)

    def __init__(self, t):
        self.regs = []  # (slot, Unwaited) of tcgen05.ld not yet waited for


LD_REGS = Kept("findings", "thread", _LdRegs)


def poison_ld(M, t, slots, values, line):
    """tcgen05.ld's destinations: the loaded bits, unreadable until tcgen05.wait::ld."""
    r = t.r
    pend = LD_REGS.of(t).regs
    for s, v in zip(slots, values):
        if s is not None:
            x = r[s] = Unwaited(v, M, line)
            pend.append((s, x))


def land_ld(t):
    """tcgen05.wait::ld: every register still holding its load's value becomes a plain one."""
    st = LD_REGS.peek(t)
    if st is None:
        return
    r = t.r
    for s, x in st.regs:
        if r[s] is x:
            r[s] = x.value
    st.regs = []
