"""How a tile op is defined: one Python class per op, its fields typed (as xDSL's irdl_op_definition and
upstream MLIR's Python-defined ops in dialects/ext.py, neither of which our bindings provide).

    class TmemAllocOp(TileOp, name="tmem.alloc"):
        '''tcgen05.alloc of num_cols tensor-memory columns ...'''
        slot = Operand(BufferOf(MemScope.SHARED))
        num_cols = Attr(I64, required=True)
        cta_group = Attr(CtaGroup, default=CtaGroup.CTA_1)
        TRAITS = (Trait.TCGEN05, Emits("nvvm.tcgen05.alloc", "tcgen05.alloc", Trait.TCGEN05))

        def verify(self, kernel): ...

The class is the op's OpView (registered for its name, so `cls(operation)` is a typed view: `op.slot` is
the operand, `op.num_cols` the attribute's Python value, an enum member for enum attributes). Its fields
compile, once, to the OpSpec that everything else derives from: the generic checks (dialect/verifier.py),
the keyword builders (dialect/builders.py), lib/TileOps.irdl (dialect/irdl.py), the set of dispatched
ops, the output writers and the fence traits. `verify(kernel)` is the op's own verifier (ODS's
hasVerifier), run after the generic checks; it raises Decline(check, reason).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable

from ..mlir import ir, register_dialect, register_operation
from .decline import fail
from .enums import MemScope

__all__ = ["Trait", "Writes", "Dispatched", "Emits", "BufferOf", "TypeIs", "OperandSpec", "AttrSpec", "OpSpec",
           "Operand", "Result", "Attr", "RegionAttrs", "TileOp", "TileDialect", "STR", "I64", "I64_ARRAY",
           "I32_ARRAY3", "STR_ARRAY", "read_attr", "read_attr_in", "make_attr", "KIND_NAMES"]


class Trait(enum.Enum):
    """Facts about an op that passes act on without naming the op (as MLIR's op traits)."""

    # issues tcgen05 instructions: one cta_group per kernel (verifier), and the PTX memory model's
    # tcgen05.fence::before/after_thread_sync around thread syncs (convert-tile-to-nvvm)
    TCGEN05 = "Tcgen05"
    # reads shared memory through the async proxy: generic-proxy writes it reads need fence.proxy.async
    READS_SHARED_ASYNC_PROXY = "ReadsSharedAsyncProxy"
    # reads or writes tensor memory
    USES_TMEM = "UsesTensorMemory"
    # ends a tile.kernel body
    TERMINATOR = "Terminator"


@dataclass(frozen=True)
class Writes:
    """The op writes the memory of operand `operand` (a kernel parameter written by an op is an output)."""

    operand: str


@dataclass(frozen=True)
class Dispatched:
    """The op is lowered by pass `pass_name` through the dispatch registry under `key` (dispatch.py), before
    convert-tile-to-nvvm."""

    pass_name: str
    key: str


@dataclass(frozen=True)
class Emits:
    """An NVVM op that the op's lowering emits, the PTX opcodes it becomes (what tile-sim must execute) and
    its traits (which fences the kernel needs once the tile op is gone: lowering/fences.py)."""

    nvvm: str | None
    ptx: tuple[str, ...] | str = ()
    traits: frozenset[Trait] | Trait | tuple = frozenset()

    def __post_init__(self):
        if isinstance(self.ptx, str):
            object.__setattr__(self, "ptx", (self.ptx,))
        t = self.traits
        object.__setattr__(self, "traits", frozenset((t,) if isinstance(t, Trait) else t))


# -- constraints of operands and results -------------------------------------------------------------
@dataclass(frozen=True)
class BufferOf:
    """A !tile.buffer of one of `scopes` (MemScope members; their spellings are read as members)."""

    scopes: tuple[MemScope, ...]

    def __init__(self, *scopes: MemScope | str):
        object.__setattr__(self, "scopes", tuple(MemScope(s) for s in scopes))

    def describe(self) -> str:
        return " or ".join(self.scopes)


@dataclass(frozen=True)
class TypeIs:
    """Exactly the MLIR type spelled `spelling` (i1, i32, !tile.tensormap)."""

    spelling: str

    def get(self):
        """The type, in the current context."""
        if self.spelling.startswith("!tile."):
            return ir.OpaqueType.get("tile", self.spelling[len("!tile."):])
        if self.spelling[0] == "i" and self.spelling[1:].isdigit():
            return ir.IntegerType.get_signless(int(self.spelling[1:]))
        return ir.Type.parse(self.spelling)


def _constraint(c):
    if isinstance(c, (BufferOf, TypeIs)):
        return c
    if c.startswith("buffer:"):  # (the spelling of hand-made specs: "buffer:shared|tmem")
        return BufferOf(*c.split(":", 1)[1].split("|"))
    return TypeIs(c)


@dataclass(frozen=True)
class OperandSpec:
    name: str
    constraint: BufferOf | TypeIs
    optional: bool = False
    variadic: bool = False  # the last operand only: any number of values (0 or more)

    def __post_init__(self):
        object.__setattr__(self, "constraint", _constraint(self.constraint))


# attribute kinds: how the value is stored
STR, I64, I64_ARRAY, I32_ARRAY3, STR_ARRAY = "str", "i64", "i64_array", "i32_array3", "str_array"


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: str  # STR | I64 | I64_ARRAY | I32_ARRAY3 | STR_ARRAY
    required: bool = False
    default: object = None
    choices: tuple = ()
    enum: type | None = None  # the values' enum (its members, or `choices` of them)


@dataclass(frozen=True)
class OpSpec:
    """What an op class's fields say, in plain data."""

    name: str  # without the "tile." prefix
    summary: str
    operands: tuple[OperandSpec, ...] = ()
    results: tuple[OperandSpec, ...] = ()
    attrs: tuple[AttrSpec, ...] = ()
    regions: int = 0
    terminator: bool = False
    # verify(op, kernel: KernelFacts): the op's own invariants, raising Decline (decline.fail)
    verify: Callable[..., None] | None = None
    traits: frozenset[Trait] = frozenset()
    writes: tuple[str, ...] = ()  # operand names (Writes)
    dispatched: Dispatched | None = None
    emits: tuple[Emits, ...] = ()
    cls: type | None = field(default=None, compare=False)

    @property
    def full_name(self) -> str:
        return "tile." + self.name

    def attr(self, name: str) -> AttrSpec:
        try:
            return self._attr_map[name]
        except AttributeError:
            object.__setattr__(self, "_attr_map", {a.name: a for a in self.attrs})
            return self._attr_map[name]


# -- fields -------------------------------------------------------------------------------------------
class Operand:
    """An operand field: on a view, its value (None for an absent optional one, a list for a variadic)."""

    def __init__(self, constraint, *, optional: bool = False, variadic: bool = False):
        self.constraint, self.optional, self.variadic = _constraint(constraint), optional, variadic
        self.name, self.index = "", 0

    def __set_name__(self, owner, name):
        self.name = name

    def spec(self) -> OperandSpec:
        return OperandSpec(self.name, self.constraint, self.optional, self.variadic)

    def __get__(self, op, owner=None):
        if op is None:
            return self
        operands = op.operation.operands
        if self.variadic:
            return list(operands)[self.index:]
        if self.optional and len(operands) <= self.index:
            return None
        return operands[self.index]


class Result(Operand):
    """A result field: on a view, the result value."""

    def __get__(self, op, owner=None):
        if op is None:
            return self
        return op.operation.results[self.index]


class Attr:
    """An attribute field: on a view, its Python value (the default when absent; an enum member for an
    enum attribute). `kind` is an attribute kind or an enum class (StrEnum: stored as a string, IntEnum:
    as an i64); `choices` restricts an enum to some of its members."""

    def __init__(self, kind, *, required: bool = False, default=None, choices=(), elide_default: bool = False):
        self.elide_default = elide_default  # the builders write the default unless this is set
        self.enum = kind if isinstance(kind, type) and issubclass(kind, enum.Enum) else None
        if self.enum is not None:
            kind = I64 if issubclass(self.enum, int) else STR
            choices = tuple(choices) or tuple(self.enum)
        self.kind, self.required, self.default, self.choices = kind, required, default, tuple(choices)
        self.name = ""
        self._spec = None

    def __set_name__(self, owner, name):
        self.name = name

    def spec(self) -> AttrSpec:
        if self._spec is None:
            # choices and default as their IR values (plain str / int), as the IR and the IRDL file spell them
            plain = (lambda v: v.value) if self.enum is not None else (lambda v: v)
            self._spec = AttrSpec(self.name, self.kind, self.required,
                                  None if self.default is None else plain(self.default),
                                  tuple(plain(c) for c in self.choices), self.enum)
        return self._spec

    def __get__(self, op, owner=None):
        if op is None:
            return self
        return read_attr_in(op.operation.attributes, self.spec())


class RegionAttrs:
    """The static region of each named operand: `<side>_offsets` and `<side>_sizes` (array<i64>), absent:
    the whole buffer (ir_utils.region_of reads them; the builders take `<side>_region=[(begin, end), ...]`)."""

    def __init__(self, *sides: str):
        self.sides = sides

    def __set_name__(self, owner, name):
        pass

    def attrs(self) -> list[Attr]:
        out = []
        for side in self.sides:
            for what in ("offsets", "sizes"):
                a = Attr(I64_ARRAY)
                a.name = f"{side}_{what}"
                out.append(a)
        return out


@register_dialect
class TileDialect(ir.Dialect):
    DIALECT_NAMESPACE = "tile"


class TileOp(ir.OpView):
    """The base of tile op classes; `class XOp(TileOp, name="x.y")` defines and registers tile.x.y."""

    SPEC: OpSpec
    TRAITS: tuple = ()
    REGIONS = 0

    def __init_subclass__(cls, name: str | None, **kw):
        super().__init_subclass__(**kw)
        fields: dict = {}  # name -> field, in definition order (bases first; a redefinition keeps its place)
        for base in reversed(cls.__mro__):
            for k, v in list(vars(base).items()):
                if isinstance(v, (Operand, Attr)):
                    fields[k] = v
                elif isinstance(v, RegionAttrs):
                    fields.update((a.name, a) for a in v.attrs())
        for k, v in fields.items():
            if isinstance(v, Attr) and k not in vars(cls):
                setattr(cls, k, v)  # (the region attributes' accessors)
        if name is None:  # shared fields of several ops, not an op
            return
        operands = [f for f in fields.values() if isinstance(f, Operand) and not isinstance(f, Result)]
        results = [f for f in fields.values() if isinstance(f, Result)]
        attrs = [f for f in fields.values() if isinstance(f, Attr)]
        for group in (operands, results):
            for i, f in enumerate(group):
                f.index = i
        for i, o in enumerate(operands):
            if (o.variadic or o.optional) and i != len(operands) - 1:
                raise TypeError(f"tile.{name}: an optional or variadic operand must come last ({o.name})")
        flags = frozenset(t for t in cls.TRAITS if isinstance(t, Trait))
        dispatched = next((t for t in cls.TRAITS if isinstance(t, Dispatched)), None)
        own_verify = cls.verify is not TileOp.verify
        cls.OPERATION_NAME = "tile." + name
        cls._ODS_REGIONS = (cls.REGIONS, True)
        cls.SPEC = OpSpec(
            name, " ".join((cls.__doc__ or "").split()), tuple(o.spec() for o in operands),
            tuple(r.spec() for r in results), tuple(a.spec() for a in attrs), cls.REGIONS,
            Trait.TERMINATOR in flags, (lambda op, kernel: cls(op).verify(kernel)) if own_verify else None, flags,
            tuple(t.operand for t in cls.TRAITS if isinstance(t, Writes)), dispatched,
            tuple(t for t in cls.TRAITS if isinstance(t, Emits)), cls)
        register_operation(TileDialect)(cls)

    def verify(self, kernel) -> None:  # noqa: D401  (shadows OpView.verify: the op's own verifier)
        """The op's own invariants beyond its fields' (none by default)."""


# -- attribute values --------------------------------------------------------------------------------
def read_attr(op, a: AttrSpec):
    """The Python value of attribute `a` on op (its default when absent); Decline when the attribute is not
    of a's kind."""
    return read_attr_in(op.attributes, a)


def read_attr_in(attrs, a: AttrSpec):
    """read_attr on an op's attribute map (`op.attributes`), for callers that already hold it. An enum
    attribute's value is its member, or the raw value when it is none (the verifier reports that)."""
    if a.name not in attrs:  # (a KeyError from the bindings costs ~15x a membership test)
        return a.default if a.enum is None or a.default is None else a.enum(a.default)
    try:
        raw = attrs[a.name]
    except TypeError:  # an attribute the bindings cannot downcast, e.g. array<si32: ...>
        raw = None
    if a.kind == I64 and isinstance(raw, ir.IntegerAttr) and not _KIND_OK[I64](raw):
        fail("attributes", f"attribute '{a.name}' must be an integer of 64 bits (`N` or `N : i64`), got one of "
             f"type {raw.type} (which MLIR holds as {raw}, whatever was written)")
    if raw is None or not _KIND_OK[a.kind](raw):
        fail("attributes", f"attribute '{a.name}' must be {KIND_NAMES[a.kind]}"
             + (f", got {raw}" if raw is not None else ""))
    value = _READERS[a.kind](raw)
    return value if a.enum is None else a.enum._value2member_map_.get(value, value)


# Attributes come back already downcast to their concrete class (StringAttr, IntegerAttr, ...).
_KIND_OK = {
    STR: lambda x: isinstance(x, ir.StringAttr),
    # 64 bits only: `255 : i8` is the attribute `-1 : i8` to MLIR, so a narrower type cannot say its value
    I64: lambda x: isinstance(x, ir.IntegerAttr) and isinstance(x.type, ir.IntegerType) and x.type.width == 64,
    I64_ARRAY: lambda x: isinstance(x, ir.DenseI64ArrayAttr),
    I32_ARRAY3: lambda x: isinstance(x, ir.DenseI32ArrayAttr) and len(x) == 3,
    STR_ARRAY: lambda x: isinstance(x, ir.ArrayAttr) and all(isinstance(e, ir.StringAttr) for e in x),
}
KIND_NAMES = {STR: "a string", I64: "an integer", I64_ARRAY: "array<i64: ...>", I32_ARRAY3: "array<i32: x, y, z>",
              STR_ARRAY: "an array of strings"}


def _text(v) -> str:
    return v.value_bytes.decode("utf-8", "replace")  # (.value raises on bytes not UTF-8)


_READERS = {STR: _text, I64: lambda v: v.value, I64_ARRAY: tuple, I32_ARRAY3: tuple,
            STR_ARRAY: lambda v: tuple(_text(e) for e in v)}


def make_attr(a: AttrSpec, value):
    """The MLIR attribute of Python value `value` (an enum member or its value) for attribute `a`."""
    if a.kind == STR:
        return ir.StringAttr.get(str(value))
    if a.kind == I64:
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
    if a.kind == I64_ARRAY:
        return ir.DenseI64ArrayAttr.get([int(x) for x in value])
    if a.kind == I32_ARRAY3:
        return ir.DenseI32ArrayAttr.get([int(x) for x in value])
    if a.kind == STR_ARRAY:
        return ir.ArrayAttr.get([ir.StringAttr.get(str(x)) for x in value])
    raise AssertionError(a.kind)
