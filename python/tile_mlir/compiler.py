"""compile(): tile IR (text or module) -> Artifact (PTX, cubin, kernel name, signature, launch shape).

Everything runs in process: our passes, the upstream conversions, and gpu-module-to-binary, whose
libNVVM makes the PTX and whose embedded ptxas makes the cubin. Every failure is a diagnostic, and
compile raises TileError carrying them; the process never dies on a user's bad input.
"""
from __future__ import annotations

import contextlib
import gc
import hashlib

from .artifact import Artifact
from .diagnostics import Diagnostic, DiagnosticEngine, TileError, _from_mlir
from .mlir import MLIRError, ObjectAttr, binary_pass, ir
from .errors import ArgumentError, ArgumentTypeError
from .source import Source, read_source
from .target import DEFAULT_ARCH, parse_arch

from .signature import kernel_signature

__all__ = ["compile", "binaries_of", "kernel_signature", "verify", "lower_to_nvvm", "DEFAULT_ARCH"]


def binaries_of(module_op) -> list[tuple[str, str, bytes]]:
    """(gpu.binary name, format, bytes) for each object of each gpu.binary in the module."""
    out = []
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "gpu.binary":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        for obj in op.attributes["objects"]:
            o = ObjectAttr(obj)
            fmt = str(o.format).rsplit(".", 1)[-1].lower()
            fmt = {"assembly": "isa", "binary": "bin", "2": "isa", "3": "bin"}.get(fmt, fmt)
            data = o.object
            out.append((name, fmt, data if isinstance(data, bytes) else bytes(data)))
    return out


def _run(pipeline: str, module_op, ctx, engine: DiagnosticEngine) -> bool:
    from .passes import PipelineError, build_pass_manager, run_pass_manager

    try:
        pm = build_pass_manager(pipeline, ctx)
    except PipelineError as e:
        engine.emit(Diagnostic("error", str(e)))
        return False
    return run_pass_manager(pm, module_op, ctx, engine)


def _check_targets(module_op, engine) -> bool:
    """gpu-module-to-binary crashes the process on a gpu.module without targets: refuse it first."""
    ok = True
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "gpu.module" and "targets" not in op.attributes:
            engine.emit(Diagnostic.at("error", op, "gpu.module has no #nvvm.target; gpu-module-to-binary needs one"))
            ok = False
    return ok


def verify(module_op, ctx, engine) -> bool:
    """tile-verify: what must hold before anything reads a kernel's attributes or lowers it."""
    return _run("tile-verify", module_op, ctx, engine)


def lower_to_nvvm(module_op, ctx, engine, arch: str) -> bool:
    """Tile IR that verify() accepted -> NVVM/LLVM in a gpu.module for `arch` (ValueError unless
    target.parse_arch knows it: the pipeline text holds only the chip token it returns)."""
    chip = parse_arch(arch).arch
    pipeline = (f"tile-lower-copy-async{{chip={chip}}},tile-lower-gemm-async{{chip={chip}}},"
                f"convert-tile-to-nvvm{{chip={chip}}},"
                "gpu.module(convert-scf-to-cf,convert-to-llvm),reconcile-unrealized-casts")
    return _run(pipeline, module_op, ctx, engine)


def compile(source, arch: str = DEFAULT_ARCH, *, filename: str | None = None, kernel: str | None = None,
            emit: tuple[str, ...] = ("ptx", "cubin")) -> Artifact:
    """Compile a tile module to an Artifact for `arch`.

    `source`: IR text, a path to a file of it (a str naming an existing file, or an os.PathLike),
    UTF-8 bytes, or a parsed ir.Module / ir.Operation (source.read_source says how a str is told
    apart). `filename` names the source in diagnostics (default: the path, else "<tile>"); `kernel`
    picks the tile.kernel when the module has several.
    `emit` chooses the outputs: the PTX (what the emulator runs) and/or the cubin (what a GPU runs).
    Each is a separate gpu-module-to-binary run (libNVVM, plus ptxas for the cubin), so asking for one
    halves the work: the JIT asks only for what its backend needs.
    A bad argument raises ArgumentError (ArgumentTypeError for a wrong type); bad IR, TileError."""
    src = read_source(source)
    if src.module is not None and not isinstance(src.module, (ir.Module, ir.Operation, ir.OpView)):
        raise ArgumentTypeError(f"source must be IR text, a path or an MLIR module, got "
                                f"{type(src.module).__name__}")
    for name, value in (("arch", arch), ("filename", filename), ("kernel", kernel)):
        if not isinstance(value, str) and (value is not None or name == "arch"):
            raise ArgumentTypeError(f"{name} must be a str, got {type(value).__name__}")
    try:
        arch = parse_arch(arch).arch  # the canonical spelling, in the Artifact and the cache key
    except ValueError as e:
        raise ArgumentError(str(e)) from None
    if isinstance(emit, str) or not isinstance(emit, (tuple, list)) \
            or not all(isinstance(e, str) for e in emit):
        raise ArgumentTypeError(f"emit must be a tuple naming 'ptx' and/or 'cubin', got {emit!r}")
    unknown = set(emit) - {"ptx", "cubin"}
    if unknown or not emit:
        raise ArgumentError(f"emit must name 'ptx' and/or 'cubin', got {emit!r}")
    if filename is None:
        filename = src.path or "<tile>"
    with _gc_paused():
        return _compile(src, arch, filename, kernel, tuple(emit))


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


def _compile(source: Source, arch: str, filename: str, kernel: str | None,
             emit: tuple[str, ...]) -> Artifact:
    from .context import first_unregistered_op, make_context, parse_source, unregistered_dialect_error

    engine = DiagnosticEngine()
    if source.module is None:
        ctx = make_context()
        text = source.text
    else:
        ctx = source.module.context
        text = str(source.module)
    engine.attach(ctx)
    try:
        with engine:
            try:
                module_op = parse_source(text, filename, ctx)
            except MLIRError as e:
                for d in e.error_diagnostics:
                    engine.emit(_from_mlir(d))
                raise TileError(engine.diagnostics, "parsing") from None
            # (verified first: the verifier explains an unknown op that uses tile buffers best)
            if not verify(module_op, ctx, engine):
                raise TileError(engine.diagnostics, "verification")
            foreign = first_unregistered_op(module_op, ctx)
            if foreign is not None:
                engine.emit(unregistered_dialect_error(foreign))
                raise TileError(engine.diagnostics, "verification")
            sigs = kernel_signature(module_op, text, filename)
            if kernel is not None:
                sigs = [s for s in sigs if s["name"] == kernel]
            if len(sigs) != 1:
                names = ", ".join(s["name"] for s in kernel_signature(module_op)) or "none"
                raise TileError([Diagnostic("error", f"expected exactly one tile.kernel{' named ' + kernel if kernel else ''}; found: {names}")], "compile")
            sig = sigs[0]
            if not lower_to_nvvm(module_op, ctx, engine, arch) or not _check_targets(module_op, engine):
                raise TileError(engine.diagnostics, "lowering")
            dynamic_smem = _dynamic_smem(module_op)
            ptx, cubin = "", b""
            if "cubin" in emit:
                bin_module = module_op
                if "ptx" in emit:
                    with ctx:
                        bin_module = module_op.clone()
                if not _run(binary_pass("bin"), bin_module, ctx, engine):
                    raise TileError(engine.diagnostics, "cubin generation (ptxas)")
                cubin = b"".join(d for _, f, d in binaries_of(bin_module) if f == "bin")
            if "ptx" in emit:
                if not _run(binary_pass("isa"), module_op, ctx, engine):
                    raise TileError(engine.diagnostics, "PTX generation")
                ptx = b"".join(d for _, f, d in binaries_of(module_op) if f == "isa").decode()
    finally:
        engine.detach()
    key = hashlib.sha256(f"{arch}\0{text}".encode()).hexdigest()[:32]
    return Artifact(kernel_name=sig["name"], arch=arch, ptx=ptx, cubin=cubin, params=sig["params"],
                    block=sig["block"], grid=sig["grid"], cluster=sig["cluster"], dynamic_smem=dynamic_smem,
                    key=key, meta={"outputs": list(sig["outputs"])}, tensor_maps=sig["tensor_maps"])


def _dynamic_smem(module_op) -> int:
    """Bytes of dynamic shared memory the lowered kernel needs (convert-tile-to-nvvm records it)."""
    total = 0
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "gpu.module":
            continue
        for f in op.regions[0].blocks[0].operations:
            if "tile.dynamic_smem" in f.attributes:
                total = max(total, ir.IntegerAttr(f.attributes["tile.dynamic_smem"]).value)
    return total
