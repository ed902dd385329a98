"""tile-opt's crash reproducer, in mlir-opt's format (the bindings' PassManager has no API for it).

--mlir-pass-pipeline-crash-reproducer=FILE: when the pipeline fails (a pass's error, or a bug of ours
that a pass reported as an internal error), FILE gets the IR the pipeline started from, locations
included, and the pipeline, in an `external_resources` block as mlir-opt writes it; with
--mlir-pass-pipeline-local-reproducer, the IR just before the failing pass and that pass alone.
`tile-opt --run-reproducer FILE` runs it again (the block is read, then blanked so that lines keep their
numbers and the parser does not warn about an unknown resource).

A reproducer is a file someone else may have written, so the pipeline it names is not run as a
command line's would be (docs/trust.md, "Reproducers"): every pass must be one of ours (or our
pipeline aliases) or an upstream pass of REPRODUCER_PASSES, a list of passes that only rewrite the IR
in memory (no pass that reads a file, such as transform-interpreter's libraries or nvvm-attach-target's
`l=`, nor one that runs a program, such as gpu-module-to-binary with a toolkit or a format other than
`isa`); each option must be one the list names, its value of the kind it names; anchors are the op
names our IR nests passes on. The block is read in one pass over the text (no backtracking search:
time linear in the input).
"""
from __future__ import annotations

import re
from ..driver.passes import PIPELINES, PipelineError, expand, pass_class

__all__ = ["reproducer_text", "read_reproducer", "check_pipeline", "REPRODUCER_PASSES", "ANCHORS"]

_HEADER = re.compile(r"\{-#\s*external_resources\s*:\s*\{\s*mlir_reproducer\s*:\s*\{")
_WS = re.compile(r"\s*")
_KEY = re.compile(r"[A-Za-z_][\w-]*")
_BARE = re.compile(r"[\w.+-]+")
_NAME = re.compile(r"[A-Za-z_][\w.-]*")

_BOOL = re.compile(r"true|false|1|0")
_INT = re.compile(r"\d{1,9}")
_CHIP = re.compile(r"sm_\d{2,3}[af]?")

#: the op names a reproducer's pipeline may nest passes on
ANCHORS = frozenset({"builtin.module", "gpu.module", "func.func", "llvm.func", "gpu.func"})
#: upstream passes a reproducer may run: each rewrites the IR in memory only (checked by
#: test_trust_reproducer.py to be registered by the bindings); pass -> {option: the values it takes}
REPRODUCER_PASSES: dict[str, dict[str, re.Pattern]] = {
    "canonicalize": {"top-down": _BOOL, "max-iterations": _INT, "max-num-rewrites": _INT,
                     "test-convergence": _BOOL, "region-simplify": re.compile(r"disabled|normal|aggressive")},
    "cse": {},
    "sccp": {},
    "symbol-dce": {},
    "loop-invariant-code-motion": {},
    "control-flow-sink": {},
    "strip-debuginfo": {},
    "convert-scf-to-cf": {},
    "convert-to-llvm": {},
    "convert-arith-to-llvm": {"index-bitwidth": _INT},
    "convert-cf-to-llvm": {"index-bitwidth": _INT},
    "convert-gpu-to-nvvm": {"index-bitwidth": _INT, "has-redux": _BOOL, "use-bare-ptr-memref-call-conv": _BOOL},
    "reconcile-unrealized-casts": {},
    # LLVM's NVPTX backend in process, PTX text out: no ptxas, no toolkit, no files linked
    "gpu-module-to-binary": {"format": re.compile(r"isa")},
    "nvvm-attach-target": {"chip": _CHIP, "O": re.compile(r"[0-3]"), "features": re.compile(r"\+ptx\d{2,3}"),
                           "fast": _BOOL, "ftz": _BOOL},
}
#: the longest pipeline and the deepest nesting a reproducer may give
MAX_PIPELINE_CHARS = 1 << 16
MAX_DEPTH = 8


def reproducer_text(ir_text: str, pipeline: str, verify_each: bool) -> str:
    quoted = pipeline.replace("\\", "\\\\").replace('"', '\\"')
    return (f"{ir_text.rstrip()}\n\n{{-#\n  external_resources: {{\n    mlir_reproducer: {{\n"
            f"      pipeline: \"builtin.module({quoted})\",\n      disable_threading: true,\n"
            f"      verify_each: {'true' if verify_each else 'false'}\n    }}\n  }}\n#-}}\n")


def read_reproducer(text: str) -> tuple[str, str, bool] | str:
    """(text with the block blanked, pipeline, verify_each), or the reason it is no reproducer or
    names a pipeline a reproducer may not run (check_pipeline)."""
    m = _HEADER.search(text)
    if m is None:
        return "no '{-# external_resources: { mlir_reproducer: {...} } #-}' block in the input"
    found = _entries(text, m.end())
    if isinstance(found, str):
        return f"the mlir_reproducer block at offset {m.start()}: {found}"
    entries, end = found
    pipeline = entries.get("pipeline")
    if pipeline is None or not pipeline.startswith('"'):
        return "the mlir_reproducer block has no pipeline string"
    pipeline = re.sub(r"\\(.)", r"\1", pipeline[1:-1], flags=re.S)
    why = check_pipeline(pipeline)
    if why:
        return f"the reproducer's pipeline is not run: {why}"
    blank = re.sub(r"[^\n]", " ", text[m.start():end])
    return text[:m.start()] + blank + text[end:], pipeline, entries.get("verify_each", "true") in ("true", "1")


def _entries(text: str, pos: int) -> tuple[dict[str, str], int] | str:
    """The `key: value` entries from `pos` (just inside `mlir_reproducer: {`) and the offset after
    the block's `#-}`; each character is looked at a bounded number of times."""
    entries: dict[str, str] = {}
    while True:
        pos = _WS.match(text, pos).end()
        if text.startswith("}", pos):
            break
        k = _KEY.match(text, pos)
        if k is None:
            return f"expected an entry name or '}}' at offset {pos}"
        pos = _WS.match(text, k.end()).end()
        if not text.startswith(":", pos):
            return f"expected ':' after '{k.group()}' at offset {pos}"
        pos = _WS.match(text, pos + 1).end()
        if text.startswith('"', pos):
            end = _string_end(text, pos)
            if end < 0:
                return f"the string of '{k.group()}' at offset {pos} is not closed"
        else:
            v = _BARE.match(text, pos)
            if v is None:
                return f"expected a value for '{k.group()}' at offset {pos}"
            end = v.end()
        entries[k.group()] = text[pos:end]
        pos = _WS.match(text, end).end()
        if text.startswith(",", pos):
            pos += 1
    for close in ("}", "}", "#-}"):
        pos = _WS.match(text, pos).end()
        if not text.startswith(close, pos):
            return f"expected '{close}' at offset {pos}"
        pos += len(close)
    return entries, pos


def _string_end(text: str, start: int) -> int:
    """The offset after the string literal opening at `start`, or -1 if it is not closed."""
    pos = start + 1
    while True:
        quote = text.find('"', pos)
        if quote < 0:
            return -1
        slashes = 0
        while text[quote - 1 - slashes] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return quote + 1
        pos = quote + 1


# ----------------------------------------------------------------------------- the pipeline's passes


def check_pipeline(pipeline: str) -> str | None:
    """Why a reproducer may not run `pipeline`, or None: every pass ours or in REPRODUCER_PASSES,
    every option one it lists, with a value of its kind (the text is parsed once, left to right)."""
    if len(pipeline) > MAX_PIPELINE_CHARS:
        return f"it has {len(pipeline)} characters, more than {MAX_PIPELINE_CHARS}"
    try:
        elements, pos = _elements(pipeline, 0, 0)
        if pos != len(pipeline):
            raise _Bad(f"unexpected '{pipeline[pos]}' at offset {pos}")
        if len(elements) == 1 and elements[0][0] == "builtin.module" and elements[0][2] is not None:
            elements = elements[0][2]  # (the reproducer's own anchor)
        for element in elements:
            _check(element, 0)
    except _Bad as e:
        return str(e)
    return None


class _Bad(Exception):
    pass


def _elements(text: str, pos: int, depth: int) -> tuple[list, int]:
    """(name, options text or None, nested elements or None) per element from `pos`, to the end or
    to a ')' that closes the nesting."""
    if depth > MAX_DEPTH:
        raise _Bad(f"passes nested deeper than {MAX_DEPTH}")
    out = []
    pos = _WS.match(text, pos).end()
    if pos == len(text) or text.startswith(")", pos):
        return out, pos  # (an empty pipeline: nothing runs)
    while True:
        pos = _WS.match(text, pos).end()
        n = _NAME.match(text, pos)
        if n is None:
            raise _Bad(f"expected a pass name at offset {pos}")
        pos = _WS.match(text, n.end()).end()
        options = nested = None
        if text.startswith("{", pos):
            close = text.find("}", pos)
            if close < 0:
                raise _Bad(f"the options of '{n.group()}' are not closed")
            options, pos = text[pos + 1:close], close + 1
        elif text.startswith("(", pos):
            nested, pos = _elements(text, pos + 1, depth + 1)
            if not text.startswith(")", pos):
                raise _Bad(f"'{n.group()}(' is not closed")
            pos += 1
        out.append((n.group(), options, nested))
        pos = _WS.match(text, pos).end()
        if not text.startswith(",", pos):
            return out, pos
        pos += 1


def _check(element, depth: int) -> None:
    name, options, nested = element
    if nested is not None:
        if name not in ANCHORS:
            raise _Bad(f"'{name}' is not an op a pass may be nested on (one of {', '.join(sorted(ANCHORS))})")
        for inner in nested:
            _check(inner, depth + 1)
        return
    pairs = _options(name, options or "")

    if name in PIPELINES:
        try:
            inner = expand([f"{name}{{{options}}}" if options else name])
        except PipelineError as e:
            raise _Bad(str(e)) from None
        found = [_elements(e, 0, depth + 1)[0] for e in inner]
        for e in (x for parsed in found for x in parsed):
            _check(e, depth + 1)
        return
    cls = pass_class(name)
    if cls is not None:
        try:
            cls(dict(pairs))  # (our passes read their options when made: unknown or bad is refused)
        except PipelineError as e:
            raise _Bad(str(e)) from None
        return
    allowed = REPRODUCER_PASSES.get(name)
    if allowed is None:
        raise _Bad(f"'{name}' is neither a tile_mlir pass nor an upstream pass a reproducer may run "
                   "(tile_mlir.opt.reproducer.REPRODUCER_PASSES; run it from the command line instead)")
    for key, value in pairs:
        kind = allowed.get(key)
        if kind is None:
            raise _Bad(f"'{name}' option '{key}' is not one a reproducer may give"
                       + (f" (it may give: {', '.join(sorted(allowed))})" if allowed else " (it may give none)"))
        if not kind.fullmatch(value):
            raise _Bad(f"'{name}' option '{key}': value {value[:40]!r} is not one a reproducer may give")


def _options(name: str, text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq or not _KEY.fullmatch(key):
            raise _Bad(f"'{name}': option {item[:40]!r} is not key=value")
        pairs.append((key, value))
    return pairs
