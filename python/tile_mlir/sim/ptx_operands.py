"""Operands of the PTX subset tile-sim reads (the tuples listed in ptx_parser.py's docstring):
literals, registers, symbols, vectors, addresses and tensor coordinates, parsed from one operand's
text, and printed back for messages."""

from __future__ import annotations

import re
import struct

from .errors import EmulationError
from .names import NAME_RE

# ---------------------------------------------------------------------------------------------
# operands

_INT_RE = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?$")
_F32_RE = re.compile(r"^0[fF]([0-9a-fA-F]{8})$")
_F64_RE = re.compile(r"^0[dD]([0-9a-fA-F]{16})$")
_DEC_FLOAT_RE = re.compile(r"^[-+]?[0-9]*\.[0-9]*([eE][-+]?[0-9]+)?$|^[-+]?[0-9]+[eE][-+]?[0-9]+$")
#: characters of an integer literal: 64 binary digits and a prefix, sign and suffix; a longer one
#: is no 64-bit value (and Python refuses to convert very long digit strings)
MAX_LITERAL = 72


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


def parse_int(tok: str, line: int | None = None) -> int:
    if len(tok) > MAX_LITERAL:
        raise EmulationError(f"line {line}: integer literal `{tok[:24]}...` ({len(tok)} characters) "
                             f"does not fit in 64 bits", line=line)
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


_PLIST_RE = re.compile(r"^\(\s*(?:[A-Za-z_$%][\w$]*\s*(?:,\s*[A-Za-z_$%][\w$]*\s*)*)?\)$")


def parse_operand(tok: str, line: int, nested: bool = False):
    """One operand; a vector's elements, a pair's halves and a negated predicate are ``nested``
    and hold no operand of those forms again (PTX nests them no deeper)."""
    tok = tok.strip()
    if not tok:
        raise EmulationError(f"line {line}: empty operand", line=line)
    if tok == "_":
        return ("sink",)
    if not nested and tok.startswith("(") and tok.endswith(")") and _PLIST_RE.match(tok):
        # a call's argument or return-value list: `(param0, param1)`
        return ("plist", [parse_operand(t, line, True) for t in _split_top(tok[1:-1]) if t])
    if nested and (tok[0] in "{!" or "|" in tok):
        raise EmulationError(f"line {line}: operand `{tok[:40]}` nests vectors, pairs or `!`",
                             line=line)
    if tok.startswith("{") and tok.endswith("}"):
        elems = _split_top(tok[1:-1])
        if not elems:
            raise EmulationError(f"line {line}: empty vector operand `{tok}`", line=line)
        return ("vec", [parse_operand(t, line, True) for t in elems])
    if tok.startswith("[") and tok.endswith("]"):
        inner = tok[1:-1].strip()
        parts = _split_top(inner)
        if len(parts) == 2 and parts[1].startswith("{"):  # [tensorMap, tensorCoords]
            base, off = _split_offset(parts[0], line)
            return ("tensor", base, off, parse_operand(parts[1], line))
        base, off = _split_offset(inner, line)
        return ("addr", base, off)
    if "|" in tok:
        a, b = tok.split("|", 1)
        return ("pair", parse_operand(a, line, True), parse_operand(b, line, True))
    if tok.startswith("!"):
        return ("not", parse_operand(tok[1:], line, True))
    if NAME_RE.match(tok):
        return ("id", tok, 0)
    m = _F32_RE.match(tok)
    if m:
        return ("fimm", int(m.group(1), 16), 32)
    m = _F64_RE.match(tok)
    if m:
        return ("fimm", int(m.group(1), 16), 64)
    if _INT_RE.match(tok):
        return ("imm", parse_int(tok, line))
    if _DEC_FLOAT_RE.match(tok) and any(ch.isdigit() for ch in tok):
        return ("fimm", struct.unpack("<Q", struct.pack("<d", float(tok)))[0], 64)
    base, off = _split_offset(tok, line)
    if base[0] == "id":  # name+offset
        return ("id", base[1], off)
    raise EmulationError(f"line {line}: cannot parse operand `{tok}`", line=line)


def show_operand(op) -> str:
    """An operand as PTX text (for messages)."""
    k = op[0]
    if k == "reg":
        return str(op[1])
    if k in ("sym", "id"):
        name = op[1] if k == "id" else op[1].name
        return name + (f"{op[2]:+d}" if op[2] else "")
    if k == "imm":
        return str(op[1])
    if k == "fimm":
        return f"0{'f' if op[2] == 32 else 'd'}{op[1]:0{op[2] // 4}X}"
    if k == "vec":
        return "{" + ", ".join(show_operand(o) for o in op[1]) + "}"
    if k == "addr":
        return f"[{show_operand(op[1])}" + (f"{op[2]:+d}" if op[2] else "") + "]"
    if k == "tensor":
        return (f"[{show_operand(op[1])}" + (f"{op[2]:+d}" if op[2] else "") + ", "
                + show_operand(op[3]) + "]")
    if k == "pair":
        return f"{show_operand(op[1])}|{show_operand(op[2])}"
    if k == "not":
        return "!" + show_operand(op[1])
    return "_"


def _split_offset(s: str, line: int):
    """'%rd1+16' -> (('id', '%rd1', 0), 16); 'smem' -> (('id', 'smem', 0), 0); '0x100' -> imm."""
    s = s.replace(" ", "").replace("+-", "-")  # ptxas accepts [%r1+-1024] (NVPTX prints it)
    m = re.match(r"^([^+\-]+|[-+]?[0-9][0-9a-fA-FxX]*)((?:[+\-][^+\-]+)*)$", s)
    if not m:
        raise EmulationError(f"line {line}: cannot parse address `{s}`", line=line)
    head, tail = m.group(1), m.group(2)
    off = 0
    for sign, num in re.findall(r"([+\-])([^+\-]+)", tail):
        if not _INT_RE.match(num):
            raise EmulationError(f"line {line}: address offset `{num}` is not an integer", line=line)
        off += parse_int(num, line) * (1 if sign == "+" else -1)
    if _INT_RE.match(head):
        return ("imm", parse_int(head, line)), off
    if NAME_RE.match(head):
        return ("id", head, 0), off
    raise EmulationError(f"line {line}: cannot parse address `{s}`", line=line)


