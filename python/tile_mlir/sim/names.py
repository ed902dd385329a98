"""PTX names: identifiers, the scopes that declare them, and their resolution to declarations.

The grammar (PTX ISA, "Identifiers", ``#identifiers``) is ``[a-zA-Z][a-zA-Z0-9_$]*`` or
``[_$%][a-zA-Z0-9_$]+``.  ``%`` is no mark of a register: ``.reg .pred P1;`` declares a register
named ``P1`` (CUTLASS's inline assembly does), and ``%x`` may name a label or a variable.  What a
name stands for is what its declaration says.

Scopes, as ptxas applies them (each rule checked against ptxas 13):

* a ``{ }`` block opens a scope; the registers, variables and labels declared in it are visible
  only inside it and shadow outer ones, so an inlined block may repeat ``.reg .pred P1;`` and
  ``DONE:`` as often as it is inlined; a branch from outside to a label inside a block is an
  unknown symbol;
* one scope declares a name once (a register and a label share its names);
* the function's parameters belong to its outermost body scope; the module's variables to the
  module scope; outside it are the special registers (``%tid.x``, ...), which a declaration may
  shadow;
* ``.reg .b32 %r<N>;`` declares ``%r0`` .. ``%r{N-1}``; a use is resolved as ptxas does, by
  splitting its trailing decimal digits (``%r07`` is ``%r7``).

:func:`resolve_function` runs once per function, after its body is parsed (a label may be used
before it is defined): every identifier operand becomes ``('reg', Register)`` or
``('sym', declaration, offset)``, so two declarations of one name can never be confused.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .errors import EmulationError

IDENT = r"(?:[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+)"
#: an operand name: an identifier, with a component for the vector special registers (%tid.x)
NAME_RE = re.compile(rf"^{IDENT}(?:\.[xyzw])?$")
IDENT_RE = re.compile(rf"^{IDENT}$")
_INDEXED_RE = re.compile(r"^(.*?)([0-9]+)$")

#: declared registers per kernel.  The hardware has 255 32-bit registers per thread, but PTX
#: registers are virtual (ptxas allocates them), so NVVM declares one per SSA value: a CUTLASS GEMM
#: declares a few thousand.  tile-sim gives every register a kernel uses a slot in each thread's
#: register file (1024 threads x 65536 registers x 8 bytes = 512 MiB at worst).
MAX_REGISTERS = 65536
#: nesting depth of ``{ }`` blocks (inline assembly nests two or three deep); bounds the time a
#: lookup takes through the enclosing scopes.
MAX_BLOCK_DEPTH = 256

#: special registers (PTX ISA "Special Registers") -> bit width; read-only, predefined.
SPECIAL_REGS = {
    **{f"%{n}.{c}": 32 for n in ("tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid",
                                   "cluster_ctaid", "cluster_nctaid") for c in "xyz"},
    "%laneid": 32, "%warpid": 32, "%nwarpid": 32, "%cluster_ctarank": 32,
    "%cluster_nctarank": 32, "%dynamic_smem_size": 32, "%total_smem_size": 32,
    "%aggr_smem_size": 32, "%smid": 32, "%nsmid": 32, "%gridid": 64, "%is_explicit_cluster": 1,
    "%lanemask_eq": 32, "%lanemask_le": 32, "%lanemask_lt": 32, "%lanemask_ge": 32,
    "%lanemask_gt": 32, "%clock": 32, "%clock64": 64, "%globaltimer": 64, "%globaltimer_lo": 32,
    "%globaltimer_hi": 32,
}


class RegDecl:
    """One name of a ``.reg`` declaration: a register, or ``count`` registers ``name0`` ..."""
    __slots__ = ("name", "type", "bits", "count", "line", "special")

    def __init__(self, name, type_, bits, count, line, special=False):
        self.name, self.type, self.bits, self.count = name, type_, bits, count
        self.line, self.special = line, special


class Register(NamedTuple):
    """A register an operand names: ``decl`` (``index`` into it for ``%r<N>``), spelled ``name``.
    Registers are the same register iff their ``key`` is."""
    name: str
    decl: RegDecl
    index: int | None

    @property
    def key(self):
        return (self.decl, self.index)

    @property
    def bits(self) -> int:
        return self.decl.bits

    def __repr__(self):
        return self.name

    __str__ = __repr__


class Label:
    __slots__ = ("name", "index", "line")

    def __init__(self, name, index, line):
        self.name, self.index, self.line = name, index, line


class Scope:
    """The names one block (function body, module) declares, and the scope enclosing it."""
    __slots__ = ("parent", "names", "ranges", "depth")

    def __init__(self, parent: Scope | None = None):
        self.parent = parent
        self.names: dict = {}  # name -> RegDecl | Label | VarDecl | Param
        self.ranges: dict = {}  # base name of `.reg .t base<N>` -> RegDecl
        self.depth = parent.depth + 1 if parent is not None else 0

    def declare(self, name: str, decl, line: int, what: str):
        if self._local(name) is not None:
            raise EmulationError(f"line {line}: duplicate definition of {what} `{name}` in one "
                                 f"scope", line=line)
        self.names[name] = decl

    def declare_range(self, decl: RegDecl, line: int):
        if decl.name in self.ranges or any(self._covered(n, decl) for n in self.names):
            raise EmulationError(f"line {line}: duplicate definition of register "
                                 f"`{decl.name}<{decl.count}>` in one scope", line=line)
        self.ranges[decl.name] = decl

    def _local(self, name: str):
        found = self.names.get(name)
        if found is not None:
            return found
        ix = _indexed(name) if self.ranges else None
        if ix:
            r = self.ranges.get(ix[0])
            if r is not None and ix[1] < r.count:
                return Register(name, r, ix[1])
        return None

    @staticmethod
    def _covered(name, decl):
        ix = _indexed(name)
        return bool(ix) and ix[0] == decl.name and ix[1] < decl.count

    def lookup(self, name: str):
        """The innermost declaration of ``name`` (a Register for registers), or None."""
        s = self
        while s is not None:
            found = s._local(name)
            if found is not None:
                return Register(name, found, None) if isinstance(found, RegDecl) else found
            s = s.parent
        return None


def _indexed(name: str):
    """``%r12`` -> ("%r", 12): how ptxas reads a name of a ``%r<N>`` range; None for a name
    without trailing digits, or with more than a count can have."""
    if name[-1] not in "0123456789":
        return None
    m = _INDEXED_RE.match(name)
    return (m.group(1), int(m.group(2))) if len(m.group(2)) <= 18 else None


def predefined_scope() -> Scope:
    """The scope outside every module: the special registers."""
    s = Scope()
    for name, bits in SPECIAL_REGS.items():
        s.names[name] = RegDecl(name, f"b{bits}" if bits > 1 else "pred", bits, None, 0, True)
    return s


# ---------------------------------------------------------------------------------------------
# resolution: ('id', name, offset) operands, from the parser, to registers and symbols

def resolve_function(fn) -> None:
    """Resolve the operands and guards of every instruction of ``fn`` in its scope."""
    for inst in fn.instructions:
        inst.operands = [_resolve(op, inst) for op in inst.operands]
        if inst.guard is not None:
            name, neg = inst.guard
            reg = _register(name, inst)
            if reg.bits != 1:
                raise _error(inst, f"guard `{name}` is not a .pred register")
            inst.guard = (reg, neg)
        inst.scope = None  # resolved: the scopes are no longer needed


def _resolve(op, inst):
    k = op[0]
    if k == "id":
        _, name, off = op
        decl = _lookup(name, inst)
        if isinstance(decl, Register):
            if off:
                raise _error(inst, f"register {name} cannot take an offset ({off:+d}) outside [ ]")
            return ("reg", decl)
        return ("sym", decl, off)
    if k == "vec":
        return ("vec", [_resolve(o, inst) for o in op[1]])
    if k == "addr":
        return ("addr", _resolve(op[1], inst), op[2])
    if k == "tensor":
        return ("tensor", _resolve(op[1], inst), op[2], _resolve(op[3], inst))
    if k == "pair":
        return ("pair", _resolve(op[1], inst), _resolve(op[2], inst))
    if k == "not":
        return ("not", _resolve(op[1], inst))
    if k == "plist":
        return ("plist", [_resolve(o, inst) for o in op[1]])
    return op


def _lookup(name, inst):
    decl = inst.scope.lookup(name)
    if decl is None:
        raise _error(inst, f"unknown identifier `{name}` (not declared in this scope or an "
                           f"enclosing one)")
    return decl


def _register(name, inst) -> Register:
    decl = _lookup(name, inst)
    if not isinstance(decl, Register):
        raise _error(inst, f"`{name}` is not a register")
    return decl


def _error(inst, msg):
    return EmulationError(f"line {inst.line}: `{inst.text}`: {msg}", line=inst.line, located=True)
