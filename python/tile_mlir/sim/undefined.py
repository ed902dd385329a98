"""Register values the PTX ISA leaves undefined: an instruction that may execute, whose result may
not be relied on (docs/emulator.md §12.4, §12.7 W10 and W11).

NVIDIA's own kernels execute such instructions in every lane and use the result only where it is
defined: CUTLASS's CLC tile scheduler maps an mbarrier into CTA ``lane`` of the cluster in all 32
lanes and arrives on it only in the lanes below the cluster size, and reads
``query_cancel.get_first_ctaid`` of every response but uses the ctaid only when
``is_canceled`` is true.  Faulting at the instruction would refuse correct code; so the
destination register gets an :class:`Undefined` value instead, and a *use* of it (arithmetic, a
comparison, an address, a stored value) is the finding of the instruction's rule: an error in
strict mode, counted in lenient mode, where the run goes on with the value's stand-in bits (a mapa
address into a CTA the cluster does not have then faults at the access).  As a memory sanitizer's
shadow does, integer arithmetic and copies (:data:`PROPAGATE`) are no use: their result is
undefined in turn (NVIDIA's compiler adds the CTA's offset to the ctaid of every response before
the branch on is_canceled decides whether it means anything); comparisons, addresses, stores,
floating-point and every other instruction are.
"""

from __future__ import annotations

from . import findings
from .guarded_int import guard_int_ops


#: integer instructions whose result is merely undefined when an operand is (no use of it)
PROPAGATE = frozenset({"mov", "add", "sub", "mul", "mad", "and", "or", "xor", "not", "shl", "shr",
                       "shf", "neg", "min", "max", "bfe", "bfi", "prmt", "lop3", "selp"})


def _int_typed(text: str) -> bool:
    """Whether the instruction's type (its opcode's last modifier) is .u/.s/.b (not floating)."""
    op = next(w for w in text.split() if not w.startswith("@"))
    return op.rsplit(".", 1)[-1][:1] in ("u", "s", "b")


class Origin:
    """Where an undefined value came from: the rule and the sentence its use reports."""
    __slots__ = ("M", "rule", "line", "what")

    def __init__(self, M, rule: str, line: int, what: str):
        self.M, self.rule, self.line, self.what = M, rule, line, what


@guard_int_ops
class Undefined(int):
    """An undefined register value: its stand-in bits, and any use of them is the finding of its
    origin's rule (the emulator's own code reads ``.value``)."""

    value = property(int.__int__)

    def __new__(cls, value: int, origin: Origin):
        obj = int.__new__(cls, value)
        obj.origin = origin
        return obj

    def _touch(self) -> bool:
        o = self.origin
        M = o.M
        cur = M.cur
        if cur is not None and cur.mnemonic in PROPAGATE and (
                cur.mnemonic == "mov" or _int_typed(cur.text)):
            return True  # arithmetic or a copy: its result is undefined in turn
        at = f" at line {cur.line}" if cur is not None else ""
        findings.report(M, o.rule, f"{o.what} (line {o.line}) is used{at}: its value is "
                        f"undefined", line=o.line)
        return False

    def _propagate(self, value):
        return Undefined(value, self.origin)


def undefined(M, rule: str, line: int, what: str):
    """A factory of undefined values of one instruction: ``f(bits)``."""
    o = Origin(M, rule, line, what)
    return lambda bits: Undefined(bits, o)


findings.RULES.setdefault("undefined-value", (
    "PTX ISA, mapa: the result is an address in CTA b of the cluster, defined only for a rank of "
    "the cluster; a value the ISA does not define must not be used"))
