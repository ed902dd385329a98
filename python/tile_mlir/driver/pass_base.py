"""The base of our passes: TilePass, the compile's options, and the pipeline error.

A low module: the pass modules (dialect/verifier_pass.py, lowering/**) import it, and the registry that
names them (passes.py) sits above them, so no pass module imports the registry back.

`CompileOptions` is what one compile decided, made once (compile() or a pipeline's text) and handed, frozen,
to every pass and stage: the chip as an ArchInfo (parsed once), the PTX features, line info, the IR to keep,
the outputs. A pass made from pipeline text reads its options into a copy of the defaults (`Option.field`
names the field each sets); a pass made by compile() is given the compile's object and reads no text.
"""
from __future__ import annotations

import dataclasses
import traceback
from dataclasses import dataclass
from typing import ClassVar

from .. import diagnostics
from ..errors import TileMLIRError
from ..target import DEFAULT_ARCH, ArchInfo, parse_arch
from .pass_specs import DEFAULT_FEATURES, PASSES, Option, boolean, chip, features

__all__ = ["TilePass", "Option", "PipelineError", "CompileOptions", "DEFAULT_FEATURES", "internal_error",
           "chip", "features", "boolean"]


@dataclass(frozen=True)
class CompileOptions:
    """The options of one compile, read by every pass and stage; never changed once made."""

    arch: ArchInfo  # the target chip (target.parse_arch, once)
    features: str = DEFAULT_FEATURES  # #nvvm.target's PTX features (check_ptx_features)
    all_variants: bool = False  # a dispatch failure lists every variant, not only those of the op's memory pair
    line_info: str | None = None  # the file name the PTX's .loc lines name (line_info.py), or None for none
    keep: frozenset[str] = frozenset()  # the IR to keep (stages.ASM_NAMES)
    emit: tuple[str, ...] = ("ptx", "cubin")  # the outputs asked for

    @staticmethod
    def default() -> "CompileOptions":
        """The options of a pass given none: DEFAULT_ARCH, parsed once per process."""
        return _DEFAULT


_DEFAULT = CompileOptions(parse_arch(DEFAULT_ARCH))


class PipelineError(TileMLIRError, ValueError):
    """A pipeline, pass name or pass option that cannot run (the message names it)."""


def _as_option(spec) -> Option:
    return spec if isinstance(spec, Option) else Option(str(spec))  # a bare help string: a str option


class TilePass:
    """Base of our passes: `run(module_op) -> bool` (False after emitting an error diagnostic).

    `OPTIONS` (for our passes: pass_specs.PASSES[name], by `name`) maps each option's name to an Option (or to its help, for a str option). The options
    are read when the pass is made, that is when its pipeline is built: an unknown name or a value its
    `parse` refuses is one PipelineError, before any IR is touched. `self.options` keeps the text
    given, `self.values` what each option's `parse` made of it, and `self.compile` the CompileOptions the
    pass runs with: `compile_options` (compile()'s, or the defaults) with the fields the text set."""

    name: ClassVar[str]
    description: ClassVar[str]
    OPTIONS: ClassVar[dict] = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        spec = PASSES.get(cls.__dict__.get("name", ""))
        if spec is not None:  # one of ours: what it says of itself lives in pass_specs (tile-opt --help)
            cls.description, cls.OPTIONS = spec.description, spec.options

    def __init__(self, options: dict[str, str] | None = None, *, compile_options: CompileOptions | None = None):
        self.options = dict(options or {})
        unknown = set(self.options) - set(self.OPTIONS)
        if unknown:
            raise PipelineError(f"pass '{self.name}' has no option(s) {', '.join(sorted(unknown))}")
        self.values: dict[str, object] = {}
        fields: dict[str, object] = {}
        for key, text in self.options.items():
            opt = _as_option(self.OPTIONS[key])
            try:
                self.values[key] = opt.parse(text)
            except (ValueError, TypeError) as e:
                raise PipelineError(f"pass '{self.name}': option {key}: {e}") from None
            if opt.field is not None:
                fields[opt.field] = self.values[key]
        base = compile_options or CompileOptions.default()
        self.compile = dataclasses.replace(base, **fields) if fields else base

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

