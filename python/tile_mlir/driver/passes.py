"""The registry of our passes and pipeline aliases, and a pass-pipeline builder that mixes ours with
upstream passes.

Python passes cannot be registered with MLIR's textual pipeline parser, so pipeline text is split
here: elements naming one of our passes become Python passes (PassManager.add(callable)), everything
else goes to the bindings' parser unchanged. Our passes run on builtin.module. Their base class lives
below the pass modules (pass_base.py); this registry above them imports each by name, only when a
pipeline names it, so that `tile-opt --tile-verify` does not load the lowerings at start-up.
"""
from __future__ import annotations

from .. import diagnostics
from ..mlir import MLIRError, passmanager
from .pass_base import CompileOptions, Option, PipelineError, TilePass
from .pass_specs import PIPELINES

__all__ = ["TilePass", "Option", "CompileOptions", "passes", "pass_class", "PIPELINES", "build_pass_manager",
           "pipeline_elements", "single_pass_elements", "split_pipeline", "PipelineError", "run_pass_manager",
           "pass_manager"]


def _tile_verify():
    # (late: each pass's code loads when a pipeline names it)
    from ..dialect.verifier_pass import TileVerifyPass
    return TileVerifyPass


def _lower_copy_async():
    # (late: each pass's code loads when a pipeline names it; tile-opt --tile-verify loads no lowering)
    from ..lowering.copy_async.pass_ import LowerCopyAsyncPass
    return LowerCopyAsyncPass


def _lower_gemm_async():
    # (late: each pass's code loads when a pipeline names it; tile-opt --tile-verify loads no lowering)
    from ..lowering.gemm_async.pass_ import LowerGemmAsyncPass
    return LowerGemmAsyncPass


def _convert_tile_to_nvvm():
    # (late: each pass's code loads when a pipeline names it; tile-opt --tile-lower-copy-async loads no
    # conversion to NVVM)
    from ..lowering.tile_to_nvvm import ConvertTileToNVVMPass
    return ConvertTileToNVVMPass


# argument -> the function importing the pass class (xDSL's registry of import lambdas)
_PASS_CLASSES = {
    "tile-verify": _tile_verify,
    "tile-lower-copy-async": _lower_copy_async,
    "tile-lower-gemm-async": _lower_gemm_async,
    "convert-tile-to-nvvm": _convert_tile_to_nvvm,
}


def pass_class(name: str) -> type[TilePass] | None:
    """Our pass with this argument name, or None."""
    load = _PASS_CLASSES.get(name)
    return load() if load else None


def passes() -> dict[str, type[TilePass]]:
    """All our passes by argument name."""
    return {name: pass_class(name) for name in _PASS_CLASSES}




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
            mine = {k: v for k, v in options.items() if cls is not None and k in cls.OPTIONS}
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
    return pass_manager(pipeline_elements(pipeline), context, verify_each=verify_each)


def pass_manager(elements, context, *, compile_options: CompileOptions | None = None, verify_each: bool = True,
                 made: list | None = None):
    """A PassManager on builtin.module running pipeline `elements`; `compile_options` go to each of our
    passes (as an object, never pasted into pipeline text), options in an element's text override them;
    `made`, a list, receives our pass objects (whose reports the pipeline reads)."""
    with context:
        pm = passmanager.PassManager("builtin.module")
        pm.enable_verifier(verify_each)
        for element in elements:
            name, _, rest = element.partition("{")
            name = name.strip()
            if name in _PASS_CLASSES:
                cls = pass_class(name)
                given = _parse_options(rest.rstrip("}")) if rest else {}
                p = cls(given, compile_options=compile_options)
                if made is not None:
                    made.append(p)
                pm.add(p, name=cls.__name__, argument=name, description=p.description)
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
