"""What tile IR text must satisfy before MLIR's parser sees it: UTF-8, bounded bracket nesting,
number literals and identifiers of bounded length, and string literals that are UTF-8 of bounded
length once MLIR's escapes (`\\FF`) are undone.

The bindings convert every name (op, attribute, location file) to a Python str and abort the process
(a C++ exception no `try` catches) when its bytes are not UTF-8; a string literal is the only way
such bytes get into text, so they are refused here, before parsing.

MLIR's parser recurses once or more per nesting level (regions, attributes, types, locations) and
has no depth limit of its own, so deep input overflows the C++ stack and kills the process. Depth is
counted as MLIR's lexer would: `{`, `(`, `[` and `<` open, their partners close, and nothing inside
`"..."` strings (with backslash escapes; a string ends at the end of its line, as the lexer's does)
or `//` comments counts; the `>` of `->` closes nothing, and `>=` / `<=` (affine constraints) are
operators. Pure Python, no MLIR: context.parse_source turns a TextProblem into a diagnostic.
"""
from __future__ import annotations

import re
from array import array
from dataclasses import dataclass
from itertools import accumulate

__all__ = ["MAX_NESTING", "MAX_NUMBER_LENGTH", "MAX_IDENTIFIER_LENGTH", "MAX_STRING_LENGTH", "TextProblem",
           "decode", "check_text", "check_string"]

# The deepest bracket nesting accepted. Measured with the bundled bindings (LLVM 23): parsing,
# verifying and printing nested generic ops (two brackets a level) overflows a 1 MiB thread stack
# between 200 and 400 levels and the 8 MiB main-thread stack between 1,600 and 3,200; nested scf.if
# (one bracket a level) at twice those. 256 brackets is half the smallest failure on a 1 MiB stack,
# leaving room for the passes that recurse over the same nesting, and far above real programs
# (the demo nests 5 deep).
MAX_NESTING = 256

# The longest run of digits accepted in a number literal. MLIR's parser takes time polynomial in a
# literal's length (measured with the bundled bindings: 5,000 digits 0.4 s, 10,000 1.4 s, 20,000 9 s,
# before it says "integer constant out of range"); 1,024 digits holds any integer of up to 3,400 bits.
MAX_NUMBER_LENGTH = 1024
_LONG_NUMBER = re.compile(r"[0-9a-fA-F]{%d,}" % (MAX_NUMBER_LENGTH + 1))

# The longest bare identifier (op, attribute, SSA or symbol name) and string literal (bytes, after
# unescaping) accepted: far above real programs (the longest layout string of the tests is under 200
# bytes), and short enough that a diagnostic quoting one stays readable.
MAX_IDENTIFIER_LENGTH = 1024
MAX_STRING_LENGTH = 1 << 16
_LONG_IDENTIFIER = re.compile(r"[A-Za-z0-9_$.\-]{%d,}" % (MAX_IDENTIFIER_LENGTH + 1))
_ESCAPE = re.compile(r'\\([0-9a-fA-F]{2}|.)')
_ESCAPED = {"n": 0x0A, "t": 0x09, '"': 0x22, "\\": 0x5C}

_OPEN, _CLOSE = b"{([<", b"})]>"
# bytes.translate table: an opening bracket -> 0x01, a closing one -> 0xff (-1 as a signed byte)
_SIGNS = bytes(1 if i in _OPEN else 0xFF if i in _CLOSE else 0 for i in range(256))
_NOT_BRACKETS = bytes(i for i in range(256) if i not in _OPEN + _CLOSE)
_STRINGS_AND_COMMENTS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|//[^\n]*')


@dataclass(frozen=True)
class TextProblem:
    """What is wrong with the text, at 1-based line and column (MLIR's: bytes of UTF-8)."""

    line: int
    col: int
    message: str


def decode(data: bytes) -> str | TextProblem:
    """`data` as UTF-8 text, or the TextProblem at its first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        return TextProblem(data.count(b"\n", 0, e.start) + 1, e.start - start + 1,
                           f"invalid UTF-8 byte 0x{data[e.start]:02x}: tile IR text must be UTF-8")


def check_text(text: str) -> TextProblem | None:
    """The first problem of `text` as parser input: a character UTF-8 cannot encode (a lone surrogate,
    as `errors="surrogateescape"` leaves for a bad byte), or the first bracket nested deeper than
    MAX_NESTING. None when it has none."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        line, col = _line_col(text, e.start)
        cp = ord(text[e.start])
        what = f"byte 0x{cp - 0xDC00:02x}" if 0xDC80 <= cp <= 0xDCFF else f"character U+{cp:04X}"
        return TextProblem(line, col, f"invalid UTF-8 {what}: tile IR text must be UTF-8")
    long_number = _long_number(text)
    if long_number is not None:
        line, col = _line_col(text, long_number)
        return TextProblem(line, col, f"number literal longer than {MAX_NUMBER_LENGTH} digits: MLIR's parser "
                                      "takes minutes over such literals")
    problem = _bad_token(text, data)
    if problem is not None:
        return problem
    if _deepest(text, data) <= MAX_NESTING:
        return None
    pos = _first_too_deep(text)
    if pos is None:  # (_deepest may miscount past an unterminated string, where parsing stops anyway)
        return None
    line, col = _line_col(text, pos)
    return TextProblem(line, col, f"bracket nested {MAX_NESTING + 1} deep: tile IR nests '{{', '(', '[' "
                                  f"and '<' at most {MAX_NESTING} deep (deeper input would overflow the "
                                  "parser's stack)")


def check_string(raw: bytes) -> str | None:
    """What is wrong with a name or string of the IR, given as its bytes (unescaped): not UTF-8, or
    longer than MAX_STRING_LENGTH; None when nothing is. Text and bytecode input share it."""
    if len(raw) > MAX_STRING_LENGTH:
        return f"string of {len(raw)} bytes: names and strings of tile IR are at most {MAX_STRING_LENGTH} bytes"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return (f"string holds byte 0x{raw[e.start]:02x}, not UTF-8: names and strings of tile IR must be "
                "UTF-8 (after unescaping)")
    return None


def _bad_token(text: str, data: bytes) -> TextProblem | None:
    """The first string literal that check_string refuses once unescaped (dictionary values: length
    only), or the first bare
    identifier longer than MAX_IDENTIFIER_LENGTH, outside comments."""
    if b"\\" not in data and len(data) <= MAX_STRING_LENGTH and _LONG_IDENTIFIER.search(text) is None:
        return None  # the common case, at C speed: no escapes, nothing long
    blanked = []  # text with strings and comments blanked out, for the identifier search
    last = 0
    for m in _STRINGS_AND_COMMENTS.finditer(text):
        piece = m.group()
        blanked.append(text[last:m.start()])
        blanked.append(" " * len(piece))
        last = m.end()
        if piece.startswith("//"):
            continue
        body = piece[1:-1] if piece.endswith('"') and len(piece) > 1 else piece[1:]
        if "\\" not in body and len(body) <= MAX_STRING_LENGTH:
            continue
        raw = _unescape(body)
        why = check_string(raw if not _is_dict_value(text, m.start(), m.end()) else raw.decode("latin-1").encode())
        if why is not None:
            line, col = _line_col(text, m.start())
            return TextProblem(line, col, why)
    blanked.append(text[last:])
    m = _LONG_IDENTIFIER.search("".join(blanked))
    if m is not None:
        line, col = _line_col(text, m.start())
        return TextProblem(line, col, f"token of {len(m.group())} characters: identifiers of tile IR are at "
                                      f"most {MAX_IDENTIFIER_LENGTH} characters")
    return None


def _is_dict_value(text: str, start: int, end: int) -> bool:
    """Whether the string at text[start:end] is the value of an attribute dictionary entry
    (`= "..."` then `,` or `}`): those may hold any bytes (the verifier reads their bytes, never a
    str of them), so only their length is checked."""
    before, after = text[:start].rstrip()[-1:], text[end:end + 64].lstrip()[:1]
    return before == "=" and after in (",", "}")


def _unescape(body: str) -> bytes:
    """The bytes MLIR's lexer makes of a string literal's body: `\\XX` is byte XX."""
    out, last = bytearray(), 0
    for m in _ESCAPE.finditer(body):
        out += body[last:m.start()].encode("utf-8", "surrogatepass")
        e = m.group(1)
        out.append(int(e, 16) if len(e) == 2 else _ESCAPED.get(e, ord(e) if ord(e) < 128 else 0x3F))
        last = m.end()
    out += body[last:].encode("utf-8", "surrogatepass")
    return bytes(out)


def _long_number(text: str) -> int | None:
    """Index of the first run of more than MAX_NUMBER_LENGTH digits (hex digits count, for 0x literals)
    outside strings and comments, or None."""
    if _LONG_NUMBER.search(text) is None:  # the common case, at C speed
        return None
    m = _LONG_NUMBER.search(_STRINGS_AND_COMMENTS.sub(lambda piece: " " * len(piece.group()), text))
    return m.start() if m else None


def _deepest(text: str, data: bytes) -> int:
    """An upper bound of the deepest nesting of `text` (`data` in UTF-8), by C-speed string and bytes
    operations: no Python code runs per character (about 5 ms a megabyte, a tenth of parsing it)."""
    if b"\\" in data or b"//" in data:
        data = _STRINGS_AND_COMMENTS.sub("", text).encode("utf-8")
    else:  # no escapes and no comments: strings are the odd pieces between quotes
        data = b"".join(data.split(b'"')[0::2])
    data = data.replace(b"->", b"")
    for operator in (b">=", b"<="):
        if operator in data:
            data = data.replace(operator, b"")
    return max(accumulate(array("b", data.translate(_SIGNS, _NOT_BRACKETS))), default=0)


def _first_too_deep(text: str) -> int | None:
    """Index of the first bracket nested deeper than MAX_NESTING, lexing as MLIR does."""
    depth, i, n = 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
        elif c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return None
        elif c in "{([<":
            if not (c == "<" and text.startswith("<=", i)):
                depth += 1
                if depth > MAX_NESTING:
                    return i
        elif c in "})]>":
            if not (c == ">" and (text.startswith(">=", i) or text[i - 1:i] == "-")):
                depth -= 1
        i += 1
    return None


def _line_col(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, len(text[start:pos].encode("utf-8", "surrogatepass")) + 1
