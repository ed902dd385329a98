"""MLIR-style diagnostics for tile_mlir.

Our verifier, dispatcher and lowerings report through a DiagnosticEngine instead of raising, so that a
user's bad input ends as `file:line:col: error: ...` at the op's location and never as a traceback.
Diagnostics raised by MLIR itself (parse errors, upstream verifiers and passes) reach the same engine
through the context's diagnostic handler. The bindings can only emit errors, so warnings, remarks and
notes exist only on the Python side, which is where we produce them.
"""
from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass, field

from .errors import TileMLIRError
from .mlir import ir

__all__ = ["Diagnostic", "DiagnosticEngine", "TileError", "TileWarning", "warn_python", "emit", "error", "warning", "remark", "active",
           "wants_remarks"]

_SEVERITIES = ("error", "warning", "remark", "note")


@dataclass
class Diagnostic:
    severity: str
    message: str
    file: str = ""
    line: int = 0
    col: int = 0
    notes: list["Diagnostic"] = field(default_factory=list)

    @staticmethod
    def at(severity: str, loc, message: str) -> "Diagnostic":
        file, line, col = _file_line_col(loc)
        return Diagnostic(severity, message, file, line, col)

    def note(self, loc, message: str) -> "Diagnostic":
        self.notes.append(Diagnostic.at("note", loc if loc is not None else _NoLoc, message))
        return self

    def format(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}: " if self.file else ""
        out = f"{where}{self.severity}: {self.message}"
        for n in self.notes:
            out += "\n" + n.format()
        return out

    def __str__(self) -> str:
        return self.format()


class _NoLoc:
    pass


def _file_line_col(loc) -> tuple[str, int, int]:
    """Resolve a location (or an op) to the innermost file:line:col it names."""
    if loc is None or loc is _NoLoc:
        return "", 0, 0
    if hasattr(loc, "location") and not isinstance(loc, ir.Location):
        loc = loc.location
    seen = 0
    while seen < 16:
        seen += 1
        if loc.is_a_file():
            return loc.filename, loc.start_line, loc.start_col
        if loc.is_a_name():
            loc = loc.child_loc
        elif loc.is_a_callsite():
            loc = loc.callee
        elif loc.is_a_fused():
            inner = list(loc.locations)
            if not inner:
                break
            loc = inner[0]
        else:
            break
    return "", 0, 0


class TileError(TileMLIRError):
    """Raised by library entry points (compile, jit) when diagnostics with errors were emitted."""

    def __init__(self, diagnostics: list[Diagnostic], what: str = "tile_mlir"):
        self.diagnostics = list(diagnostics)
        errors = [d for d in self.diagnostics if d.severity == "error"]
        text = "\n".join(d.format() for d in errors) or "failed"
        super().__init__(f"{what} failed:\n{text}")


class TileWarning(UserWarning):
    """A warning diagnostic of a compile that succeeded, raised through Python's warnings module."""


def warn_python(diagnostics: list[Diagnostic], stacklevel: int = 3) -> None:
    """Each warning among `diagnostics` as a Python warning (library callers see no diagnostic stream)."""
    import warnings

    for d in diagnostics:
        if d.severity == "warning":
            warnings.warn(d.format(), TileWarning, stacklevel=stacklevel)


class DiagnosticEngine:
    """Collects diagnostics from Python code and from an MLIR context's handler."""

    _stack: list["DiagnosticEngine"] = []

    def __init__(self, remark_filter=None):
        self.diagnostics: list[Diagnostic] = []
        self._handlers = []
        self.remark_filter = remark_filter  # a compiled regex: the remark categories asked for (None: none)

    # -- collection -------------------------------------------------------------------------------
    def emit(self, diag: Diagnostic) -> Diagnostic:
        self.diagnostics.append(diag)
        return diag

    def attach(self, context) -> None:
        """Route the context's MLIR diagnostics into this engine (the handler must stay alive)."""

        def handler(d) -> bool:
            self.emit(_from_mlir(d))
            return True

        self._handlers.append((context, context.attach_diagnostic_handler(handler), handler))

    def detach(self) -> None:
        for _, h, _ in self._handlers:
            with contextlib.suppress(Exception):
                h.detach()
        self._handlers.clear()

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def take(self) -> list[Diagnostic]:
        out, self.diagnostics = self.diagnostics, []
        return out

    # -- activation -------------------------------------------------------------------------------
    def __enter__(self) -> "DiagnosticEngine":
        DiagnosticEngine._stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        DiagnosticEngine._stack.remove(self)


def _from_mlir(d) -> Diagnostic:
    sev = str(d.severity).rsplit(".", 1)[-1].lower()
    sev = sev if sev in _SEVERITIES else "error"
    out = Diagnostic.at(sev, d.location, str(d.message))
    out.notes = [_from_mlir(n) for n in d.notes]
    return out


def active() -> DiagnosticEngine | None:
    return DiagnosticEngine._stack[-1] if DiagnosticEngine._stack else None


def emit(severity: str, where, message: str) -> Diagnostic:
    """Report a diagnostic at `where` (an op or a location) to the active engine.

    Without an active engine an error goes to MLIR's own diagnostic machinery (so a bare library user
    still sees it) and other severities are dropped into a fresh Diagnostic that is returned.
    """
    diag = Diagnostic.at(severity, where, message)
    eng = active()
    if eng is not None:
        return eng.emit(diag)
    if severity == "error":
        loc = where.location if hasattr(where, "location") and not isinstance(where, ir.Location) else where
        loc.emit_error(message)
    return diag


def error(where, message: str) -> Diagnostic:
    return emit("error", where, message)


def warning(where, message: str) -> Diagnostic:
    return emit("warning", where, message)


def wants_remarks(category: str) -> bool:
    """Whether the active engine asks for remarks of `category` (e.g. "dispatch"); off by default, so
    that output is unchanged unless a caller asks (tile-opt --remarks-filter=REGEX, as mlir-opt's)."""
    eng = active()
    return eng is not None and eng.remark_filter is not None and eng.remark_filter.search(category) is not None


def remark(where, message: str) -> Diagnostic:
    return emit("remark", where, message)


def replace(diag: Diagnostic, **kw) -> Diagnostic:
    return dataclasses.replace(diag, **kw)
