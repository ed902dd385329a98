"""A parser for the PTX subset emitted by libNVVM (and hand-written test kernels).

It produces a :class:`Module` of :class:`Function` objects holding declarations and a flat list of
:class:`Instruction` objects whose operands are small tuples:

    ('reg', Register)        %r1, P1, %tid.x (special registers are registers too; names.Register)
    ('not', ('reg', r))      !%p1 (predicate operand negation)
    ('imm', int)             42, -1, 0x10, 0x10U
    ('fimm', bits, width)    0f3F800000 (32), 0d3FF0000000000000 (64), 1.5 (64 unless used as f32)
    ('sym', decl, offset)    smem, smem+8, kern_param_0, $L__BB0_1: a VarDecl, Param or names.Label
    ('vec', [operands])      {%r1, %r2}
    ('addr', base, offset)   [%rd1], [%rd1+16], [smem+8], [0x100]; base is a reg, sym or imm tuple
    ('tensor', base, offset, ('vec', [..]))   [tmap, {%r1, %r2}]: a tensor map and coordinates
    ('pair', a, b)           %r1|%p1 (elect.sync / shfl.sync destinations)
    ('sink',)                _

Identifiers are parsed as ``('id', name, offset)`` and resolved, in the scope of their instruction,
once the function's body is parsed (names.py: ``{ }`` blocks, shadowing, ``%r<N>`` ranges). Line numbers
are 1-based in the original text.  Syntax errors raise EmulationError naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import EmulationError
from .locations import parse_file, parse_loc
from .names import (IDENT, IDENT_RE, MAX_BLOCK_DEPTH, MAX_REGISTERS, Label, RegDecl, Scope,
                    predefined_scope, resolve_function)
from .ptx_operands import _INT_RE, _split_top, parse_int, parse_operand, show_operand  # noqa: F401

# declaration types -> bit width
TYPE_BITS = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
             "f16x2": 32, "bf16x2": 32, "b32": 32, "u32": 32, "s32": 32, "f32": 32, "b64": 64, "u64": 64,
             "s64": 64, "f64": 64, "b128": 128}

#: directives that end at the end of their line (whole words: `.local` is no `.loc`)
LINE_DIRECTIVES = re.compile(r"\.(version|target|address_size|loc|file|section)\b")
#: directives tile-sim skips: debug information and pragmas
SKIPPED = re.compile(r"\.(loc|file|section|pragma)\b")
FUNC_KEYWORDS = (".entry", ".func")
_FILE_DIRECTIVE = re.compile(r"\.file\b")
_LOC_DIRECTIVE = re.compile(r"\.loc\b")


@dataclass
class Instruction:
    line: int
    text: str
    opcode: str  # full dotted opcode, e.g. "ld.shared.v2.u32"
    parts: list  # opcode.split('.')
    operands: list
    guard: tuple | None = None  # (register, negated); a name until resolved
    index: int = 0
    scope: Scope | None = None  # where its names are resolved (names.resolve_function)
    loc: tuple | None = None  # (file number, line, column) of the last .loc before it


@dataclass(eq=False)  # a declaration is itself: two of one name differ
class VarDecl:
    space: str  # shared, global, const, local; param: a call's argument in a function body
    name: str
    type: str
    align: int
    size: int  # bytes; 0 for `.extern .shared ... x[]`
    extern: bool
    line: int
    init: list | None = None


@dataclass(eq=False)  # a declaration is itself: two of one name differ
class Param:
    name: str
    type: str
    size: int
    align: int
    line: int


@dataclass(eq=False)  # a function is itself (calls and the call stack name it)
class Function:
    name: str
    is_entry: bool
    line: int
    params: list = field(default_factory=list)
    vars: list = field(default_factory=list)  # of every scope of the body
    instructions: list = field(default_factory=list)
    directives: dict = field(default_factory=dict)  # .reqntid, .maxntid, .reqnctapercluster ...
    rets: list = field(default_factory=list)  # a .func's return parameters (Param)
    has_body: bool = False
    nregs: int = 0  # registers declared (names.MAX_REGISTERS)


@dataclass
class Module:
    version: str | None = None
    target: str | None = None
    address_size: int = 64
    vars: list = field(default_factory=list)
    functions: list = field(default_factory=list)
    scope: Scope = field(default_factory=lambda: Scope(predefined_scope()))
    files: dict = field(default_factory=dict)  # .file number -> path

    def entry(self, name: str | None) -> Function:
        entries = [f for f in self.functions if f.is_entry]
        if name is None:
            if len(entries) != 1:
                raise EmulationError(f"kernel name required: module has entries "
                                     f"{[f.name for f in entries]}")
            return entries[0]
        for f in entries:
            if f.name == name:
                return f
        raise EmulationError(f"no .entry named {name!r}; entries: {[f.name for f in entries]}")


# ---------------------------------------------------------------------------------------------
# statement splitting

_LABEL_RE = re.compile(rf"({IDENT})\s*:(?!:)")


_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)|"[^"\n]*"?', re.S)


def _strip_comments(text: str) -> list[str]:
    """The text's lines without its comments (a block comment keeps its line breaks; string literals, of
    .file and .pragma, are kept whole), in one regex pass."""
    def keep(m):
        t = m.group()
        return t if t[0] == '"' else "\n" * t.count("\n") if t[1] == "*" else ""
    return _COMMENT_OR_STRING.sub(keep, text).split("\n")


def split_statements(text: str) -> list[tuple[int, str]]:
    """Split PTX text into (line, statement) tuples; braces and labels are their own statements.

    Labels are returned as ``'name:'``; block braces as ``'{'`` / ``'}'``.
    """
    lines = _strip_comments(text)
    stmts: list[tuple[int, str]] = []
    buf: list[str] = []
    buf_line = 0
    section = 0  # 1: after a `.section` line, its `{ ... }` body (debug data) is skipped; 2: in it
    for lineno, line in enumerate(lines, 1):
        i = 0
        n = len(line)
        while i < n:
            c = line[i]
            if section:
                if c == "{" and section == 1:
                    section = 2
                elif c == "}" and section == 2:
                    section = 0
                elif section == 1 and c not in " \t\r":
                    section = 0
                    continue
                i += 1
                continue
            if c in " \t\r":
                if buf:
                    buf.append(" ")
                i += 1
                continue
            if not buf:
                rest = line[i:]
                if LINE_DIRECTIVES.match(rest):
                    stmts.append((lineno, rest.strip().rstrip(";").strip()))
                    if rest.startswith(".section") and "{" not in rest:
                        section = 1
                    break
                m = _LABEL_RE.match(line, i)
                if m and not rest.startswith("."):
                    stmts.append((lineno, m.group(1) + ":"))
                    i = m.end()
                    continue
                if c in "{}":
                    stmts.append((lineno, c))
                    i += 1
                    continue
                buf_line = lineno
            if c == "{" and _is_header("".join(buf)):
                stmts.append((buf_line, "".join(buf).strip()))
                buf = []
                stmts.append((lineno, "{"))
                i += 1
                continue
            if c == ";":
                s = "".join(buf).strip()
                if s:
                    stmts.append((buf_line, s))
                buf = []
                i += 1
                continue
            buf.append(c)
            i += 1
        if buf:
            buf.append(" ")
    if "".join(buf).strip():
        raise EmulationError(f"line {buf_line}: unterminated statement `{''.join(buf).strip()}`",
                             line=buf_line)
    return stmts


def _is_header(s: str) -> bool:
    toks = s.split()
    return any(t in FUNC_KEYWORDS for t in toks[:4])


# ---------------------------------------------------------------------------------------------
# declarations

_REG_DECL_RE = re.compile(r"^\.reg\s+((?:\.v\d\s+)?)\.(\w+)\s+(.*)$")
_REG_RANGE_RE = re.compile(rf"^({IDENT})\s*<\s*([0-9]+)\s*>$")
_VAR_RE = re.compile(
    r"^((?:\.(?:extern|visible|weak|global|shared|const|local|param)\s*)+)"  # qualifiers + space
    r"((?:\.(?:align|ptr)\s*\d*\s*)*)"
    rf"\.(\w+)\s+({IDENT})\s*((?:\[\s*\d*\s*\])*)\s*(?:=\s*(.*))?$")
_VAR_STMT_RE = re.compile(r"^(\.(extern|visible|weak)\s+)*\.(shared|global|const|local|param)\b")
#: the directives of an entry's header (PTX ISA "Performance-Tuning Directives" and cluster
#: dimensions) -> how many values each takes
ENTRY_DIRECTIVES = {"reqntid": (1, 3), "maxntid": (1, 3), "minnctapersm": (1, 1),
                    "maxnreg": (1, 1), "reqnctapercluster": (1, 3), "maxclusterrank": (1, 1),
                    "explicitcluster": (0, 0), "blocksareclusters": (0, 0)}


def _align(text: str, line: int) -> int:
    a = parse_int(text, line)
    if a < 1 or a & (a - 1):
        raise EmulationError(f"line {line}: .align {text}: the alignment must be a power of 2",
                             line=line)
    return a


def parse_var(stmt: str, line: int) -> VarDecl:
    s = re.sub(r"\.(shared)::cta", r".\1", stmt)
    s = re.sub(r"\.(align)\s+(\d+)", r".\1 \2", s)
    m = _VAR_RE.match(s)
    if not m:
        raise EmulationError(f"line {line}: cannot parse declaration `{stmt}`", line=line)
    quals, aligns, typ, name, dims, init = m.groups()
    qs = re.findall(r"\.(\w+)", quals)
    space = next(q for q in qs if q in ("global", "shared", "const", "local", "param"))
    am = re.search(r"\.align\s+(\d+)", aligns or "")
    if typ not in TYPE_BITS:
        raise EmulationError(f"line {line}: unsupported variable type .{typ}", line=line)
    esize = max(1, TYPE_BITS[typ] // 8)
    align = _align(am.group(1), line) if am else esize
    dlist = re.findall(r"\[\s*(\d*)\s*\]", dims or "")
    size = esize
    extern = "extern" in qs
    for d in dlist:
        if d == "":
            size = 0
            extern = True
            break
        size *= parse_int(d, line)
    init_vals = None
    if init:
        init_vals = [parse_operand(t, line) for t in _split_top(init.strip().strip("{}"))]
    return VarDecl(space, name, typ, align, size, extern and size == 0, line, init_vals)


def _parse_reg_decl(fn: Function, scope: Scope, stmt: str, line: int):
    m = _REG_DECL_RE.match(stmt)
    if not m:
        raise EmulationError(f"line {line}: cannot parse register declaration `{stmt}`", line=line)
    vec, typ, names = m.groups()
    if vec.strip():
        raise EmulationError(f"line {line}: vector registers are not supported", line=line)
    if typ not in TYPE_BITS:
        raise EmulationError(f"line {line}: unsupported register type .{typ}", line=line)
    bits = TYPE_BITS[typ]
    for item in _split_top(names):
        mm = _REG_RANGE_RE.match(item)
        if mm:
            count = parse_int(mm.group(2), line)
            decl = RegDecl(mm.group(1), typ, bits, count, line)
        elif IDENT_RE.match(item):
            count = 1
            decl = RegDecl(item, typ, bits, None, line)
        else:
            raise EmulationError(f"line {line}: bad register name `{item}`", line=line)
        fn.nregs += count
        if fn.nregs > MAX_REGISTERS:
            raise EmulationError(f"line {line}: kernel {fn.name} declares {fn.nregs} registers, "
                                 f"more than tile-sim's limit of {MAX_REGISTERS}", line=line)
        if decl.count is None:
            scope.declare(item, decl, line, "register")
        else:
            scope.declare_range(decl, line)


def _parse_header(fn_stmt: str, line: int) -> Function:
    m = re.search(rf"\.(entry|func)\s+(?:\(([^)]*)\)\s*)?({IDENT})\s*(\((.*?)\))?(.*)$",
                  fn_stmt, re.S)
    if not m:
        raise EmulationError(f"line {line}: cannot parse function header", line=line)
    kind, ret, name, _, plist, rest = m.groups()
    fn = Function(name=name, is_entry=(kind == "entry"), line=line)
    fn.params = _param_list(plist, line)
    if ret and kind == "func":
        fn.rets = _param_list(ret, line)
    if fn.is_entry:
        fn.directives = _parse_directives(fn.name, rest or "", line)
    return fn


def _param_list(plist, line: int) -> list:
    out = []
    for p in _split_top(plist or ""):
        if not p:
            continue
        pm = re.match(r"^\.param\s+((?:\.\w+(?:::\w+)?\s+|\.align\s+\d+\s+)*)"
                      rf"({IDENT})\s*((?:\[\s*\d+\s*\])*)$", p.strip())
        if not pm:
            raise EmulationError(f"line {line}: cannot parse parameter `{p}`", line=line)
        quals, pname, dims = pm.groups()
        types = [q for q in re.findall(r"\.(\w+)", quals) if q in TYPE_BITS]
        if not types:
            raise EmulationError(f"line {line}: parameter `{p}` has no type", line=line)
        size = esize = max(1, TYPE_BITS[types[0]] // 8)
        for d in re.findall(r"\[\s*(\d+)\s*\]", dims):
            size *= parse_int(d, line)
        if size == 0:  # (ptxas refuses `[0]` too: an incomplete array)
            raise EmulationError(f"line {line}: parameter `{pname}` has no bytes (an array of 0 elements)", line=line)
        # `.ptr .global .align 1` on a pointer param is the pointee alignment, not the param's
        am = re.search(r"\.align\s+(\d+)", quals)
        align = _align(am.group(1), line) if (am and ".ptr" not in quals) else esize
        out.append(Param(pname, types[0], size, align, line))
    return out


def _parse_directives(name: str, text: str, line: int) -> dict:
    """`.reqntid 128, 1, 1 .maxnreg 64 ...` -> {"reqntid": [128, 1, 1], "maxnreg": [64], ...}."""
    out = {}
    for chunk in re.split(r"(?=\.[A-Za-z])", text.strip()):
        if not chunk.strip():
            continue
        dm = re.match(r"^\.(\w+)\s*(.*)$", chunk.strip(), re.S)
        if not dm or dm.group(1) not in ENTRY_DIRECTIVES:
            raise EmulationError(f"line {line}: unknown directive `{chunk.strip()}` in the header "
                                 f"of .entry {name}", line=line)
        d, args = dm.group(1), dm.group(2).strip()
        lo, hi = ENTRY_DIRECTIVES[d]
        vals = [v.strip() for v in args.split(",")] if args else []
        if not lo <= len(vals) <= hi or not all(_INT_RE.match(v) for v in vals):
            raise EmulationError(f"line {line}: .{d} takes {lo}..{hi} integers, got `{args}`",
                                 line=line)
        nums = [parse_int(v, line) for v in vals]
        if any(v < 1 for v in nums):
            raise EmulationError(f"line {line}: .{d} {args}: the values must be positive",
                                 line=line)
        if d in out:
            raise EmulationError(f"line {line}: .{d} is given twice", line=line)
        out[d] = nums
    if "reqntid" in out and "maxntid" in out:
        raise EmulationError(f"line {line}: .maxntid and .reqntid cannot both be given", line=line)
    return out


def parse(text: str) -> Module:
    mod = Module()
    stmts = split_statements(text)
    i = 0
    n = len(stmts)
    while i < n:
        line, s = stmts[i]
        i += 1
        if s.startswith(".version"):
            mod.version = s.split()[1] if len(s.split()) > 1 else None
        elif s.startswith(".target"):
            mod.target = s.split(None, 1)[1] if len(s.split()) > 1 else None
        elif s.startswith(".address_size"):
            mod.address_size = _address_size(s, line)
        elif _FILE_DIRECTIVE.match(s):
            num, path = parse_file(s, line)
            mod.files[num] = path
        elif SKIPPED.match(s):
            continue
        elif _is_header(s):
            fn = _parse_header(s, line)
            prior = mod.scope.names.get(fn.name)
            if isinstance(prior, Function) and not prior.has_body:  # a prototype, now defined
                mod.scope.names[fn.name] = fn
            else:  # a name `call` resolves to
                mod.scope.declare(fn.name, fn, line, "function")
            if i < n and stmts[i][1] == "{":
                fn.has_body = True
                i = _parse_body(fn, mod.scope, stmts, i + 1)
            mod.functions.append(fn)
        elif s in ("{", "}"):
            raise EmulationError(f"line {line}: unexpected `{s}` at module scope", line=line)
        elif _VAR_STMT_RE.match(s):
            v = parse_var(s, line)
            mod.scope.declare(v.name, v, line, "variable")
            mod.vars.append(v)
        else:
            raise EmulationError(f"line {line}: unexpected module-scope statement `{s}`", line=line)
    return mod


def _address_size(s: str, line: int) -> int:
    args = s.split()[1:]
    size = parse_int(args[0], line) if len(args) == 1 and _INT_RE.match(args[0]) else None
    if size not in (32, 64):
        raise EmulationError(f"line {line}: `{s}`: the address size must be 32 or 64", line=line)
    return size


def _parse_body(fn: Function, module_scope: Scope, stmts, i: int) -> int:
    """Parse the body after its `{` into ``fn``, one scope per block; returns the index after
    its `}`."""
    scope = Scope(module_scope)
    for p in fn.params + fn.rets:
        scope.declare(p.name, p, p.line, "parameter")
    body = scope
    n = len(stmts)
    loc = None
    while i < n:
        line, s = stmts[i]
        i += 1
        if s == "{":
            if scope.depth - body.depth >= MAX_BLOCK_DEPTH:
                raise EmulationError(f"line {line}: blocks nested deeper than "
                                     f"{MAX_BLOCK_DEPTH}", line=line)
            scope = Scope(scope)
            continue
        if s == "}":
            if scope is body:
                resolve_function(fn)
                return i
            scope = scope.parent
            continue
        if s.endswith(":") and " " not in s:
            lab = s[:-1]
            scope.declare(lab, Label(lab, len(fn.instructions), line), line, "label")
            continue
        if s.startswith(".reg"):
            _parse_reg_decl(fn, scope, s, line)
            continue
        if _LOC_DIRECTIVE.match(s):  # not `.local`
            loc = parse_loc(s, line)
            continue
        if SKIPPED.match(s):
            continue
        if _VAR_STMT_RE.match(s):
            v = parse_var(s, line)
            scope.declare(v.name, v, line, "variable")
            fn.vars.append(v)
            continue
        if s.startswith("."):
            raise EmulationError(f"line {line}: unsupported directive `{s}`", line=line)
        inst = parse_instruction(s, line, len(fn.instructions), scope)
        inst.loc = loc
        fn.instructions.append(inst)
    raise EmulationError(f"line {fn.line}: function {fn.name} body is not closed", line=fn.line)


_GUARD_RE = re.compile(rf"^@(!?)({IDENT})\s+(.*)$")


def parse_instruction(s: str, line: int, index: int, scope: Scope) -> Instruction:
    guard = None
    text = " ".join(s.split())
    body = text
    if body.startswith("@"):
        m = _GUARD_RE.match(body)
        if not m:
            raise EmulationError(f"line {line}: bad guard in `{text}`", line=line)
        guard = (m.group(2), m.group(1) == "!")
        body = m.group(3)
    parts = body.split(None, 1)
    opcode = parts[0]
    ops = [parse_operand(t, line) for t in _split_top(parts[1])] if len(parts) > 1 else []
    return Instruction(line=line, text=text, opcode=opcode, parts=opcode.split("."),
                       operands=ops, guard=guard, index=index, scope=scope)
