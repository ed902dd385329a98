"""tcgen05.ld destination registers are unreadable until tcgen05.wait::ld (PTX ISA, tcgen05.ld: the
load is asynchronous and tcgen05.wait::ld waits for it).

tcgen05.ld writes each destination register an :class:`Unwaited` value (the loaded bits); any use
of it (arithmetic, comparison, a store) is the ``tcgen05.wait::ld`` finding of sim/findings.py:
an error in strict mode, counted in lenient mode, where the bits are used as loaded.
``tcgen05.wait::ld`` turns the thread's registers still holding them into plain values.

Kept: per thread the registers of its tcgen05.ld not yet waited for.
"""

from __future__ import annotations

from .. import findings
from ..state import Kept


class Unwaited(int):
    """A tcgen05.ld destination register before tcgen05.wait::ld: its bits, and any use of them is
    the ``tcgen05.wait::ld`` finding (the emulator's own code reads ``.value``)."""

    def __new__(cls, value, M, line):
        obj = super().__new__(cls, value)
        obj.value, obj.M, obj.line = value, M, line
        return obj

    def _touch(self):
        M = self.M
        f = None if M.strict else findings.seen(M, "tcgen05.wait::ld", self.line)
        if f is not None:  # seen: count it (a GEMM epilogue reads thousands)
            f.count += 1
            return
        findings.report(M, "tcgen05.wait::ld",
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


LD_REGS = Kept("ld_poison", "thread", _LdRegs)


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
