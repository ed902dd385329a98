"""Line info in the PTX: `.file N "name"` and `.loc N line col` directives from the tile IR's locations.

The bindings do not register ensure-debug-info-scope-on-llvm-func, so this does its job: each llvm.func
of the gpu.module gets a #llvm.di_subprogram scope (its location fused with it), in a compile unit of
emission kind DebugDirectivesOnly, the kind LLVM keeps for NVPTX: the backend then prints `.loc` before
the instructions of each tile IR line and one `.file`, and no DWARF sections (`.target` keeps no
`debug`). Measured on the demo: the PTX less its `.loc`/`.file` lines is byte-identical to the PTX made
without line info, so the cubin is assembled from that stripped PTX (without_line_info) and stays
byte-identical too. LLVM 22's backend (the upstream provider) prints, with the same directives, the
labels `$L__func_begin0:`, `$L__tmp0:`, `$L__func_end0:` that they could refer to and an empty
`.section .debug_macinfo { }`; without_line_info drops those as well (its cubin is byte-identical too).
"""
from __future__ import annotations

import re

from ..mlir import ir
from ..diagnostics import _file_line_col

__all__ = ["add_line_info", "without_line_info", "LINE_DIRECTIVES"]

LINE_DIRECTIVES = (".loc", ".file")  # PTX ISA, "Debugging Directives"
# what LLVM 22 prints with the directives: labels for them, and an empty debug section
_DEBUG_ONLY = re.compile(r"\$L__(?:func_begin|func_end|tmp)\d+:|\.section\s+\.debug_\w+\s*\{\s*\}")
_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F)) - {'"', "\\"}


def _ptx_file_name(filename: str) -> str:
    """The name `.file` gives: the diagnostics' file name when PTX can hold it as a plain string."""
    return filename if filename and set(filename) <= _PLAIN else "<tile>"


def add_line_info(module_op, filename: str) -> None:
    """Give every llvm.func in the module's gpu.modules a debug scope in file `filename`."""
    f = ir.StringAttr.get(_ptx_file_name(filename))  # (printed quoted and escaped, never pasted)
    file = f"#llvm.di_file<{f} in \"\">"
    unit = (f"#llvm.di_compile_unit<id = distinct[0]<>, sourceLanguage = DW_LANG_C, file = {file}, "
            f"producer = \"tile_mlir\", isOptimized = true, emissionKind = DebugDirectivesOnly>")
    for gmod in module_op.regions[0].blocks[0].operations:
        if gmod.operation.name != "gpu.module":
            continue
        for fn in gmod.regions[0].blocks[0].operations:
            fn = fn.operation
            if fn.name != "llvm.func" or not fn.regions[0].blocks:
                continue
            name = ir.StringAttr(fn.attributes["sym_name"])
            scope = ir.Attribute.parse(
                f"#llvm.di_subprogram<id = distinct[1]<>, compileUnit = {unit}, scope = {file}, name = {name}, "
                f"linkageName = {name}, file = {file}, line = {_line(fn.location)}, scopeLine = {_line(fn.location)}, "
                "subprogramFlags = \"Definition|Optimized\", "
                "type = #llvm.di_subroutine_type<callingConvention = DW_CC_normal>>")
            fn.location = ir.Location.fused([fn.location], scope)


def _line(loc) -> int:

    # 0 for an unknown location: the backend prints `.loc 1 0 0`, no source line (PTX ISA / DWARF), where
    # line 1 made every instruction of a module built without locations claim the tile IR's line 1
    return _file_line_col(loc)[1]


def without_line_info(ptx: str) -> str:
    """The PTX less its `.loc` and `.file` lines (and what a backend prints only for them)."""
    return "\n".join(line for line in ptx.split("\n")
                     if not line.lstrip().startswith(LINE_DIRECTIVES) and not _DEBUG_ONLY.fullmatch(line.strip()))
