"""A parser for the PTX subset emitted by libNVVM (and hand-written test kernels).

It produces a :class:`Module` of :class:`Function` objects holding declarations and a flat list of
:class:`Instruction` objects whose operands are small tuples:

    ('reg', name)            %r1, %rd2, %p1, %tid.x (special registers are registers too)
    ('not', ('reg', name))   !%p1 (predicate operand negation)
    ('imm', int)             42, -1, 0x10, 0x10U
    ('fimm', bits, width)    0f3F800000 (32), 0d3FF0000000000000 (64), 1.5 (64 unless used as f32)
    ('sym', name, offset)    smem, smem+8, kern_param_0, $L__BB0_1 (labels are symbols too)
    ('vec', [operands])      {%r1, %r2}
    ('addr', base, offset)   [%rd1], [%rd1+16], [smem+8], [0x100]; base is a reg, sym or imm tuple
    ('pair', a, b)           %r1|%p1 (elect.sync / shfl.sync destinations)
    ('sink',)                _

Line numbers are 1-based in the original text.  Syntax errors raise EmulationError naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import EmulationError

# declaration types -> bit width
TYPE_BITS = {
    "pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
    "f16x2": 32, "bf16x2": 32, "b32": 32, "u32": 32, "s32": 32, "f32": 32, "b64": 64, "u64": 64,
    "s64": 64, "f64": 64, "b128": 128,
}

LINE_DIRECTIVES = (".version", ".target", ".address_size", ".loc", ".file", ".section")
FUNC_KEYWORDS = (".entry", ".func")


@dataclass
class Instruction:
    line: int
    text: str
    opcode: str  # full dotted opcode, e.g. "ld.shared.v2.u32"
    parts: list  # opcode.split('.')
    operands: list
    guard: tuple | None = None  # (reg_name, negated)
    index: int = 0


@dataclass
class VarDecl:
    space: str  # shared, global, const, local
    name: str
    type: str
    align: int
    size: int  # bytes; 0 for `.extern .shared ... x[]`
    extern: bool
    line: int
    init: list | None = None


@dataclass
class Param:
    name: str
    type: str
    size: int
    align: int
    line: int


@dataclass
class Function:
    name: str
    is_entry: bool
    line: int
    params: list = field(default_factory=list)
    regs: dict = field(default_factory=dict)  # name -> bits
    reg_types: dict = field(default_factory=dict)  # name -> type string
    vars: list = field(default_factory=list)
    instructions: list = field(default_factory=list)
    labels: dict = field(default_factory=dict)  # name -> instruction index
    directives: dict = field(default_factory=dict)  # .reqntid, .maxntid, .reqnctapercluster ...


@dataclass
class Module:
    version: str | None = None
    target: str | None = None
    address_size: int = 64
    vars: list = field(default_factory=list)
    functions: list = field(default_factory=list)

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

_LABEL_RE = re.compile(r"([A-Za-z_$%][\w$.]*)\s*:(?!:)")


def _strip_comments(text: str) -> list[str]:
    out = []
    in_block = False
    for line in text.split("\n"):
        res = []
        i = 0
        n = len(line)
        while i < n:
            if in_block:
                j = line.find("*/", i)
                if j < 0:
                    i = n
                else:
                    in_block = False
                    i = j + 2
                continue
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                in_block = True
                i += 2
                continue
            if line[i] == '"':  # string literal (only in .file / .pragma)
                j = line.find('"', i + 1)
                j = n if j < 0 else j + 1
                res.append(line[i:j])
                i = j
                continue
            res.append(line[i])
            i += 1
        out.append("".join(res))
    return out


def split_statements(text: str) -> list[tuple[int, str]]:
    """Split PTX text into (line, statement) tuples; braces and labels are their own statements.

    Labels are returned as ``'name:'``; block braces as ``'{'`` / ``'}'``.
    """
    lines = _strip_comments(text)
    stmts: list[tuple[int, str]] = []
    buf: list[str] = []
    buf_line = 0
    for lineno, line in enumerate(lines, 1):
        i = 0
        n = len(line)
        while i < n:
            c = line[i]
            if c in " \t\r":
                if buf:
                    buf.append(" ")
                i += 1
                continue
            if not buf:
                rest = line[i:]
                if rest.startswith(LINE_DIRECTIVES):
                    stmts.append((lineno, rest.strip().rstrip(";").strip()))
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
# operands

_INT_RE = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?$")
_F32_RE = re.compile(r"^0[fF]([0-9a-fA-F]{8})$")
_F64_RE = re.compile(r"^0[dD]([0-9a-fA-F]{16})$")
_DEC_FLOAT_RE = re.compile(r"^[-+]?[0-9]*\.[0-9]*([eE][-+]?[0-9]+)?$|^[-+]?[0-9]+[eE][-+]?[0-9]+$")
_IDENT_RE = re.compile(r"^[A-Za-z_$%][\w$.]*$")


def _split_top(s: str, sep: str = ",") -> list[str]:
    out, depth, cur = [], 0, []
    for c in s:
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    tail = "".join(cur).strip()
    if tail or out:
        out.append(tail)
    return out


def parse_int(tok: str) -> int:
    t = tok.rstrip("uU")
    neg = t.startswith("-")
    t = t.lstrip("+-")
    if t[:2] in ("0x", "0X"):
        v = int(t[2:], 16)
    elif t[:2] in ("0b", "0B"):
        v = int(t[2:], 2)
    elif len(t) > 1 and t.startswith("0"):
        v = int(t, 8)
    else:
        v = int(t)
    return -v if neg else v


def parse_operand(tok: str, line: int):
    tok = tok.strip()
    if not tok:
        raise EmulationError(f"line {line}: empty operand", line=line)
    if tok == "_":
        return ("sink",)
    if tok.startswith("{") and tok.endswith("}"):
        return ("vec", [parse_operand(t, line) for t in _split_top(tok[1:-1])])
    if tok.startswith("[") and tok.endswith("]"):
        inner = tok[1:-1].strip()
        base, off = _split_offset(inner, line)
        return ("addr", base, off)
    if "|" in tok:
        a, b = tok.split("|", 1)
        return ("pair", parse_operand(a, line), parse_operand(b, line))
    if tok.startswith("!"):
        return ("not", parse_operand(tok[1:], line))
    if tok.startswith("%"):
        if not _IDENT_RE.match(tok):
            raise EmulationError(f"line {line}: bad register operand `{tok}`", line=line)
        return ("reg", tok)
    m = _F32_RE.match(tok)
    if m:
        return ("fimm", int(m.group(1), 16), 32)
    m = _F64_RE.match(tok)
    if m:
        return ("fimm", int(m.group(1), 16), 64)
    if _INT_RE.match(tok):
        return ("imm", parse_int(tok))
    if _DEC_FLOAT_RE.match(tok) and any(ch.isdigit() for ch in tok):
        import struct
        return ("fimm", struct.unpack("<Q", struct.pack("<d", float(tok)))[0], 64)
    base, off = _split_offset(tok, line)
    if base[0] == "sym":
        return ("sym", base[1], off)
    raise EmulationError(f"line {line}: cannot parse operand `{tok}`", line=line)


def _split_offset(s: str, line: int):
    """'%rd1+16' -> (('reg','%rd1'), 16); 'smem' -> (('sym','smem',0), 0); '0x100' -> imm."""
    s = s.replace(" ", "").replace("+-", "-")  # ptxas accepts [%r1+-1024] (NVPTX prints it)
    m = re.match(r"^([^+\-]+|[-+]?[0-9][0-9a-fA-FxX]*)((?:[+\-][^+\-]+)*)$", s)
    if not m:
        raise EmulationError(f"line {line}: cannot parse address `{s}`", line=line)
    head, tail = m.group(1), m.group(2)
    off = 0
    for sign, num in re.findall(r"([+\-])([^+\-]+)", tail):
        if not _INT_RE.match(num):
            raise EmulationError(f"line {line}: address offset `{num}` is not an integer", line=line)
        off += parse_int(num) * (1 if sign == "+" else -1)
    if head.startswith("%"):
        return ("reg", head), off
    if _INT_RE.match(head):
        return ("imm", parse_int(head)), off
    if _IDENT_RE.match(head):
        return ("sym", head, 0), off
    raise EmulationError(f"line {line}: cannot parse address `{s}`", line=line)


# ---------------------------------------------------------------------------------------------
# declarations

_REG_DECL_RE = re.compile(r"^\.reg\s+((?:\.v\d\s+)?)\.(\w+)\s+(.*)$")
_VAR_RE = re.compile(
    r"^((?:\.(?:extern|visible|weak|global|shared|const|local)\s*)+)"  # qualifiers + space
    r"((?:\.(?:align|ptr)\s*\d*\s*)*)"
    r"\.(\w+)\s+([A-Za-z_$%][\w$]*)\s*((?:\[\s*\d*\s*\])*)\s*(?:=\s*(.*))?$")


def parse_var(stmt: str, line: int) -> VarDecl:
    s = re.sub(r"\.(shared)::cta", r".\1", stmt)
    s = re.sub(r"\.(align)\s+(\d+)", r".\1 \2", s)
    m = _VAR_RE.match(s)
    if not m:
        raise EmulationError(f"line {line}: cannot parse declaration `{stmt}`", line=line)
    quals, aligns, typ, name, dims, init = m.groups()
    qs = re.findall(r"\.(\w+)", quals)
    space = next(q for q in qs if q in ("global", "shared", "const", "local"))
    am = re.search(r"\.align\s+(\d+)", aligns or "")
    if typ not in TYPE_BITS:
        raise EmulationError(f"line {line}: unsupported variable type .{typ}", line=line)
    esize = max(1, TYPE_BITS[typ] // 8)
    align = int(am.group(1)) if am else esize
    dlist = re.findall(r"\[\s*(\d*)\s*\]", dims or "")
    size = esize
    extern = "extern" in qs
    for d in dlist:
        if d == "":
            size = 0
            extern = True
            break
        size *= int(d)
    init_vals = None
    if init:
        init_vals = [parse_operand(t, line) for t in _split_top(init.strip().strip("{}"))]
    return VarDecl(space, name, typ, align, size, extern and size == 0, line, init_vals)


def _parse_reg_decl(fn: Function, stmt: str, line: int):
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
        mm = re.match(r"^(%[\w$]+)<(\d+)>$", item)
        if mm:
            for k in range(int(mm.group(2))):
                fn.regs[f"{mm.group(1)}{k}"] = bits
                fn.reg_types[f"{mm.group(1)}{k}"] = typ
        elif re.match(r"^%[\w$]+$", item):
            fn.regs[item] = bits
            fn.reg_types[item] = typ
        else:
            raise EmulationError(f"line {line}: bad register name `{item}`", line=line)


def _parse_header(fn_stmt: str, line: int) -> Function:
    m = re.search(r"\.(entry|func)\s+(?:\(([^)]*)\)\s*)?([A-Za-z_$][\w$]*)\s*(\((.*?)\))?(.*)$",
                  fn_stmt, re.S)
    if not m:
        raise EmulationError(f"line {line}: cannot parse function header", line=line)
    kind, _ret, name, _, plist, rest = m.groups()
    fn = Function(name=name, is_entry=(kind == "entry"), line=line)
    if plist:
        for p in _split_top(plist):
            if not p:
                continue
            pm = re.match(r"^\.param\s+((?:\.\w+(?:::\w+)?\s+|\.align\s+\d+\s+)*)"
                          r"([A-Za-z_$][\w$]*)\s*((?:\[\s*\d+\s*\])*)$", p.strip())
            if not pm:
                raise EmulationError(f"line {line}: cannot parse parameter `{p}`", line=line)
            quals, pname, dims = pm.groups()
            types = [q for q in re.findall(r"\.(\w+)", quals) if q in TYPE_BITS]
            if not types:
                raise EmulationError(f"line {line}: parameter `{p}` has no type", line=line)
            esize = max(1, TYPE_BITS[types[0]] // 8)
            size = esize
            for d in re.findall(r"\[\s*(\d+)\s*\]", dims):
                size *= int(d)
            # `.ptr .global .align 1` on a pointer param is the pointee alignment, not the param's
            am = re.search(r"\.align\s+(\d+)", quals)
            align = int(am.group(1)) if (am and ".ptr" not in quals) else esize
            fn.params.append(Param(pname, types[0], size, align, line))
    for dm in re.finditer(r"\.(\w+)((?:\s*,?\s*\d+)*)", rest or ""):
        nums = [int(x) for x in re.findall(r"\d+", dm.group(2))]
        fn.directives[dm.group(1)] = nums
    return fn


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
            mod.address_size = int(s.split()[1])
        elif s.startswith((".loc", ".file", ".section", ".pragma")):
            continue
        elif _is_header(s):
            fn = _parse_header(s, line)
            if i < n and stmts[i][1] == "{":
                i = _parse_body(fn, stmts, i + 1)
            mod.functions.append(fn)
        elif s in ("{", "}"):
            raise EmulationError(f"line {line}: unexpected `{s}` at module scope", line=line)
        elif re.match(r"^(\.(extern|visible|weak)\s+)*\.(shared|global|const)\b", s):
            mod.vars.append(parse_var(s, line))
        else:
            raise EmulationError(f"line {line}: unexpected module-scope statement `{s}`", line=line)
    return mod


def _parse_body(fn: Function, stmts, i: int) -> int:
    depth = 1
    n = len(stmts)
    while i < n:
        line, s = stmts[i]
        i += 1
        if s == "{":
            depth += 1
            continue
        if s == "}":
            depth -= 1
            if depth == 0:
                return i
            continue
        if s.endswith(":") and " " not in s:
            lab = s[:-1]
            if lab in fn.labels:
                raise EmulationError(f"line {line}: duplicate label {lab}", line=line)
            fn.labels[lab] = len(fn.instructions)
            continue
        if s.startswith(".reg"):
            _parse_reg_decl(fn, s, line)
            continue
        if s.startswith((".loc", ".file", ".pragma", ".section")):
            continue
        if re.match(r"^(\.(extern|visible|weak)\s+)*\.(shared|global|const|local)\b", s):
            fn.vars.append(parse_var(s, line))
            continue
        if s.startswith("."):
            raise EmulationError(f"line {line}: unsupported directive `{s}`", line=line)
        fn.instructions.append(parse_instruction(s, line, len(fn.instructions)))
    raise EmulationError(f"line {fn.line}: function {fn.name} body is not closed", line=fn.line)


def parse_instruction(s: str, line: int, index: int) -> Instruction:
    guard = None
    text = " ".join(s.split())
    body = text
    if body.startswith("@"):
        m = re.match(r"^@(!?)(%[\w$]+)\s+(.*)$", body)
        if not m:
            raise EmulationError(f"line {line}: bad guard in `{text}`", line=line)
        guard = (m.group(2), m.group(1) == "!")
        body = m.group(3)
    parts = body.split(None, 1)
    opcode = parts[0]
    ops = [parse_operand(t, line) for t in _split_top(parts[1])] if len(parts) > 1 else []
    return Instruction(line=line, text=text, opcode=opcode, parts=opcode.split("."),
                       operands=ops, guard=guard, index=index)
