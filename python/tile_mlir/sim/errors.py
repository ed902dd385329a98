"""Errors raised by tile-sim.

Every illegal behaviour of an emulated kernel raises :class:`EmulationError`.  The scheduler adds the
PTX line number (1-based in the text given to :func:`run_ptx`), the instruction text and the
CTA / warp / lane to messages raised by handlers that do not carry a location yet.
"""

from __future__ import annotations

from ..errors import TileMLIRError


class EmulationError(TileMLIRError):
    """An illegal, undefined or unsupported behaviour of the emulated PTX.

    ``line`` is the 1-based PTX line number (``None`` for errors that are not tied to one
    instruction, e.g. a deadlock, which lists every warp's position in the message instead);
    ``source`` the ``path:line:col`` of the instruction's ``.loc`` when the PTX has line info
    (the message then starts with it, in MLIR's diagnostic form: ``path:line:col: error: ...``).
    """

    def __init__(self, message: str, *, line: int | None = None, located: bool = False,
                 source: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.located = located
        self.source = source


def located(msg: str, *, line: int, text: str, where: str = "") -> EmulationError:
    """Build an EmulationError whose message names the line, the instruction and the thread."""
    loc = f"line {line}: `{text}`"
    if where:
        loc += f" ({where})"
    return EmulationError(f"{loc}: {msg}", line=line, located=True)
