"""The base of our passes: TilePass, its typed options, and the pipeline error.

A low module: the pass modules (dialect/verifier_pass.py, lowering/**) import it, and the registry that
names them (passes.py) sits above them, so no pass module imports the registry back.
"""
from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Callable, ClassVar

from . import diagnostics
from .errors import TileMLIRError
from .target import DEFAULT_ARCH, ArchInfo, parse_arch

__all__ = ["TilePass", "Option", "PipelineError", "chip_option", "internal_error"]


class PipelineError(TileMLIRError, ValueError):
    """A pipeline, pass name or pass option that cannot run (the message names it)."""


@dataclass(frozen=True)
class Option:
    """A pass option: its help, how its text is read (`parse` raises ValueError naming the problem) and
    the text taken when it is not given (None: the option is absent)."""

    help: str
    parse: Callable[[str], object] = str
    default: str | None = None


def _as_option(spec) -> Option:
    return spec if isinstance(spec, Option) else Option(str(spec))  # a bare help string: a str option


class TilePass:
    """Base of our passes: `run(module_op) -> bool` (False after emitting an error diagnostic).

    `OPTIONS` maps each option's name to an Option (or to its help, for a str option). The options
    are read when the pass is made, that is when its pipeline is built: an unknown name or a value its
    `parse` refuses is one PipelineError, before any IR is touched. `self.options` keeps the text
    given, `self.values` what each option's `parse` made of it (or of its default)."""

    name: ClassVar[str]
    description: ClassVar[str]
    OPTIONS: ClassVar[dict] = {}

    def __init__(self, options: dict[str, str] | None = None):
        self.options = dict(options or {})
        unknown = set(self.options) - set(self.OPTIONS)
        if unknown:
            raise PipelineError(f"pass '{self.name}' has no option(s) {', '.join(sorted(unknown))}")
        self.values: dict[str, object] = {}
        for key, spec in self.OPTIONS.items():
            opt = _as_option(spec)
            text = self.options.get(key, opt.default)
            if text is None:
                continue
            try:
                self.values[key] = opt.parse(text)
            except (ValueError, TypeError) as e:
                raise PipelineError(f"pass '{self.name}': option {key}: {e}") from None

    @classmethod
    def option_help(cls) -> list[tuple[str, str]]:
        """(name, help) of each option, for --help."""
        return [(k, _as_option(v).help) for k, v in cls.OPTIONS.items()]

    def run(self, module_op) -> bool:
        raise NotImplementedError

    def __call__(self, op, pass_) -> None:
        try:
            with op.context, op.location:
                ok = self.run(op)
        except Exception as e:  # a bug in our pass: report it at the module, never as a bare traceback
            diagnostics.error(op, internal_error(f"pass '{self.name}'", e))
            ok = False
        if not ok:
            pass_.signal_pass_failure()


def internal_error(where: str, e: BaseException) -> str:
    """The message of an exception that a bug of ours raised in `where`: its type, text and the line
    that raised it, so that a report can be acted on without a traceback."""
    tb = traceback.extract_tb(e.__traceback__)
    at = f" (at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno})" if tb else ""
    return f"internal error in {where}: {type(e).__name__}: {e}{at}; please report this"


def chip_option(p: TilePass) -> ArchInfo:
    """The target chip of pass `p`: its `chip` option (default DEFAULT_ARCH), checked when the pipeline is
    built, so that a misspelt chip is one pipeline error and never reaches a dispatch predicate."""
    chip = p.values.get("chip")
    if isinstance(chip, ArchInfo):
        return chip
    try:
        return parse_arch(p.options.get("chip", DEFAULT_ARCH))  # an explicit `chip=` is an error, not the default
    except ValueError as e:
        raise PipelineError(f"pass '{p.name}': option chip: {e}") from None
