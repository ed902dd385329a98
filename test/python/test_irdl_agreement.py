"""lib/TileOps.irdl agrees with OP_SPECS (python/tile_mlir/dialect/ops.py) and with dialect/types.py.

The bindings cannot load IRDL, so the file is read by a small parser for the subset it uses:
`irdl.dialect`, `irdl.type` + `irdl.parameters`, `irdl.operation` holding `%v = irdl.<constraint> ...`,
`irdl.operands(name: [single|optional|variadic] %v, ...)`, `irdl.results(...)`,
`irdl.attributes {"name" = %v, ...}`, `irdl.regions(name: %r)`, and the
`// optional-attribute "name" = %v` comments that stand in for IRDL's missing optional attributes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tile_mlir.dialect.ops import OP_SPECS
from tile_mlir.dialect.types import PACKINGS, SCOPES, _ELEMENTS

IRDL_FILE = Path(__file__).resolve().parents[2] / "lib" / "TileOps.irdl"


class IRDLParseError(ValueError):
    pass


@dataclass
class IRDLOp:
    name: str
    line: int
    constraints: dict[str, tuple[str, str]] = field(default_factory=dict)  # %v -> (kind, rest)
    operands: list[tuple[str, str, str]] = field(default_factory=list)  # (name, variadicity, %v)
    results: list[tuple[str, str, str]] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)  # required: name -> %v
    optional_attributes: dict[str, str] = field(default_factory=dict)
    regions: list[tuple[str, str]] = field(default_factory=list)
    seen: set = field(default_factory=set)  # which of operands/results/attributes/regions appeared


@dataclass
class IRDLDialect:
    name: str
    types: dict[str, list[tuple[str, str]]]  # type -> [(param name, %v)]
    type_constraints: dict[str, dict[str, tuple[str, str]]]
    ops: dict[str, IRDLOp]


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_VALUE = r"%[A-Za-z0-9_$.-]+"
_DEF = re.compile(rf"^({_VALUE})\s*=\s*irdl\.(\w+)\b\s*(.*)$")
_OPTIONAL_ATTR = re.compile(rf'^//\s*optional-attribute\s+"([^"]+)"\s*=\s*({_VALUE})')
_CONSTRAINTS = {"is", "base", "any", "any_of", "all_of", "parametric", "c_pred"}


def _strip_comment(line: str) -> str:
    """The line without its `//` comment (ignoring `//` inside string literals)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", i):
            return line[:i]
    return line


def _split_args(text: str) -> list[str]:
    out, depth, cur, quoted = [], 0, [], False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "(<[{":
            depth += 1
        elif not quoted and ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _uses(text: str) -> list[str]:
    return re.findall(_VALUE, re.sub(r'"[^"]*"', "", text))


def _named_list(op: IRDLOp, kind: str, body: str, lineno: int) -> list[tuple[str, str, str]]:
    items = []
    for arg in _split_args(body):
        m = re.fullmatch(rf"(\w+)\s*:\s*(?:(single|optional|variadic)\s+)?({_VALUE})", arg)
        if not m:
            raise IRDLParseError(f"line {lineno}: expected 'name: [variadicity] %value' in irdl.{kind}, got '{arg}'")
        items.append((m.group(1), m.group(2) or "single", m.group(3)))
    return items


def parse_irdl(text: str) -> IRDLDialect:
    """Parse the IRDL subset of lib/TileOps.irdl; raise IRDLParseError on anything else."""
    lines = text.split("\n")
    dialect, types, type_constraints, ops = None, {}, {}, {}
    current: IRDLOp | None = None
    current_type: str | None = None
    pending_attrs: list[str] | None = None  # an irdl.attributes dict spread over several lines
    depth = 0
    for lineno, raw in enumerate(lines, 1):
        stripped = raw.strip()
        m = _OPTIONAL_ATTR.match(stripped)
        if m:
            if current is None:
                raise IRDLParseError(f"line {lineno}: optional-attribute outside an irdl.operation")
            current.optional_attributes[m.group(1)] = m.group(2)
            continue
        line = _strip_comment(raw).strip()
        if not line:
            continue
        if pending_attrs is not None:
            pending_attrs.append(line)
            if "}" in line:
                _attributes(current, " ".join(pending_attrs), lineno)
                pending_attrs = None
            continue
        if m := re.fullmatch(r"irdl\.dialect\s+@(\w+)\s*\{", line):
            if depth != 0:
                raise IRDLParseError(f"line {lineno}: nested irdl.dialect")
            dialect, depth = m.group(1), 1
        elif m := re.fullmatch(r"irdl\.type\s+@(\w+)\s*\{", line):
            if depth != 1:
                raise IRDLParseError(f"line {lineno}: irdl.type outside irdl.dialect")
            current_type, depth = m.group(1), 2
            types[current_type], type_constraints[current_type] = [], {}
        elif m := re.fullmatch(r"irdl\.operation\s+@([\w.]+)\s*\{", line):
            if depth != 1:
                raise IRDLParseError(f"line {lineno}: irdl.operation outside irdl.dialect")
            if m.group(1) in ops:
                raise IRDLParseError(f"line {lineno}: irdl.operation @{m.group(1)} defined twice")
            current, depth = IRDLOp(m.group(1), lineno), 2
            ops[current.name] = current
        elif line == "}":
            depth -= 1
            if depth < 0:
                raise IRDLParseError(f"line {lineno}: unbalanced '}}'")
            if depth == 1:
                current, current_type = None, None
        elif depth != 2:
            raise IRDLParseError(f"line {lineno}: unexpected '{line}'")
        elif m := _DEF.match(line):
            value, kind, rest = m.groups()
            if kind not in _CONSTRAINTS and kind != "region":
                raise IRDLParseError(f"line {lineno}: unknown IRDL op irdl.{kind}")
            scope = current.constraints if current else type_constraints[current_type]
            if value in scope:
                raise IRDLParseError(f"line {lineno}: {value} defined twice")
            for u in _uses(rest):
                if u not in scope:
                    raise IRDLParseError(f"line {lineno}: {u} used before it is defined")
            scope[value] = (kind, rest.strip())
        elif m := re.fullmatch(r"irdl\.parameters\((.*)\)", line):
            if current_type is None:
                raise IRDLParseError(f"line {lineno}: irdl.parameters outside irdl.type")
            types[current_type] = [(n, v) for n, _, v in _named_list(None, "parameters", m.group(1), lineno)]
        elif m := re.fullmatch(r"irdl\.(operands|results|regions)\((.*)\)", line):
            kind = m.group(1)
            if current is None:
                raise IRDLParseError(f"line {lineno}: irdl.{kind} outside irdl.operation")
            if kind in current.seen:
                raise IRDLParseError(f"line {lineno}: second irdl.{kind} in @{current.name}")
            current.seen.add(kind)
            items = _named_list(current, kind, m.group(2), lineno)
            if kind == "regions":
                current.regions = [(n, v) for n, _, v in items]
            else:
                setattr(current, kind, items)
        elif line.startswith("irdl.attributes"):
            if current is None:
                raise IRDLParseError(f"line {lineno}: irdl.attributes outside irdl.operation")
            if "{" in line and "}" not in line:
                pending_attrs = [line]
            else:
                _attributes(current, line, lineno)
        else:
            raise IRDLParseError(f"line {lineno}: unexpected '{line}'")
    if depth != 0 or pending_attrs is not None:
        raise IRDLParseError("unexpected end of file (unbalanced braces)")
    if dialect is None:
        raise IRDLParseError("no irdl.dialect")
    for op in ops.values():
        _check_values(op)
    return IRDLDialect(dialect, types, type_constraints, ops)


def _attributes(op: IRDLOp, text: str, lineno: int) -> None:
    if "attributes" in op.seen:
        raise IRDLParseError(f"line {lineno}: second irdl.attributes in @{op.name}")
    op.seen.add("attributes")
    m = re.fullmatch(r"irdl\.attributes\s*(?:\{(.*)\})?", text.strip())
    if not m:
        raise IRDLParseError(f"line {lineno}: malformed irdl.attributes")
    for item in _split_args(m.group(1) or ""):
        im = re.fullmatch(rf'"([^"]+)"\s*=\s*({_VALUE})', item)
        if not im:
            raise IRDLParseError(f"line {lineno}: expected '\"name\" = %value', got '{item}'")
        op.attributes[im.group(1)] = im.group(2)


def _check_values(op: IRDLOp) -> None:
    """Every use is defined with the right kind, names are IRDL identifiers, no constraint is shared."""
    sites = [(f"operand '{n}'", v) for n, _, v in op.operands] + [(f"result '{n}'", v) for n, _, v in op.results]
    sites += [(f"attribute '{n}'", v) for n, v in {**op.attributes, **op.optional_attributes}.items()]
    for what, v in sites:
        if v not in op.constraints or op.constraints[v][0] == "region":
            raise IRDLParseError(f"@{op.name}: {what} uses {v}, which is not a constraint of this op")
    for n, v in op.regions:
        if op.constraints.get(v, ("",))[0] != "region":
            raise IRDLParseError(f"@{op.name}: region '{n}' uses {v}, which is not an irdl.region")
    for n in [n for n, _, _ in op.operands + op.results] + [n for n, _ in op.regions]:
        if not _NAME.match(n):
            raise IRDLParseError(f"@{op.name}: '{n}' is not a valid IRDL name")
    # a constraint variable binds to the first value it matches: sharing one (except irdl.is, whose
    # value is fixed anyway) would force two operands or attributes to be equal
    uses: dict[str, int] = {}
    for _, v in sites:
        uses[v] = uses.get(v, 0) + 1
    for kind, rest in op.constraints.values():
        for u in _uses(rest):
            uses[u] = uses.get(u, 0) + 1
    for v, n in uses.items():
        if n > 1 and op.constraints[v][0] != "is":
            raise IRDLParseError(f"@{op.name}: constraint {v} is used {n} times; IRDL would unify its uses")


# -- comparison with OP_SPECS ----------------------------------------------------------------------
def _literal(kind: str, rest: str):
    """The Python value an `irdl.is` constraint names (strings and i64 integers)."""
    if m := re.fullmatch(r'"([^"]*)"', rest):
        return m.group(1)
    if m := re.fullmatch(r"(-?\d+)\s*:\s*i64", rest):
        return int(m.group(1))
    return rest


def _choices(op: IRDLOp, v: str) -> tuple:
    kind, rest = op.constraints[v]
    if kind == "is":
        return (_literal(kind, rest),)
    if kind == "any_of":
        return tuple(c for u in _uses(rest) for c in _choices(op, u))
    return ()


def _scopes(op: IRDLOp, v: str) -> tuple | None:
    kind, rest = op.constraints[v]
    if kind != "parametric":
        return None
    m = re.fullmatch(r"@tile::@buffer<(.*)>", rest)
    if not m:
        raise IRDLParseError(f"@{op.name}: {v} is parametric over something other than @tile::@buffer")
    return _choices(op, _uses(m.group(1))[0])


_ATTR_BASES = {"str": "#builtin.string", "i64": "#builtin.integer", "i64_array": "#builtin.dense_array",
               "i32_array3": "#builtin.dense_array"}


def differences(d: IRDLDialect) -> list[str]:
    """Every way the parsed IRDL dialect differs from OP_SPECS and the buffer type; empty if none."""
    out = []
    if d.name != "tile":
        out.append(f"dialect is @{d.name}, not @tile")
    specs = {s.name: s for s in OP_SPECS}
    for name in sorted(set(specs) - set(d.ops)):
        out.append(f"op {name}: in OP_SPECS but not in the IRDL file")
    for name in sorted(set(d.ops) - set(specs)):
        out.append(f"op {name}: in the IRDL file but not in OP_SPECS")
    for name in sorted(set(specs) & set(d.ops)):
        s, op = specs[name], d.ops[name]
        for kind, want in (("operands", s.operands), ("results", s.results)):
            got = getattr(op, kind)
            if [o.name for o in want] != [n for n, _, _ in got]:
                out.append(f"op {name}: {kind} {[n for n, _, _ in got]} != OP_SPECS {[o.name for o in want]}")
                continue
            for o, (n, var, v) in zip(want, got):
                if var != ("optional" if o.optional else "single"):
                    out.append(f"op {name}: {kind[:-1]} {n} is {var}")
                if o.constraint.startswith("buffer:"):
                    scopes = _scopes(op, v)
                    if scopes is None or set(scopes) != set(o.constraint.split(":", 1)[1].split("|")):
                        out.append(f"op {name}: {kind[:-1]} {n} allows scopes {scopes}, OP_SPECS says {o.constraint}")
                elif op.constraints[v] != ("is", o.constraint):
                    out.append(f"op {name}: {kind[:-1]} {n} is {op.constraints[v]}, OP_SPECS says {o.constraint}")
        want_req = {a.name for a in s.attrs if a.required}
        want_opt = {a.name for a in s.attrs if not a.required}
        if set(op.attributes) != want_req:
            out.append(f"op {name}: required attributes {sorted(op.attributes)} != OP_SPECS {sorted(want_req)}")
        if set(op.optional_attributes) != want_opt:
            out.append(f"op {name}: optional attributes {sorted(op.optional_attributes)} != OP_SPECS {sorted(want_opt)}")
        for a in s.attrs:
            v = op.attributes.get(a.name) or op.optional_attributes.get(a.name)
            if v is None:
                continue
            if a.choices:
                if set(_choices(op, v)) != set(a.choices):
                    out.append(f"op {name}: attribute {a.name} allows {_choices(op, v)}, OP_SPECS {a.choices}")
            elif op.constraints[v] != ("base", f'"{_ATTR_BASES[a.kind]}"'):
                out.append(f"op {name}: attribute {a.name} is {op.constraints[v]}, expected irdl.base "
                           f"\"{_ATTR_BASES[a.kind]}\" for kind {a.kind}")
        if len(op.regions) != s.regions:
            out.append(f"op {name}: {len(op.regions)} region(s), OP_SPECS says {s.regions}")
    buf = d.types.get("buffer")
    if buf is None:
        out.append("no irdl.type @buffer")
    else:
        names = [n for n, _ in buf]
        if names != ["scope", "shape", "elem", "layout", "align", "packing"]:
            out.append(f"buffer parameters {names}")
        else:
            tc = d.type_constraints["buffer"]
            fake = IRDLOp("buffer", 0, constraints=tc)
            if set(_choices(fake, buf[0][1])) != set(SCOPES):
                out.append(f"buffer scopes {_choices(fake, buf[0][1])} != {SCOPES}")
            if set(_choices(fake, buf[2][1])) != set(_ELEMENTS):
                out.append(f"buffer element types differ from dialect/types.py: "
                           f"{sorted(set(_choices(fake, buf[2][1])) ^ set(_ELEMENTS))}")
            if set(_choices(fake, buf[5][1])) != {"", *PACKINGS}:
                out.append(f"buffer packings {_choices(fake, buf[5][1])} != '' + {sorted(PACKINGS)}")
    return out


# -- tests ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def irdl_text() -> str:
    return IRDL_FILE.read_text(encoding="utf-8")


def test_irdl_file_parses(irdl_text):
    d = parse_irdl(irdl_text)
    assert d.name == "tile"
    assert len(d.ops) == len(OP_SPECS)


def test_irdl_agrees_with_op_specs(irdl_text):
    assert differences(parse_irdl(irdl_text)) == []


def _mutate(text: str, old: str, new: str, count: int = 1) -> str:
    assert old in text, f"mutation anchor {old!r} not in the IRDL file"
    return text.replace(old, new, count)


@pytest.mark.parametrize("old,new,expect", [
    pytest.param("irdl.operands(dst: %dst, src: %src)\n    %col_offset", "irdl.operands(dst: %dst)\n    %col_offset",
                 "op tmem.load: operands", id="dropped-operand"),
    pytest.param('irdl.attributes {"count" = %count}', 'irdl.attributes {"counter" = %count}',
                 "op mbarrier.init: required attributes", id="renamed-attribute"),
    pytest.param('// optional-attribute "grid" = %grid', 'irdl.attributes {"sym_name" = %sym_name}',
                 "", id="second-attributes-op"),
    pytest.param('    // optional-attribute "multicast_mask" = %multicast_mask\n', "",
                 "op commit: optional attributes", id="missing-optional-attribute"),
    pytest.param("irdl.regions(body: %body)", "", "op kernel: 0 region(s)", id="dropped-region"),
    pytest.param('%cta_group_2 = irdl.is 2 : i64', '%cta_group_2 = irdl.is 4 : i64',
                 "attribute cta_group allows", id="wrong-choice"),
    pytest.param('%res_shared = irdl.is "shared"', '%res_shared = irdl.is "global"',
                 "op alloc_shared: result result allows scopes", id="wrong-scope"),
    pytest.param("%res = irdl.is i1", "%res = irdl.is i32", "op elect_one: result result", id="wrong-result-type"),
    pytest.param("irdl.operation @async_wait {\n  }\n", "", "op async_wait: in OP_SPECS but not", id="dropped-op"),
    pytest.param("irdl.operation @barrier {", "irdl.operation @barrier2 {", "op barrier2: in the IRDL file",
                 id="renamed-op"),
    pytest.param("%elem_bf16 = irdl.is bf16", "%elem_bf16 = irdl.is f80", "buffer element types", id="element-type"),
    pytest.param("@tile::@buffer<%src_scope, %src_shape,", "@tile::@buffer<%src_scope, %dst_shape,",
                 "parse error: @copy: constraint %dst_shape is used 2 times", id="shared-constraint"),
])
def test_broken_copy_is_detected(irdl_text, old, new, expect):
    broken = _mutate(irdl_text, old, new)
    try:
        diffs = differences(parse_irdl(broken))
    except IRDLParseError as e:
        diffs = [f"parse error: {e}"]
    assert diffs, "the broken copy was not detected"
    if expect:
        assert any(expect in d for d in diffs), diffs


def test_parse_errors_are_located():
    with pytest.raises(IRDLParseError, match=r"line 3: %x used before it is defined"):
        parse_irdl("irdl.dialect @tile {\n  irdl.operation @a {\n    %y = irdl.any_of(%x)\n  }\n}\n")
    with pytest.raises(IRDLParseError, match="unbalanced"):
        parse_irdl("irdl.dialect @tile {\n  irdl.operation @a {\n  }\n")
