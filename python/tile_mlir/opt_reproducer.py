"""tile-opt's crash reproducer, in mlir-opt's format (the bindings' PassManager has no API for it).

--mlir-pass-pipeline-crash-reproducer=FILE: when the pipeline fails (a pass's error, or a bug of ours
that a pass reported as an internal error), FILE gets the IR the pipeline started from, locations
included, and the pipeline, in an `external_resources` block as mlir-opt writes it; with
--mlir-pass-pipeline-local-reproducer, the IR just before the failing pass and that pass alone.
`tile-opt --run-reproducer FILE` runs it again (the block is read, then blanked so that lines keep their
numbers and the parser does not warn about an unknown resource).
"""
from __future__ import annotations

import re

__all__ = ["reproducer_text", "read_reproducer"]

_BLOCK = re.compile(r"\{-#\s*external_resources\s*:\s*\{\s*mlir_reproducer\s*:\s*\{(?P<body>.*?)\}\s*\}\s*#-\}", re.S)
_ENTRY = re.compile(r'(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|true|false)')


def reproducer_text(ir_text: str, pipeline: str, verify_each: bool) -> str:
    quoted = pipeline.replace("\\", "\\\\").replace('"', '\\"')
    return (f"{ir_text.rstrip()}\n\n{{-#\n  external_resources: {{\n    mlir_reproducer: {{\n"
            f"      pipeline: \"builtin.module({quoted})\",\n      disable_threading: true,\n"
            f"      verify_each: {'true' if verify_each else 'false'}\n    }}\n  }}\n#-}}\n")


def read_reproducer(text: str) -> tuple[str, str, bool] | str:
    """(text with the block blanked, pipeline, verify_each), or the reason it is no reproducer."""
    m = _BLOCK.search(text)
    if m is None:
        return "no '{-# external_resources: { mlir_reproducer: {...} } #-}' block in the input"
    entries = {k: v for k, v in _ENTRY.findall(m.group("body"))}
    pipeline = entries.get("pipeline")
    if pipeline is None or not pipeline.startswith('"'):
        return "the mlir_reproducer block has no pipeline string"
    pipeline = re.sub(r"\\(.)", r"\1", pipeline[1:-1])
    blank = re.sub(r"[^\n]", " ", m.group(0))
    return text[:m.start()] + blank + text[m.end():], pipeline, entries.get("verify_each", "true") == "true"
