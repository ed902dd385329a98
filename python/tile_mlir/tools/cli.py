"""The edge of every tile_mlir command line (tile-opt, tile-run, tile-layout): whatever the command
does, the process ends with an exit status and at most one line on stderr, never a traceback of an
exception that is not ours.

* stdout closed or a pipe whose reader went away (`tile-opt --help | head -1`): the output is dropped,
  as a C tool killed by SIGPIPE drops it, and the status is 1 (nothing more is written to stderr;
  Python's own flush at exit is pointed at /dev/null so it cannot raise either);
* Ctrl-C: status 130, as a shell reports SIGINT;
* the MLIR bindings that cannot be loaded (TILE_MLIR_BINDINGS naming no provider, none installed):
  one line, status 1;
* a warning (a compile's TileWarning, an environment variable tile_mlir does not read) is one line on
  stderr as the tool's own: a diagnostic as MLIR prints it (`kernel.mlir:24:5: warning: ...`, as
  tile-opt prints the same diagnostic), anything else as `tile-run: warning: ...`, never Python's
  `module.py:246: TileWarning: ...` and the library line that raised it.
"""
from __future__ import annotations

import errno
import os
import re
import sys
import warnings

__all__ = ["guarded"]

_DIAGNOSTIC = re.compile(r"\S+:\d+:\d+: warning: ")  # path:line:col: warning: (MLIR's form names its place)


def guarded(prog: str, main, *args, **kwargs) -> int:
    """main(*args, **kwargs) (a command's body, returning its exit status), with the edges above."""
    try:
        with warnings.catch_warnings():  # (restores Python's display when main returns: tests call it)
            warnings.showwarning = _shown_as(prog)
            return main(*args, **kwargs)
    except KeyboardInterrupt:
        return 130
    except OSError as e:
        if e.errno not in (errno.EPIPE, errno.EBADF):
            raise
        _drop_stdout()
        return 1
    except ImportError as e:  # the bindings (mlir.py): a provider that cannot be loaded
        print(f"{prog}: error: cannot load the MLIR bindings: {e}", file=sys.stderr)
        return 1


def _shown_as(prog: str):
    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message).strip()
        if not _DIAGNOSTIC.match(text):
            text = f"{prog}: warning: {text}"
        try:
            print(text, file=file or sys.stderr)
        except (OSError, ValueError):  # stderr gone: a warning is not worth failing the command
            pass
    return show


def _drop_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):  # (no stdout at all: nothing to flush at exit)
        pass
