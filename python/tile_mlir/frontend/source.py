"""What a tile program's source tells: its text, from whatever a caller passed, and the names its
kernel gives its arguments.

:func:`read_source` decides what ``compile`` and ``jit`` were given, in this order:

* an ``os.PathLike`` is a path: the file is read;
* a ``str`` naming an existing file is that file; a one-line ``str`` that looks like a path (ends in
  ``.mlir``, or holds a path separator and none of IR's punctuation ``{}()"%=<>^!#@``) but names
  no file is an ArgumentError ("no such file"), never a parse error; any other ``str`` is IR text;
* ``bytes`` (or ``bytearray``, ``memoryview``) are IR text in UTF-8;
* an MLIR module or operation (an object with ``.operation``) is taken as it is;
* a Source (what this function returns) is returned as it is: a caller that read a source passes
  it on, and it is read once;
* anything else is an ArgumentTypeError.

Files and bytes are decoded as UTF-8; a bad byte is an ArgumentError naming the file and the byte
offset. MLIR drops SSA names when it parses, but a block argument's location points at its
``%name`` in the text: :func:`arg_names` reads the names back from there. Nothing here imports MLIR.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

from ..artifact import is_param_name
from ..errors import ArgumentError, ArgumentTypeError
from .text_checks import TextProblem, decode
from .safe_io import FileReadError, read_file

__all__ = ["Source", "read_source", "arg_names"]

#: the largest tile IR file read (tile-opt takes as much: opt.MAX_INPUT_BYTES)
MAX_SOURCE_BYTES = 512 << 20
_IR_PUNCTUATION = frozenset('{}()"%=<>^!#@')
_SSA_NAME = re.compile(r"%([A-Za-z_][A-Za-z0-9_]*)\s*:")  # '%A:' of a block argument


@dataclass(frozen=True)
class Source:
    """``text``: the IR (None for a module); ``module``: the MLIR module or operation given (else
    None); ``path``: the file it was read from (else None)."""

    text: str | None
    module: object = None
    path: str | None = None

    @functools.cached_property
    def ir_text(self) -> str:
        """The IR as text: ``text``, or the module printed (once, for cache keys: a module is compiled
        as it is, never printed to be parsed again)."""
        return self.text if self.module is None else str(self.module)


def read_source(source, what: str = "source") -> Source:
    """The Source of what a caller passed as ``what`` (see the module docstring)."""
    if isinstance(source, Source):
        return source
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
        if not isinstance(path, str):
            raise ArgumentTypeError(f"{what}: a path must be a str path, got {type(path).__name__}")
        return _read_file(path, what)
    if isinstance(source, str):
        if "\n" not in source and source:
            if os.path.isdir(source):
                raise ArgumentError(f"{what}: {source} is a directory, not a tile IR file")
            if os.path.lexists(source):  # (a FIFO or a device too: _read_file says why it is not read)
                return _read_file(source, what)
            if _looks_like_path(source):
                raise ArgumentError(f"{what}: {source}: no such file (a str is IR text unless it "
                                    "names an existing file)")
        return Source(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Source(_decode(bytes(source), f"{what}: bytes"))
    if hasattr(source, "operation"):
        return Source(None, module=source)
    raise ArgumentTypeError(f"{what} must be tile IR text (str or bytes), a path (str or "
                            f"os.PathLike) or an MLIR module, got {type(source).__name__}")


def _looks_like_path(s: str) -> bool:
    if s.endswith(".mlir"):
        return True
    seps = {os.sep} | ({os.altsep} if os.altsep else set())
    return any(c in s for c in seps) and not (_IR_PUNCTUATION & set(s))


def _read_file(path: str, what: str) -> Source:

    try:  # (a regular file of bounded size: never a FIFO, a device or a directory)
        data = read_file(path, limit=MAX_SOURCE_BYTES)
    except FileReadError as e:
        raise ArgumentError(f"{what}: {e.path}: {e.reason}") from None
    return Source(_decode(data, path), path=path)


def _decode(data: bytes, where: str) -> str:
    text = decode(data)
    if isinstance(text, TextProblem):
        raise ArgumentError(f"{where}:{text.line}:{text.col}: {text.message}")
    return text


def arg_names(arguments, text: str, filename: str) -> list[str]:
    """The names of a block's ``arguments`` as ``text`` (parsed as ``filename``) spells them:
    the ``%name`` at each argument's location, when it is a parameter name (artifact.is_param_name)
    and the names are distinct; ``arg<i>`` for the others (e.g. IR built in Python)."""
    lines = text.split("\n") if text else []
    names = []
    for i, a in enumerate(arguments):
        name = _name_at(a.location, lines, filename)
        names.append(name if name is not None and is_param_name(name) else f"arg{i}")
    if len(set(names)) != len(names):
        return [f"arg{i}" for i in range(len(names))]
    return names


def _name_at(loc, lines: list[str], filename: str) -> str | None:
    """The SSA name at a file location of ``filename`` (1-based line and column), if any."""
    try:
        if not loc.is_a_file() or loc.filename != filename:
            return None
        line, col = loc.start_line, loc.start_col
    except AttributeError:  # bindings without file-location accessors
        return None
    if not 1 <= line <= len(lines) or col < 1:
        return None
    m = _SSA_NAME.match(lines[line - 1], col - 1)
    return m.group(1) if m else None
