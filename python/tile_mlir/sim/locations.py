"""Source locations of PTX instructions: the ``.file`` / ``.loc`` debug directives (PTX ISA
"Debugging Directives") map each instruction to the last ``.loc`` before it in its function, and
every fault, race, deadlock and warning names that source as ``path:line:col`` in MLIR's
diagnostic form, besides the PTX line (then called `PTX line N`: after `kernel.mlir:37:3:` a bare
`line 88` would read as a line of that file)."""

from __future__ import annotations

import re

from .errors import EmulationError

_FILE_RE = re.compile(r'^\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')
_LOC_RE = re.compile(r"^\.loc\s+(\d+)\s+(\d+)(?:\s+(\d+))?")


def parse_file(s: str, line: int) -> tuple[int, str]:
    """(number, path) of a ``.file N "path"{, timestamp, size}`` directive."""
    m = _FILE_RE.match(s)
    if not m:
        raise EmulationError(f'line {line}: malformed `{s}` (expected .file N "path")', line=line)
    return int(m.group(1)), m.group(2).replace('\\"', '"').replace("\\\\", "\\")


def parse_loc(s: str, line: int) -> tuple[int, int, int]:
    """(file number, line, column) of a ``.loc N line col{, ...}`` directive."""
    m = _LOC_RE.match(s)
    if not m:
        raise EmulationError(f"line {line}: malformed `{s}` (expected .loc N line col)", line=line)
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def source(files: dict, loc) -> str | None:
    """``path:line:col`` of a ``.loc`` (None without one, or when its file was never named)."""
    if loc is None:
        return None
    n, ln, col = loc
    path = files.get(n)
    if path is None or ln == 0:  # .loc N 0 0: no source line (LLVM's artificial code)
        return None
    return f"{path}:{ln}:{col}"


def after_source(msg: str) -> str:
    """``msg``, which starts by naming its PTX line (``line N``), as it reads after a source location."""
    return "PTX " + msg if msg.startswith("line ") else msg


def located_error(msg: str, inst, error: str = "error") -> EmulationError:
    """An EmulationError at decoded instruction ``inst``: prefixed by its source in MLIR's form
    when the PTX has line info; ``msg`` names the PTX line."""
    if inst.loc is not None:
        msg = f"{inst.loc}: {error}: {after_source(msg)}"
    return EmulationError(msg, line=inst.line, located=True, source=inst.loc)
