"""lib/TileOps.irdl: the tile dialect in MLIR's IR Definition Language, generated from the op classes'
specs (OP_SPECS).

`tile-opt --emit-irdl -o lib/TileOps.irdl` (`make irdl`) writes it and test/python/dialect/test_irdl_agreement.py
checks that the committed file is current. Upstream MLIR loads it as a dynamic dialect
(`mlir-opt-22 --irdl-file=lib/TileOps.irdl`, Debian's mlir-22-tools); our tools do not read it.

Two spellings differ under --irdl-file, because IRDL has rules that ODS and our bindings do not:

* Op names. IRDL allows only lowercase letters, digits and single underscores in an operation name,
  and our ops keep dotted names as NVVM does (tile.tmem.alloc), on which the lowering, FileCheck tests
  and users rely. So each op is declared under irdl_name(): "." becomes "_", and tile.tmem.alloc is written
  "tile.tmem_alloc" for upstream. irdl_names() refuses a table where two ops would meet one IRDL name,
  so the mapping is one-to-one and is reversed by looking the name up.
* Buffer types. An IRDL type has no custom syntax, only its parameter list (irdl_type()).

Everything OP_SPECS and dialect/types.py say that IRDL can express is emitted; what IRDL cannot check
(optional attributes, traits, layouts, ...) is listed in lib/README.md.
"""
from __future__ import annotations

import re
import textwrap

from ..errors import TileMLIRError
from .op_def import AttrSpec, BufferOf, OperandSpec, OpSpec
from .ops import OP_SPECS
from .types import _ELEMENTS, PACKINGS, SCOPES, BufferType

__all__ = ["IRDLError", "irdl_name", "irdl_names", "irdl_type", "emit_irdl"]

DIALECT = "tile"
# !tile.buffer's parameters in order, as irdl_type() spells a BufferType's fields
BUFFER_PARAMS = ("scope", "shape", "elem", "layout", "align", "packing")

# attribute kind -> (the IRDL base that checks it, its spelling for a comment)
_ATTR_KINDS = {
    "str": ("#builtin.string", "string"),
    "i64": ("#builtin.integer", "i64"),
    "i64_array": ("#builtin.dense_array", "array<i64: ...>"),
    "i32_array3": ("#builtin.dense_array", "array<i32: x, y, z>"),
    "str_array": ("#builtin.array", "[\"name\", ...]"),
}
_LITERAL = {"str": lambda v: f'"{v}"', "i64": lambda v: f"{v} : i64"}  # a choice as an IRDL attribute

# IRDL's rule for the names of dialects, ops, operands, results, regions and parameters
_IRDL_NAME = re.compile(r"[a-z0-9](?:_?[a-z0-9])*_?")


class IRDLError(TileMLIRError, ValueError):
    """An op table IRDL cannot state: a name IRDL rejects, two ops meeting one IRDL name, ..."""


def irdl_name(op_name: str) -> str:
    """The IRDL name of tile op `op_name` (without the "tile." prefix): "tmem.alloc" -> "tmem_alloc"."""
    return op_name.replace(".", "_")


def _check_name(name: str, what: str) -> str:
    if not _IRDL_NAME.fullmatch(name):
        raise IRDLError(f"{what} '{name}' is not an IRDL name (lowercase letters, digits and single "
                        "underscores, not leading)")
    return name


def irdl_names(specs: tuple[OpSpec, ...] = OP_SPECS) -> dict[str, OpSpec]:
    """IRDL name -> spec for every op; raises IRDLError on an invalid or shared IRDL name."""
    out: dict[str, OpSpec] = {}
    for s in specs:
        name = _check_name(irdl_name(s.name), f"IRDL name of tile.{s.name}")
        if name in out:
            raise IRDLError(f"tile.{out[name].name} and tile.{s.name} would both be '{name}' in IRDL")
        out[name] = s
    return out


def irdl_type(bt: BufferType) -> str:
    """`bt` as written under --irdl-file: an absent layout is "", an absent align 0, an absent packing ""
    (none of which the tile syntax accepts, so the mapping is one-to-one)."""
    return (f'!{DIALECT}.buffer<"{bt.scope}", array<i64: {", ".join(map(str, bt.shape))}>, {bt.elem}, '
            f'"{bt.layout_text or ""}", {bt.align or 0}, "{bt.packing or ""}">')


class _Body:
    """The constraint ops of one irdl.type or irdl.operation. IRDL binds a constraint variable to the
    first attribute it matches, so one used by two operands would force them to be equal: every value
    defined here is used once."""

    def __init__(self):
        self.lines: list[str] = []
        self._defined: set[str] = set()

    def define(self, name: str, constraint: str, comment: str = "") -> str:
        value = f"%{name}"
        if value in self._defined:
            raise IRDLError(f"constraint {value} defined twice: two operands, results or attributes meet "
                            "one constraint name")
        self._defined.add(value)
        self.lines.append(f"{value} = {constraint}" + (f"  // {comment}" if comment else ""))
        return value

    def one_of(self, name: str, literals: dict[str, str]) -> str:
        """A constraint accepting exactly `literals` ({suffix: literal})."""
        if len(literals) == 1:
            return self.define(name, f"irdl.is {next(iter(literals.values()))}")
        values = [self.define(f"{name}_{suffix}", f"irdl.is {lit}") for suffix, lit in literals.items()]
        return self.define(name, f"irdl.any_of({', '.join(values)})")


def _suffix(text: str) -> str:
    return re.sub(r"\W", "_", text) or "none"


def _buffer_type() -> list[str]:
    b = _Body()
    params = {
        "scope": b.one_of("scope", {s: f'"{s}"' for s in SCOPES}),
        "shape": b.define("shape", 'irdl.base "#builtin.dense_array"', "array<i64: d0, d1, ...>"),
        "elem": b.one_of("elem", {e: e for e in _ELEMENTS}),
        "layout": b.define("layout", 'irdl.base "#builtin.string"', 'the layout text; "" for none'),
        "align": b.define("align", 'irdl.base "#builtin.integer"', "bytes; 0 for none"),
        "packing": b.one_of("packing", {_suffix(p): f'"{p}"' for p in ("", *PACKINGS)}),
    }
    assert tuple(params) == BUFFER_PARAMS
    items = ", ".join(f"{_check_name(n, 'parameter')}: {v}" for n, v in params.items())
    b.lines.append(f"irdl.parameters({items})")
    return ["// !tile.buffer<scope, shape, elem, layout, align, packing>", "irdl.type @buffer {",
            *("  " + line for line in b.lines), "}"]


# the tile dialect's parameterless types besides !tile.buffer (constraint spelling -> IRDL type name)
_PLAIN_TYPES = {"!tile.tensormap": "tensormap"}


def _plain_types() -> list[str]:
    return [line for name in _PLAIN_TYPES.values()
            for line in (f"// !{DIALECT}.{name}", f"irdl.type @{name} {{", "  irdl.parameters()", "}")]


def _value(b: _Body, o: OperandSpec) -> str:
    """The constraint of one operand or result."""
    c = o.constraint
    if not isinstance(c, BufferOf):
        if c.spelling in _PLAIN_TYPES:
            return b.define(o.name, f"irdl.base @{DIALECT}::@{_PLAIN_TYPES[c.spelling]}")
        return b.define(o.name, f"irdl.is {c.spelling}")
    scopes = c.scopes
    params = [b.one_of(f"{o.name}_scope", {s: f'"{s}"' for s in scopes})]
    params += [b.define(f"{o.name}_{p}", "irdl.any") for p in BUFFER_PARAMS[1:]]
    return b.define(o.name, f"irdl.parametric @{DIALECT}::@buffer<{', '.join(params)}>")


def _values(b: _Body, kind: str, values: tuple[OperandSpec, ...], op: str) -> None:
    # IRDL would then demand a segment-sizes attribute (a variadic value counts as an optional one)
    if sum(o.optional or o.variadic for o in values) > 1:
        raise IRDLError(f"tile.{op}: more than one optional {kind[:-1]}")
    items = [f"{_check_name(o.name, kind[:-1])}: "
             f"{'variadic ' if o.variadic else 'optional ' if o.optional else ''}{_value(b, o)}" for o in values]
    if items:
        b.lines.append(f"irdl.{kind}({', '.join(items)})")


def _attr_comment(a: AttrSpec) -> str:
    def show(v):
        return f'"{v}"' if isinstance(v, str) else str(v)

    what = " | ".join(map(show, a.choices)) if a.choices else _ATTR_KINDS[a.kind][1]
    return what + (f", default {show(a.default)}" if a.default is not None else "")


def _attributes(b: _Body, attrs: tuple[AttrSpec, ...]) -> None:
    required = {}
    for a in attrs:
        base, spelling = _ATTR_KINDS[a.kind]
        if not a.required:
            b.lines.append(f'// optional "{a.name}": {_attr_comment(a)}')
        elif a.choices:
            required[a.name] = b.one_of(a.name, {_suffix(str(c)): _LITERAL[a.kind](c) for c in a.choices})
        else:  # the base checks a "str" fully, the other kinds only in part
            required[a.name] = b.define(a.name, f'irdl.base "{base}"', "" if a.kind == "str" else spelling)
    if required:
        items = ", ".join(f'"{n}" = {v}' for n, v in required.items())
        b.lines.append(f"irdl.attributes {{{items}}}")


def _operation(name: str, s: OpSpec) -> list[str]:
    b = _Body()
    _values(b, "operands", s.operands, s.name)
    _values(b, "results", s.results, s.name)
    _attributes(b, s.attrs)
    if s.regions:
        names = ["body"] if s.regions == 1 else [f"body{i}" for i in range(s.regions)]
        values = [b.define(n, "irdl.region") for n in names]
        b.lines.append(f"irdl.regions({', '.join(f'{n}: {v}' for n, v in zip(names, values))})")
    if s.terminator:
        b.lines.append("// a terminator: IRDL cannot say so (see lib/README.md)")
    head = textwrap.wrap(f"tile.{s.name}: {s.summary}", 108, initial_indent="// ", subsequent_indent="// ")
    return [*head, f"irdl.operation @{name} {{", *("  " + line for line in b.lines), "}"]


_HEADER = """\
// The tile dialect in IRDL, for upstream MLIR: mlir-opt-22 --irdl-file=lib/TileOps.irdl
//
// GENERATED from the op classes (python/tile_mlir/dialect/ops/) and dialect/types.py by
// python/tile_mlir/dialect/irdl.py: do not edit; run `make irdl` (tile-opt --emit-irdl -o lib/TileOps.irdl).
//
// Under --irdl-file an op's name has "_" for each "." (tile.tmem.alloc is "tile.tmem_alloc") and a buffer
// type is written with its six parameters: !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
// is !tile.buffer<"shared", array<i64: 32, 16>, ui8, "S[(32, 16) : (16, 1)]", 1024, "">. IRDL has no
// optional attributes, so only required ones are checked; the others are listed in comments.
// lib/README.md says what else IRDL cannot check.
"""


def emit_irdl(specs: tuple[OpSpec, ...] = OP_SPECS) -> str:
    """The text of lib/TileOps.irdl for `specs` (deterministic: the order of OP_SPECS and types.py)."""
    blocks = [_buffer_type(), _plain_types()] + [_operation(name, s) for name, s in irdl_names(specs).items()]
    body = "\n\n".join("\n".join("  " + line for line in block) for block in blocks)
    return f"{_HEADER}irdl.dialect @{_check_name(DIALECT, 'dialect')} {{\n{body}\n}}\n"
