"""The PTX and the cubin of a lowered module, LLVM's NVPTX backend run once.

Both at once (ptx_and_cubin): the CuTe DSL's bindings register cute-module-to-binary, its
gpu-module-to-binary, which writes the PTX it hands to the embedded ptxas to a file
(`dump-ptx-path`): one run of the backend and of ptxas gives both, byte-identical to format=isa's PTX
and format=bin's cubin (measured on the demo). The file is in a private temporary directory, read
back and removed (the folder, made once per process, at exit); its path must be a plain token to go into pipeline text, else (or with the upstream
bindings, which lack the pass) the caller falls back to the two steps below.

PTX -> cubin (assemble), with the ptxas embedded in the MLIR bindings, without running the NVPTX
backend again.

gpu-module-to-binary{format=bin} runs the whole NVPTX backend and then the embedded ptxas; asked for
the PTX and the cubin, the compile used to run it twice (format=isa, then format=bin). Here the PTX
made once is handed to the embedded ptxas through an empty gpu.module whose module-level inline
assembly (`llvm.module_asm`) is that PTX less its header: the backend prints the header (.version,
.target, .address_size, from the same #nvvm.target) and the inline assembly verbatim after it, and
ptxas assembles the result. Measured on the demo: the cubin is byte-identical to format=bin's, in
about a sixth of its time. No other tool, library or process.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import re
import shutil
import tempfile

from ..mlir import binary_pass, gpu, ir, passmanager
from ..frontend.context import make_context

__all__ = ["binaries_of", "assemble", "ptx_and_cubin", "HEADER_DIRECTIVES"]

_ONE_RUN = "cute-module-to-binary"
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./-]+")

# what the backend prints for the empty module itself (PTX ISA, "PTX Module Directives")
HEADER_DIRECTIVES = (".version", ".target", ".address_size")


def binaries_of(module_op) -> list[tuple[str, str, bytes, object]]:
    """(gpu.binary name, format, bytes, target attribute) for each object of each gpu.binary."""
    out = []
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "gpu.binary":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        for obj in op.attributes["objects"]:
            o = gpu.ObjectAttr(obj)  # (gpu: a lazy module; tile-opt --tile-verify imports no gpu dialect)
            fmt = str(o.format).rsplit(".", 1)[-1].lower()
            fmt = {"assembly": "isa", "binary": "bin", "2": "isa", "3": "bin"}.get(fmt, fmt)
            data = o.object
            out.append((name, fmt, data if isinstance(data, bytes) else bytes(data), o.target))
    return out


def assemble(ptx: str, target, context, run_pipeline) -> bytes | None:
    """The cubin of `ptx` for `target` (the #nvvm.target it was made for), or None after an error
    diagnostic; `run_pipeline(pipeline_elements, module_op) -> bool` runs a pass pipeline."""
    body = "\n".join(line for line in ptx.split("\n") if not line.lstrip().startswith(HEADER_DIRECTIVES))
    with context, ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        gmod = ir.Operation.create("gpu.module", attributes={"sym_name": ir.StringAttr.get("ptx"),
                                                             "targets": ir.ArrayAttr.get([target])},
                                   regions=1, ip=ir.InsertionPoint(module.body))
        gmod.regions[0].blocks.append()
        gmod.attributes["llvm.module_asm"] = ir.ArrayAttr.get([ir.StringAttr.get(body)])
    if not run_pipeline((binary_pass("bin"),), module.operation):
        return None
    return b"".join(d for _, f, d, _ in binaries_of(module.operation) if f == "bin")


@functools.cache
def _has_one_run_pass() -> bool:

    with make_context():
        try:
            passmanager.PassManager.parse(f"builtin.module({_ONE_RUN})")
        except ValueError:
            return False
    return True


def ptx_and_cubin(module_op, run_pipeline) -> tuple[str, bytes] | None:
    """(PTX, cubin) of the lowered module in one run, replacing its gpu.module by a gpu.binary; None,
    with the module untouched, where that cannot be done here (see the module docstring); raises
    nothing: a failed run is ("", b"") with the errors in the caller's engine, a PTX not written ("", ...)."""
    if not _has_one_run_pass():
        return None
    path = os.path.join(_folder(), f"{os.getpid()}-{next(_serial)}.ptx")  # (a forked child shares the folder)
    if not _PLAIN_PATH.fullmatch(path):
        return None
    try:
        if not run_pipeline((f"{_ONE_RUN}{{format=bin dump-ptx-path={path}}}",), module_op):
            return "", b""
        try:
            with open(path, encoding="utf-8") as f:
                ptx = f.read()
        except (OSError, UnicodeDecodeError):
            ptx = ""  # (the caller reports it)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return ptx, b"".join(d for _, f, d, _ in binaries_of(module_op) if f == "bin")


_serial = itertools.count()


@functools.cache
def _folder() -> str:
    """This process's private folder for the PTX files (made once: a folder per compile cost up to
    10 ms on a loaded VM, measured), removed at exit."""
    folder = tempfile.mkdtemp(prefix="tile_mlir-ptx-")
    atexit.register(_remove, folder, os.getpid())
    return folder


def _remove(folder: str, owner: int) -> None:
    if os.getpid() == owner:  # (not from a forked child that exits normally)
        shutil.rmtree(folder, ignore_errors=True)
