"""tcgen05.ld destination registers are unreadable until tcgen05.wait::ld (PTX ISA, tcgen05.ld: the
load is asynchronous and tcgen05.wait::ld waits for it).

tcgen05.ld writes each destination register an :class:`Unwaited` value (the loaded bits); any use
of it (arithmetic, comparison, a store) is the ``tcgen05.wait::ld`` finding of sim/findings.py:
an error in strict mode, counted in lenient mode, where the bits are used as loaded.
``tcgen05.wait::ld`` lands the thread's pending loads: their values, wherever they were copied, are
plain from then on.

A `mov` copies a value without using it, so it propagates the poison (as a memory sanitizer's shadow
does): `mov.b64 %rd, {%r1, %r2}` of two unwaited registers is an unwaited 64-bit register of the same
load, fine to use after the wait. NVIDIA's own compiler (libNVVM) moves such copies above the
tcgen05.wait::ld (measured: our tcgen05.ld epilogues pack the destinations into 64-bit registers in
the ld's block, the wait after the branch that joins it); a copy reads nothing the hardware must have
delivered, since ptxas renames registers and scoreboards the physical ones at their first use
(docs/emulator.md Table A, A40).

Kept: per thread the registers of its tcgen05.ld not yet waited for.

Most kernels never read a destination early, and that is decidable before the run:
:func:`never_read_unwaited` follows every path of the kernel (a may-analysis of which registers can
hold an unwaited value) and finds no instruction but a mov reading one.  Then no guarded value can
ever be touched, so tcgen05.ld writes plain ints (tcgen05_ldst.py): every result, finding and
warning is the same, without an object per destination register and lane.
"""

from __future__ import annotations

from .. import findings
from ..guarded_int import guard_int_ops
from ..names import Label
from ..state import Kept

#: False: tcgen05.ld always writes guarded values (tests compare the two)
STATIC = True


class Load:
    """One tcgen05.ld of one thread (its line names it): landed once its tcgen05.wait::ld has
    executed."""
    __slots__ = ("landed", "M", "line")

    def __init__(self, M, line):
        self.landed, self.M, self.line = False, M, line


@guard_int_ops
class Unwaited(int):
    """A tcgen05.ld destination register before tcgen05.wait::ld: its bits, and any use of them is
    the ``tcgen05.wait::ld`` finding (the emulator's own code reads ``.value``).  One attribute,
    its load, as a GEMM epilogue makes one per accumulator column and lane."""

    value = property(int.__int__)

    def __new__(cls, value, load):
        obj = int.__new__(cls, value)
        obj.load = load
        return obj

    def _touch(self) -> bool:
        """Whether the operation propagates the poison (a mov); reports a use before the wait."""
        load = self.load
        if load.landed:
            return False
        M = load.M
        cur = M.cur
        if cur is not None and cur.mnemonic == "mov":
            return True
        f = None if M.strict else findings.seen(M, "tcgen05.wait::ld", load.line)
        if f is not None:  # seen: count it (a GEMM epilogue reads thousands)
            f.count += 1
            return False
        findings.report(M, "tcgen05.wait::ld",
               f"a destination register of the tcgen05.ld at line {load.line} is read before "
               f"the tcgen05.wait::ld that completes the load", line=load.line)
        return False

    def _propagate(self, value):
        return Unwaited(value, self.load)  # a mov's result: as unwaited as its sources

    def _copied_to(self, t, slot):
        """A mov put this copy in register ``slot`` of ``t``: the wait makes it plain there too
        (so that the epilogue computes on plain ints, not through the guarded operators)."""
        if not self.load.landed:
            LD_REGS.of(t).regs.append((slot, self))

    @staticmethod
    def _moved(t, slot, xs, value):
        """A mov packing ``xs`` (plain or Unwaited) into ``value`` in register ``slot``: what
        guarded operators and ``_copied_to`` give, in one step (the first unlanded load
        carries)."""
        for x in xs:
            if type(x) is not int and not x.load.landed:
                obj = int.__new__(Unwaited, value)
                obj.load = x.load
                t.r[slot] = obj
                LD_REGS.of(t).regs.append((slot, obj))
                return
        t.r[slot] = value


class _LdRegs:
    __slots__ = ("regs", "loads")

    def __init__(self, t):
        self.regs = []  # (slot, Unwaited) of tcgen05.ld not yet waited for
        self.loads = []  # their Loads


LD_REGS = Kept("ld_poison", "thread", _LdRegs)


def poison_ld(M, t, slots, values, line):
    """tcgen05.ld's destinations: the loaded bits, unreadable until tcgen05.wait::ld."""
    r = t.r
    st = LD_REGS.of(t)
    load = Load(M, line)
    st.loads.append(load)
    regs, new = st.regs, int.__new__
    for s, v in zip(slots, values):
        if s is not None:
            x = r[s] = new(Unwaited, v)
            x.load = load
            regs.append((s, x))


def land_ld(t):
    """tcgen05.wait::ld: the thread's loads land (their values, copies included, are plain from now
    on), and the registers still holding them become plain ones."""
    st = LD_REGS.peek(t)
    if st is None:
        return
    for load in st.loads:
        load.landed = True
    r = t.r
    for s, x in st.regs:
        if r[s] is x:
            r[s] = x.value
    st.regs, st.loads = [], []


# ------------------------------------------------------------------------------- static proof
def _regs(op) -> set:
    """The registers an operand names (vectors, addresses, pairs, negations included)."""
    k = op[0]
    if k == "reg":
        return {op[1].key}
    if k == "vec":
        return set().union(*map(_regs, op[1]))
    if k == "addr":
        return _regs(op[1])
    if k == "tensor":
        return _regs(op[1]) | _regs(op[3])
    if k == "pair":
        return _regs(op[1]) | _regs(op[2])
    if k == "not":
        return _regs(op[1])
    return set()


def never_read_unwaited(code) -> bool:
    """Whether, on every path of ``code`` (decoded instructions), no instruction other than a mov
    reads a register that may hold a tcgen05.ld destination not yet waited for: a destination
    itself or a mov's copy of one, from the tcgen05.ld until a tcgen05.wait::ld (an unguarded one:
    it lands every load of the thread).  Conservative: every register an instruction names counts
    as read, and only unguarded movs overwrite."""
    n = len(code)
    state = [None] * (n + 1)  # the registers that may be unwaited on entry, once reached
    state[0] = frozenset()
    work = [0]
    while work:
        i = work.pop()
        if i >= n:
            continue
        may = state[i]
        di = code[i]
        inst, mn = di.src, di.mnemonic
        guard = inst.guard[0].key if inst.guard is not None else None
        if guard in may:
            return False
        ops = inst.operands
        if mn == "tcgen05.ld":
            if any(_regs(o) & may for o in ops[1:]):
                return False
            out = may | _regs(ops[0])
        elif mn == "tcgen05.wait::ld":
            out = may if guard is not None else frozenset()
        elif mn == "mov" and ops:
            dst = _regs(ops[0])
            if any(_regs(o) & may for o in ops[1:]):
                out = may | dst
            else:
                out = may if guard is not None else may - dst
        else:
            if any(_regs(o) & may for o in ops):
                return False
            out = may
        nxt = []
        if mn == "bra":
            tgt = ops[0][1] if ops and ops[0][0] == "sym" else None
            if not isinstance(tgt, Label):
                return False
            nxt.append(tgt.index)
            if guard is not None:
                nxt.append(i + 1)
        elif mn in ("ret", "exit", "trap", "brkpt"):
            if guard is not None:
                nxt.append(i + 1)
        else:
            nxt.append(i + 1)
        for j in nxt:
            old = state[j]
            new = out if old is None else old | out
            if old is None or new != old:
                state[j] = frozenset(new)
                work.append(j)
    return True
