"""Small IR-building helpers shared by the lowerings (arith for integers, llvm for memory, scf loops).

All builders insert at the emitter's insertion point with its location. Integer arithmetic uses arith
(upstream convert-to-llvm lowers it); addresses use llvm.getelementptr on i8, the way NVPTX wants them.

Builders create ops generically (ir.Operation.create): the generated OpView builders cost 2-4x as much
per op, which dominates lowering time. Parsed types and attributes live in the emitter's cache, which a
pass run shares between its emitters (a module-level cache would keep every context alive).
"""
from __future__ import annotations

from contextlib import contextmanager

from ..mlir import ir, llvm

__all__ = ["Emitter", "ptr_type", "I1", "I8", "I16", "I32", "I64"]

_DYNAMIC = -(2**31)  # llvm.getelementptr's marker for a dynamic index
_CMPI = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5, "ult": 6, "ule": 7, "ugt": 8, "uge": 9}


def I1():
    return ir.IntegerType.get_signless(1)


def I8():
    return ir.IntegerType.get_signless(8)


def I16():
    return ir.IntegerType.get_signless(16)


def I32():
    return ir.IntegerType.get_signless(32)


def I64():
    return ir.IntegerType.get_signless(64)


def int_type(bits: int):
    return ir.IntegerType.get_signless(bits)


def ptr_type(addr_space: int):
    return llvm.PointerType.get(addr_space)


class Emitter:
    def __init__(self, ip, loc, cache: dict | None = None):
        self.ip = ip
        self.loc = loc
        self.cache = {} if cache is None else cache  # parsed types and attributes, shared by one pass run

    @contextmanager
    def at(self, ip):
        old, self.ip = self.ip, ip
        try:
            yield self
        finally:
            self.ip = old

    def create(self, name: str, operands=(), results=(), attrs=None, regions: int = 0):
        return ir.Operation.create(name, results=results, operands=operands, attributes=attrs,
                                   regions=regions, loc=self.loc, ip=self.ip)

    def result(self, name: str, t, operands=(), attrs=None):
        """The result of a new one-result op `name` of type t."""
        return ir.Operation.create(name, results=(t,), operands=operands, attributes=attrs,
                                   loc=self.loc, ip=self.ip).result

    # -- cached types and attributes ------------------------------------------------------------------
    def _cached(self, key, make):
        value = self.cache.get(key)
        if value is None:
            value = self.cache[key] = make()
        return value

    def ptr(self, addr_space: int):
        """!llvm.ptr<addr_space>, cached (getting a type costs about as much as creating an op)."""
        return self._cached(("!llvm.ptr", addr_space), lambda: ptr_type(addr_space))

    def attr(self, text: str):
        """A parsed attribute, cached in the pass run's cache (lowerings ask for the same few many
        times; a global cache would keep every context alive)."""
        a = self.cache.get(text)
        if a is None:
            a = self.cache[text] = ir.Attribute.parse(text)
        return a

    def _i8_type_attr(self):
        return self._cached("i8 TypeAttr", lambda: ir.TypeAttr.get(I8()))

    # -- constants and integer ops ------------------------------------------------------------------
    def const(self, value: int, t=None):
        t = t or I32()
        width = t.width if isinstance(t, ir.IntegerType) else 64  # (index: 64)
        if not -(1 << (width - 1)) <= value < 1 << width:  # IntegerAttr would wrap it silently
            raise ValueError(f"constant {value} does not fit {t}")
        return self.result("arith.constant", t, attrs={"value": ir.IntegerAttr.get(t, int(value))})

    def i32(self, v: int):
        return self.const(v, I32())

    def i64(self, v: int):
        return self.const(v, I64())

    def _bin(self, name: str, a, b):
        return self.result(name, a.type, (a, b))

    def add(self, a, b):
        return self._bin("arith.addi", a, b)

    def sub(self, a, b):
        return self._bin("arith.subi", a, b)

    def mul(self, a, b):
        return self._bin("arith.muli", a, b)

    def udiv(self, a, b):
        return self._bin("arith.divui", a, b)

    def urem(self, a, b):
        return self._bin("arith.remui", a, b)

    def and_(self, a, b):
        return self._bin("arith.andi", a, b)

    def or_(self, a, b):
        return self._bin("arith.ori", a, b)

    def xor(self, a, b):
        return self._bin("arith.xori", a, b)

    def shl(self, a, b):
        return self._bin("arith.shli", a, b)

    def shr(self, a, b):
        return self._bin("arith.shrui", a, b)

    def cmp(self, pred: str, a, b):
        return self.result("arith.cmpi", I1(), (a, b), {"predicate": ir.IntegerAttr.get(I64(), _CMPI[pred])})

    def zext(self, v, t):
        return self.result("arith.extui", t, (v,))

    def trunc(self, v, t):
        return self.result("arith.trunci", t, (v,))

    # -- memory -----------------------------------------------------------------------------------
    def addressof(self, sym: str, addr_space: int):
        return self.result("llvm.mlir.addressof", self.ptr(addr_space),
                           attrs={"global_name": ir.FlatSymbolRefAttr.get(sym)})

    def gep(self, base, byte_offset):
        """base + byte_offset (an i32/i64 value or a Python int) as an i8 getelementptr."""
        if isinstance(byte_offset, int):
            if byte_offset == 0:
                return base
            if not _DYNAMIC < byte_offset < 2**31:  # beyond the i32 of a constant index: an i64 operand
                return self.gep(base, self.i64(byte_offset))
            operands, index = (base,), byte_offset
        else:
            operands, index = (base, byte_offset), _DYNAMIC
        return self.result("llvm.getelementptr", base.type, operands, {
            "rawConstantIndices": ir.DenseI32ArrayAttr.get([index]), "elem_type": self._i8_type_attr()})

    def _align(self, align: int | None):
        return None if align is None else {"alignment": ir.IntegerAttr.get(I64(), align)}

    def load(self, t, ptr, align: int | None = None):
        return self.result("llvm.load", t, (ptr,), self._align(align))

    def store(self, value, ptr, align: int | None = None):
        self.create("llvm.store", (value, ptr), attrs=self._align(align))

    def ptrtoint(self, ptr, t):
        return self.result("llvm.ptrtoint", t, (ptr,))

    def inttoptr(self, v, addr_space: int):
        return self.result("llvm.inttoptr", self.ptr(addr_space), (v,))

    # -- control flow -----------------------------------------------------------------------------
    @contextmanager
    def if_(self, cond):
        """scf.if cond { <body> } (no results, no else)."""
        op = self.create("scf.if", operands=[cond], regions=2)
        block = op.regions[0].blocks.append()
        with self.at(ir.InsertionPoint(block)):
            yield
            self.create("scf.yield")
        return op

    @contextmanager
    def for_(self, lb, ub, step):
        """scf.for %iv = lb to ub step step { <body> }: yields %iv (index values)."""
        idx = ir.IndexType.get()
        op = self.create("scf.for", operands=[lb, ub, step], regions=1)
        block = op.regions[0].blocks.append(idx)
        with self.at(ir.InsertionPoint(block)):
            yield block.arguments[0]
            self.create("scf.yield")

    def index(self, v: int):
        return self.const(v, ir.IndexType.get())

    def index_cast(self, v, t):
        return self.result("arith.index_cast", t, (v,))

    def spin_until(self, make_cond):
        """scf.while: repeat make_cond(emitter) until it yields true (for mbarrier try_wait loops)."""
        op = self.create("scf.while", regions=2)
        before = op.regions[0].blocks.append()
        with self.at(ir.InsertionPoint(before)):
            done = make_cond(self)
            again = self.xor(done, self.const(1, I1()))
            self.create("scf.condition", operands=[again])
        after = op.regions[1].blocks.append()
        with self.at(ir.InsertionPoint(after)):
            self.create("scf.yield")
        return op
