"""mlir-opt's --verify-diagnostics: match emitted diagnostics against `expected-*` comments.

Syntax, as MLIR's SourceMgrDiagnosticVerifierHandler reads it: `// expected-error {{text}}` (same
line), `expected-error@+N`, `@-N`, `@above`, `@below`, `@unknown` (a diagnostic without a file
location), spaces allowed before `@` and before `{{`; severities error, warning, remark, note;
`expected-error-re {{regex}}` matches a regular expression (`{{...}}` spans inside are regexes, the rest
literal, as MLIR does). Text matches if it is a substring of the message. Every expectation must be met
and every diagnostic expected.

One difference, on purpose: `@above` / `@below` skip blank and comment lines (MLIR takes the nearest
line that holds no expectation), since no diagnostic is ever reported on such a line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..diagnostics import Diagnostic

__all__ = ["Expectation", "parse_expectations", "check"]

_EXPECT = re.compile(
    r"expected-(?P<sev>error|warning|remark|note)(?P<re>-re)? *"
    r"(?:@(?P<where>[+-]\d+|above|below|unknown))? *\{\{(?P<text>.*)\}\}\s*$")
_UNKNOWN_LINE = 0  # Diagnostic.line of a diagnostic without a file location


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    regex: bool
    at_line: int  # where the comment is
    matched: bool = False

    def matches(self, d: Diagnostic) -> bool:
        if d.severity != self.severity or d.line != self.line:
            return False
        if not self.regex:
            return self.text in d.message
        return re.search(_to_regex(self.text), d.message, re.DOTALL) is not None  # . spans lines, as llvm::Regex


def _to_regex(text: str) -> str:
    out, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        out.append(re.escape(text[pos:m.start()]))
        out.append(m.group(1))
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return "".join(out)


def parse_expectations(text: str, filename: str = "<stdin>",
                       first_line: int = 1) -> tuple[list[Expectation], list[str]]:
    exps, errors = [], []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        lineno = first_line + i
        idx = line.find("expected-")
        if idx < 0 or "//" not in line[:idx]:
            continue
        m = _EXPECT.search(line[idx:])
        if not m:
            if re.match(r"expected-(error|warning|remark|note)", line[idx:]):
                errors.append(f"{filename}:{lineno}: error: malformed expectation '{line[idx:].strip()}' "
                              "(expected-<severity>[-re][@+N|@-N|@above|@below|@unknown] {{text}})")
            continue
        where = m.group("where")
        target = lineno
        if where == "unknown":
            target = _UNKNOWN_LINE
        elif where in ("above", "below"):
            step = -1 if where == "above" else 1
            j = i + step
            while 0 <= j < len(lines) and (not lines[j].strip() or lines[j].strip().startswith("//")):
                j += step
            target = first_line + j
        elif where:
            target = lineno + int(where)
        exps.append(Expectation(m.group("sev"), target, m.group("text"), bool(m.group("re")), lineno))
    return exps, errors


def check(diags: list[Diagnostic], exps: list[Expectation], filename: str) -> list[str]:
    """Problems, formatted like mlir-opt's; empty when every diagnostic was expected and vice versa."""
    problems = []
    flat = []
    for d in diags:
        flat.append(d)
        flat.extend(d.notes)
    for d in flat:
        hit = next((e for e in exps if not e.matched and e.matches(d)), None)
        if hit is None:
            where = f"{d.file or filename}:{d.line}:{d.col}"
            problems.append(f"{where}: error: unexpected {d.severity}: {d.message}")
        else:
            hit.matched = True
    for e in exps:
        if not e.matched:
            problems.append(f"{filename}:{e.at_line}: error: expected {e.severity} \"{e.text}\" "
                            f"was not produced (on line {e.line})")
    return problems
