"""Named passes and pipelines, and a pass-pipeline builder that mixes ours with upstream passes.

Python passes cannot be registered with MLIR's textual pipeline parser, so pipeline text is split
here: elements naming one of our passes become Python passes (PassManager.add(callable)), everything
else goes to the bindings' parser unchanged. Our passes run on builtin.module.
"""
from __future__ import annotations

import importlib
import traceback
from typing import ClassVar

from . import diagnostics
from .mlir import MLIRError, passmanager
from .target import DEFAULT_ARCH, ArchInfo, parse_arch

__all__ = ["TilePass", "chip_option", "passes", "pass_class", "PIPELINES", "build_pass_manager", "pipeline_elements",
           "single_pass_elements", "split_pipeline", "PipelineError", "run_pass_manager"]


class PipelineError(ValueError):
    pass


class TilePass:
    """Base of our passes: `run(module_op) -> bool` (False after emitting an error diagnostic)."""

    name: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, options: dict[str, str] | None = None):
        self.options = dict(options or {})
        unknown = set(self.options) - set(getattr(self, "OPTIONS", {}))
        if unknown:
            raise PipelineError(f"pass '{self.name}' has no option(s) {', '.join(sorted(unknown))}")

    def run(self, module_op) -> bool:
        raise NotImplementedError

    def __call__(self, op, pass_) -> None:
        try:
            with op.context, op.location:
                ok = self.run(op)
        except Exception as e:  # a bug in our pass: report it at the module, never as a bare traceback
            tb = traceback.extract_tb(e.__traceback__)[-1]
            diagnostics.error(op, f"internal error in pass '{self.name}': {type(e).__name__}: {e} "
                              f"(at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}); please report this")
            ok = False
        if not ok:
            pass_.signal_pass_failure()


def chip_option(p: TilePass) -> ArchInfo:
    """The target chip of pass `p`: its `chip` option (default DEFAULT_ARCH), checked when the pipeline is
    built, so that a misspelt chip is one pipeline error and never reaches a dispatch predicate."""
    try:
        return parse_arch(p.options.get("chip", DEFAULT_ARCH))  # an explicit `chip=` is an error, not the default
    except ValueError as e:
        raise PipelineError(f"pass '{p.name}': option chip: {e}") from None


# argument -> (module, class): a pass's module is imported only when a pipeline names it, so that
# `tile-opt --tile-verify` does not load the lowerings (and their dialect bindings) at start-up.
_PASS_CLASSES = {
    "tile-verify": ("tile_mlir.dialect.verifier_pass", "TileVerifyPass"),
    "tile-lower-copy-async": ("tile_mlir.lowering.copy_async.pass_", "LowerCopyAsyncPass"),
    "tile-lower-gemm-async": ("tile_mlir.lowering.gemm_async.pass_", "LowerGemmAsyncPass"),
    "convert-tile-to-nvvm": ("tile_mlir.lowering.tile_to_nvvm", "ConvertTileToNVVMPass"),
}


def pass_class(name: str) -> type[TilePass] | None:
    """Our pass with this argument name, or None."""
    where = _PASS_CLASSES.get(name)
    return getattr(importlib.import_module(where[0]), where[1]) if where else None


def passes() -> dict[str, type[TilePass]]:
    """All our passes by argument name."""
    return {name: pass_class(name) for name in _PASS_CLASSES}


# Upstream part of the lowering: the kernel is already an llvm.func in a gpu.module by then; what is left
# is arith/scf/cf from the user's program and ours. convert-to-llvm also keeps the mbarrier predicates
# that convert-gpu-to-nvvm alone would drop.
_UPSTREAM_TO_LLVM = "gpu.module(convert-scf-to-cf,convert-to-llvm),reconcile-unrealized-casts"

_TILE_PASSES = "tile-verify,tile-lower-copy-async,tile-lower-gemm-async,convert-tile-to-nvvm,"

PIPELINES: dict[str, tuple[str, str]] = {
    "tile-to-nvvm": (_TILE_PASSES + _UPSTREAM_TO_LLVM,
                     "tile IR to NVVM/LLVM dialect in a gpu.module (verify, dispatch copy_async and gemm_async, lower)"),
    "tile-to-ptx": (_TILE_PASSES + _UPSTREAM_TO_LLVM
                    + ",gpu-module-to-binary{format=isa}",
                    "tile-to-nvvm then gpu-module-to-binary{format=isa}; tile-opt prints the PTX"),
}


def split_pipeline(text: str) -> list[str]:
    """Split a pipeline at top-level commas (not inside (), {} or quotes)."""
    out, depth, cur, quote = [], 0, [], False
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "({":
            depth += 1
        elif not quote and ch in ")}":
            depth -= 1
            if depth < 0:
                raise PipelineError(f"unbalanced ')' or '}}' in pipeline '{text}'")
        if ch == "," and depth == 0 and not quote:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise PipelineError(f"unbalanced '(' or '{{' in pipeline '{text}'")
    last = "".join(cur).strip()
    if last:
        out.append(last)
    return [e for e in out if e]


def _parse_options(text: str) -> dict[str, str]:
    opts = {}
    for item in text.split():
        k, _, v = item.partition("=")
        opts[k] = v
    return opts


def expand(elements: list[str]) -> list[str]:
    """Expand our pipeline aliases. Options given to an alias (`tile-to-ptx{chip=sm_90a}`) go to each of
    its passes that takes them (here: chip to tile-lower-copy-async and convert-tile-to-nvvm)."""
    out = []
    for e in elements:
        name, brace, rest = e.partition("{")
        if name.strip() not in PIPELINES:
            out.append(e)
            continue
        options = _parse_options(rest.rstrip("}")) if brace else {}
        used: set[str] = set()
        for inner in expand(split_pipeline(PIPELINES[name.strip()][0])):
            cls = pass_class(inner.partition("{")[0].strip())
            mine = {k: v for k, v in options.items() if cls is not None and k in getattr(cls, "OPTIONS", {})}
            used |= set(mine)
            out.append(inner + "{" + " ".join(f"{k}={v}" for k, v in mine.items()) + "}" if mine else inner)
        unused = set(options) - used
        if unused:
            raise PipelineError(f"pipeline '{name.strip()}' has no pass taking option(s) {', '.join(sorted(unused))}")
    return out


def pipeline_elements(pipeline: str) -> list[str]:
    """The module-level elements of a pipeline (given with or without `builtin.module(...)`), with our
    pipeline aliases expanded."""
    text = pipeline.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module("):-1]
    return expand(split_pipeline(text))


def single_pass_elements(pipeline: str) -> list[tuple[str, str]]:
    """(label, element) per single pass, nested anchors split (`gpu.module(a,b)` -> `gpu.module(a)`,
    `gpu.module(b)`): what --mlir-print-ir-after-all runs one at a time, since the bindings' IR printing
    instrumentation prints nothing (checked with the bundled LLVM 23 build)."""
    out = []
    for e in pipeline_elements(pipeline):
        name, paren, rest = e.partition("(")
        if paren and "{" not in name and rest.endswith(")"):
            for inner in split_pipeline(rest[:-1]):
                for label, sub in single_pass_elements(inner):
                    out.append((f"{label} ('{name.strip()}' operation)", f"{name.strip()}({sub})"))
        else:
            cls = pass_class(e.partition("{")[0].strip())
            out.append((f"{cls.__name__} ({cls.name})" if cls else e, e))
    return out


def build_pass_manager(pipeline: str, context, *, verify_each: bool = True):
    """A PassManager on builtin.module running `pipeline` (with or without `builtin.module(...)`)."""
    elements = pipeline_elements(pipeline)
    with context:
        pm = passmanager.PassManager("builtin.module")
        pm.enable_verifier(verify_each)
        for element in elements:
            name, _, rest = element.partition("{")
            name = name.strip()
            if name in _PASS_CLASSES:
                options = _parse_options(rest.rstrip("}")) if rest else {}
                p = pass_class(name)(options)
                pm.add(p, name=type(p).__name__, argument=name, description=p.description)
            else:
                if any(f"({n}" in element or f",{n}" in element for n in _PASS_CLASSES):
                    raise PipelineError(f"tile passes run on builtin.module; cannot nest them in '{element}'")
                try:
                    pm.add(element)
                except (ValueError, MLIRError) as e:
                    raise PipelineError(str(e).strip()) from None
    return pm


def run_pass_manager(pm, module_op, context, engine) -> bool:
    """Run pm; a failure's diagnostics end in `engine` (taken from the exception when the handler saw
    none). Returns whether it succeeded without errors."""
    try:
        with context:
            pm.run(module_op)
    except MLIRError as e:
        if not engine.has_errors():
            for d in e.error_diagnostics:
                engine.emit(diagnostics._from_mlir(d))
        if not engine.has_errors():
            engine.emit(diagnostics.Diagnostic("error", f"pass pipeline failed: {e}"))
        return False
    return not engine.has_errors()
