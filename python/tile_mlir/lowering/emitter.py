"""Small IR-building helpers shared by the lowerings (arith for integers, llvm for memory, scf loops).

All builders insert at the emitter's insertion point with its location. Integer arithmetic uses arith
(upstream convert-to-llvm lowers it); addresses use llvm.getelementptr on i8, the way NVPTX wants them.
"""
from __future__ import annotations

from contextlib import contextmanager

from ..mlir import arith, ir, llvm

__all__ = ["Emitter", "ptr_type", "I1", "I8", "I16", "I32", "I64"]

_DYNAMIC = -(2**31)  # llvm.getelementptr's marker for a dynamic index


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
    return ir.Type.parse(f"!llvm.ptr<{addr_space}>")


class Emitter:
    def __init__(self, ip, loc, cache: dict | None = None):
        self.ip = ip
        self.loc = loc
        self.cache = {} if cache is None else cache  # parsed attributes, shared by one pass run

    @contextmanager
    def at(self, ip):
        old, self.ip = self.ip, ip
        try:
            yield self
        finally:
            self.ip = old

    def create(self, name: str, operands=(), results=(), attrs=None, regions: int = 0):
        op = ir.Operation.create(name, results=list(results), operands=list(operands),
                                 attributes=attrs or {}, regions=regions, loc=self.loc, ip=self.ip)
        return op

    # -- constants and integer ops ------------------------------------------------------------------
    def const(self, value: int, t=None):
        t = t or I32()
        return arith.ConstantOp(t, ir.IntegerAttr.get(t, int(value)), loc=self.loc, ip=self.ip).result

    def i32(self, v: int):
        return self.const(v, I32())

    def i64(self, v: int):
        return self.const(v, I64())

    def _bin(self, cls, a, b):
        return cls(a, b, loc=self.loc, ip=self.ip).result

    def add(self, a, b):
        return self._bin(arith.AddIOp, a, b)

    def sub(self, a, b):
        return self._bin(arith.SubIOp, a, b)

    def mul(self, a, b):
        return self._bin(arith.MulIOp, a, b)

    def udiv(self, a, b):
        return self._bin(arith.DivUIOp, a, b)

    def urem(self, a, b):
        return self._bin(arith.RemUIOp, a, b)

    def and_(self, a, b):
        return self._bin(arith.AndIOp, a, b)

    def or_(self, a, b):
        return self._bin(arith.OrIOp, a, b)

    def xor(self, a, b):
        return self._bin(arith.XOrIOp, a, b)

    def shl(self, a, b):
        return self._bin(arith.ShLIOp, a, b)

    def shr(self, a, b):
        return self._bin(arith.ShRUIOp, a, b)

    def cmp(self, pred: str, a, b):
        p = ir.IntegerAttr.get(I64(), {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5,
                                       "ult": 6, "ule": 7, "ugt": 8, "uge": 9}[pred])
        return arith.CmpIOp(p, a, b, loc=self.loc, ip=self.ip).result

    def zext(self, v, t):
        return arith.ExtUIOp(t, v, loc=self.loc, ip=self.ip).result

    def trunc(self, v, t):
        return arith.TruncIOp(t, v, loc=self.loc, ip=self.ip).result

    # -- memory -----------------------------------------------------------------------------------
    def addressof(self, sym: str, addr_space: int):
        return self.create("llvm.mlir.addressof", results=[ptr_type(addr_space)],
                           attrs={"global_name": ir.FlatSymbolRefAttr.get(sym)}).result

    def gep(self, base, byte_offset):
        """base + byte_offset (an i32/i64 value or a Python int) as an i8 getelementptr."""
        if isinstance(byte_offset, int):
            if byte_offset == 0:
                return base
            return self.create("llvm.getelementptr", operands=[base], results=[base.type], attrs={
                "rawConstantIndices": ir.DenseI32ArrayAttr.get([byte_offset]),
                "elem_type": ir.TypeAttr.get(I8())}).result
        return self.create("llvm.getelementptr", operands=[base, byte_offset], results=[base.type], attrs={
            "rawConstantIndices": ir.DenseI32ArrayAttr.get([_DYNAMIC]),
            "elem_type": ir.TypeAttr.get(I8())}).result

    def load(self, t, ptr, align: int | None = None):
        return llvm.LoadOp(t, ptr, alignment=align, loc=self.loc, ip=self.ip).result

    def store(self, value, ptr, align: int | None = None):
        llvm.StoreOp(value, ptr, alignment=align, loc=self.loc, ip=self.ip)

    def ptrtoint(self, ptr, t):
        return llvm.PtrToIntOp(t, ptr, loc=self.loc, ip=self.ip).result

    def inttoptr(self, v, addr_space: int):
        return llvm.IntToPtrOp(ptr_type(addr_space), v, loc=self.loc, ip=self.ip).result

    def attr(self, text: str):
        """A parsed attribute, cached in the pass run's cache (lowerings ask for the same few many
        times; a global cache would keep every context alive)."""
        a = self.cache.get(text)
        if a is None:
            a = self.cache[text] = ir.Attribute.parse(text)
        return a

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
        return arith.ConstantOp(ir.IndexType.get(), ir.IntegerAttr.get(ir.IndexType.get(), v),
                                loc=self.loc, ip=self.ip).result

    def index_cast(self, v, t):
        return arith.IndexCastOp(t, v, loc=self.loc, ip=self.ip).result

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
