"""compile(): tile IR (text or module) -> Artifact (PTX, cubin, kernel name, signature, launch shape).

Everything runs in process, stage by stage (stages.py, pipeline.py): parse, verify, dispatch, nvvm,
llvm, then gpu-module-to-binary{format=isa} makes the PTX once (LLVM's NVPTX backend) and the
bindings' embedded ptxas assembles that PTX once (assemble.py). Every failure is a diagnostic, and
compile raises TileError carrying them; the process never dies on a user's bad input.

$TILE_MLIR_DUMP_DIR, when set, names a directory where each compile writes its artifact and every
stage's IR (Artifact.save: the one path that writes, never following a symbolic link).
"""
from __future__ import annotations

import contextlib
import gc
import hashlib

from .. import env as _env
from ..artifact import DUMP_DIR_ENV, Artifact
from ..diagnostics import Diagnostic, DiagnosticEngine, TileError, warn_python
from ..errors import ArgumentError, ArgumentTypeError
from ..mlir import ir
from .pass_base import CompileOptions
from .signature import kernel_signature
from ..frontend.source import Source, read_source
from .stages import ASM_NAMES, stage
from ..target import DEFAULT_ARCH, parse_arch
from .pipeline import Compilation, parse, refuse_unregistered
from ..frontend.context import compile_context

__all__ = ["compile", "kernel_signature", "DEFAULT_ARCH", "DUMP_DIR_ENV"]

_KEPT = tuple(n for n in ASM_NAMES if n != "sass")  # what keep= can ask


def _scales_meta(sig) -> dict:
    """meta["scales"]: the parameters feeding block-scaled MMAs' scale factors (signature.py), when any."""
    return {"scales": list(sig["scales"])} if sig.get("scales") else {}


def compile(source, arch: str = DEFAULT_ARCH, *, filename: str | None = None, kernel: str | None = None,
            emit: tuple[str, ...] = ("ptx", "cubin"), keep: tuple[str, ...] = (),
            line_info: bool = False) -> Artifact:
    """Compile a tile module to an Artifact for `arch`.

    `source`: IR text, a path to a file of it (a str naming an existing file, or an os.PathLike),
    UTF-8 bytes, a parsed ir.Module / ir.Operation (compiled as a clone: the caller's module is left
    as it was), or a source.Source (source.read_source says how a str is told apart). `filename`
    names the source in diagnostics (default: the path, else "<tile>"); `kernel` picks the
    tile.kernel when the module has several.
    `emit` chooses the outputs: the PTX (what the emulator runs) and/or the cubin (what a GPU runs);
    LLVM's NVPTX backend runs once either way, and the cubin is that PTX assembled.
    `keep` names the IR to keep in ``artifact.asm``: "tile" (verified), "dispatched", "nvvm", "llvm"
    (MLIR text after those stages), "llvmir" (the kernels' LLVM IR, what the backend is given), "ptx"
    (even when not emitted); ``"all"`` keeps each.
    `line_info` puts `.file`/`.loc` directives naming `filename`'s lines in the PTX (tile-sim reports
    faults at them; jit() asks for it when the kernel runs on tile-sim); the cubin stays as without.
    A bad argument raises ArgumentError (ArgumentTypeError for a wrong type); bad IR, TileError."""
    src = read_source(source)
    if src.module is not None and not isinstance(src.module, (ir.Module, ir.Operation, ir.OpView)):
        raise ArgumentTypeError(f"source must be IR text, a path or an MLIR module, got "
                                f"{type(src.module).__name__}")
    for name, value in (("arch", arch), ("filename", filename), ("kernel", kernel)):
        if not isinstance(value, str) and (value is not None or name == "arch"):
            raise ArgumentTypeError(f"{name} must be a str, got {type(value).__name__}")
    try:
        info = parse_arch(arch)  # once per compile: every pass and stage takes it from CompileOptions
    except ValueError as e:
        raise ArgumentError(str(e)) from None
    if isinstance(emit, str) or not isinstance(emit, (tuple, list)) \
            or not all(isinstance(e, str) for e in emit):
        raise ArgumentTypeError(f"emit must be a tuple naming 'ptx' and/or 'cubin', got {emit!r}")
    unknown = set(emit) - {"ptx", "cubin"}
    if unknown or not emit:
        raise ArgumentError(f"emit must name 'ptx' and/or 'cubin', got {emit!r}")
    keep = _keep_names(keep)
    if not isinstance(line_info, bool):
        raise ArgumentTypeError(f"line_info must be a bool, got {type(line_info).__name__}")
    dump = (_env.get(DUMP_DIR_ENV) or "").strip()
    if dump:
        keep = _KEPT
    if filename is None:
        filename = src.path or "<tile>"
    emit = tuple(emit)
    options = CompileOptions(info, line_info=filename if line_info else None, keep=frozenset(keep),
                             emit=("ptx", *emit) if "ptx" in keep and "ptx" not in emit else emit)
    with _gc_paused():
        art = _compile(src, options, filename, kernel, emit)
    if dump:
        art.save(dump)
    return art


def _keep_names(keep) -> tuple[str, ...]:
    if keep == "all":
        return _KEPT
    if isinstance(keep, str) or not isinstance(keep, (tuple, list)) or not all(isinstance(k, str) for k in keep):
        raise ArgumentTypeError(f"keep must be a tuple naming IR of {_KEPT}, or 'all', got {keep!r}")
    unknown = [k for k in keep if k not in _KEPT]
    if unknown:
        raise ArgumentError(f"keep: no stage IR named {unknown[0]!r}; expected some of {_KEPT} (or 'all')")
    return tuple(keep)


@contextlib.contextmanager
def _gc_paused():
    """Python's cyclic GC off while compiling: the IR wrappers a compile creates are short-lived and
    acyclic, and collections triggered by them cost ~7 ms of a ~45 ms demo compile (measured)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _compile(source: Source, options: CompileOptions, filename: str, kernel: str | None,
             emit: tuple[str, ...]) -> Artifact:
    """The stages over `source` with `options` (made once by compile()); `emit`: the outputs the Artifact
    carries (options.emit adds "ptx" when only kept)."""
    arch = options.arch.arch  # the canonical spelling, in the Artifact and the cache key

    engine = DiagnosticEngine()
    if source.module is None:
        ctx = compile_context()
        text = source.text
    else:
        ctx = source.module.context
        text = ""  # (names come from locations into text: a module built in Python has none)
    engine.attach(ctx)
    try:
        with engine:
            if source.module is None:
                module_op = parse(text, filename, ctx, engine, allow_unregistered=True)
            else:
                with ctx:
                    module_op = source.module.operation.clone()  # the caller's module stays as it was
                    if module_op.name != "builtin.module":  # an op given alone: into a module, as parsing would
                        module = ir.Module.create(loc=module_op.location)
                        module.body.append(module_op)
                        module_op = module.operation
            if module_op is None:
                raise TileError(engine.diagnostics, stage("parse").what)
            refused = refuse_unregistered(module_op, ctx, engine)  # (tile-opt's rule too)
            if refused is not None:
                raise TileError(engine.diagnostics, stage(refused).what)
            comp = Compilation(module_op, ctx, engine, options)

            def run(name):
                if not comp.run(name):
                    raise TileError(engine.diagnostics, stage(name).what)

            run("verify")
            sigs = kernel_signature(module_op, text, filename)
            if kernel is not None:
                sigs = [s for s in sigs if s["name"] == kernel]
            if len(sigs) != 1:
                names = ", ".join(s["name"] for s in kernel_signature(module_op)) or "none"
                raise TileError([Diagnostic("error", f"expected exactly one tile.kernel{' named ' + kernel if kernel else ''}; found: {names}")], "compile")
            sig = sigs[0]
            for name in ("dispatch", "nvvm", "llvm", *(s for s in ("ptx", "cubin") if s in options.emit)):
                run(name)
    finally:
        engine.detach()
    warn_python(engine.diagnostics, stacklevel=4)  # e.g. a copy_async meant as TMA that took cp.async
    key = hashlib.sha256(f"{arch}\0{source.ir_text}".encode()).hexdigest()[:32]
    return Artifact(kernel_name=sig["name"], arch=arch, ptx=comp.ptx if "ptx" in emit else "", cubin=comp.cubin,
                    params=sig["params"], block=sig["block"], grid=sig["grid"], cluster=sig["cluster"],
                    dynamic_smem=comp.dynamic_smem, key=key, meta={"outputs": list(sig["outputs"]),
                                                                    **_scales_meta(sig)},
                    tensor_maps=sig["tensor_maps"], kept=comp.asm)
