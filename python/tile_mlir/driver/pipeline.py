"""The compile's stages (stages.py) run over one module: what compile() and tile-opt share.

    parse(text, filename, ctx, engine)        the parse stage: the module, or None after errors
    Compilation(module_op, ctx, engine, options)  the later stages, one call each: run("verify"), ...

Each stage (stages.py) runs its passes (ours get the compile's CompileOptions, as an object) and reports
what it made: after "nvvm" the dynamic shared memory the kernels need (convert-tile-to-nvvm's report,
read from the pass, never from the IR), after "ptx" the PTX and its #nvvm.target, after "cubin" the
cubin: the PTX of the ptx stage assembled (assemble.py), or both from one run (assemble.ptx_and_cubin)
when the cubin is asked for too, or, when no PTX was asked for, gpu-module-to-binary{format=bin} run once
on the module (one run of the NVPTX backend in every case). The IR after a stage is kept (`asm`, by the
names in stages.ASM_NAMES) only when the options ask. With `line_info`, the PTX carries `.loc`/`.file`
directives (line_info.py) and the cubin is assembled from the PTX without them: the same cubin.
"""
from __future__ import annotations

from .assemble import assemble, binaries_of, ptx_and_cubin
from ..frontend.context import first_unregistered_op, parse_source, unregistered_dialect_error
from ..diagnostics import Diagnostic, _from_mlir
from .line_info import add_line_info, without_line_info
from ..mlir import MLIRError, binary_pass, llvm_ir
from .pass_base import CompileOptions
from .passes import PipelineError, pass_manager, run_pass_manager
from .stages import stage
from ..dialect.verifier import verify_module

__all__ = ["parse", "Compilation"]


def parse(text: str, filename: str, ctx, engine, *, allow_unregistered: bool = False):
    """The parse stage: `text` as a builtin.module, or None with the errors in `engine`. Ops of a
    dialect the context does not register are refused (refuse_unregistered) unless
    `allow_unregistered`."""
    try:
        module_op = parse_source(text, filename, ctx)
    except MLIRError as e:
        if not engine.has_errors():  # the handler saw nothing: take them from the exception
            for d in e.error_diagnostics:
                engine.emit(_from_mlir(d))
        return None
    return module_op if allow_unregistered or refuse_unregistered(module_op, ctx, engine) is None else None


def refuse_unregistered(module_op, ctx, engine) -> str | None:
    """None when no op of the module belongs to a dialect the context does not register (the tile
    namespace is the verifier's); else, with errors in `engine`, the stage that refused it: "verify"
    when the tile verifier explains it (an unknown op using tile buffers: "did you mean 'tile.copy'?"),
    else "parse" with mlir-opt's unregistered-dialect error. compile() and tile-opt both ask here."""
    foreign = first_unregistered_op(module_op, ctx)
    if foreign is None:
        return None

    with ctx, module_op.location:
        if not verify_module(module_op):
            return "verify"
    engine.emit(unregistered_dialect_error(foreign))
    return "parse"


class Compilation:
    """A module going through the stages after parse, with the compile's CompileOptions (handed to each of
    our passes, as an object). Each stage's behaviour is the stage's (stages.py); what they need that
    touches MLIR is here."""

    def __init__(self, module_op, ctx, engine, options: CompileOptions | None = None):
        self.module_op, self.ctx, self.engine = module_op, ctx, engine
        self.options = options or CompileOptions.default()
        self.asm: dict[str, str] = {}
        self.dynamic_smem = 0
        self.ptx = ""
        self.target = None  # the #nvvm.target the PTX was made for
        self.cubin = b""
        self.fused = False  # the ptx stage made the cubin too (ptx_and_cubin)
        self._made: list = []  # our passes of the last stage run, for their reports (pass_report)

    def run(self, name: str) -> bool:
        """Run stage `name` (not "parse"); False with the errors in the engine."""
        return stage(name).run(self)

    # -- what the stages ask ------------------------------------------------------------------------
    def run_passes(self, elements) -> bool:
        return self._passes(elements, self.module_op)

    def pass_report(self, name: str, default):
        """Attribute `name` of the last stage's pass that has it (a pass's result, e.g. the dynamic shared
        memory convert-tile-to-nvvm found), else `default`."""
        for p in reversed(self._made):
            if hasattr(p, name):
                return getattr(p, name)
        return default

    def keep(self, ir_name: str, text: str | None = None) -> None:
        """Keep `text` (default: the module's IR) as `ir_name` when the options ask for it."""
        if ir_name and ir_name in self.options.keep:
            self.asm[ir_name] = str(self.module_op) if text is None else text

    def keep_llvm_ir(self) -> None:
        if "llvmir" in self.options.keep:
            ops = self.module_op.regions[0].blocks[0].operations
            self.asm["llvmir"] = "\n".join(llvm_ir(op.operation) for op in ops if op.operation.name == "gpu.module")

    def make_ptx(self, st) -> bool:
        """The ptx stage: gpu-module-to-binary{format=isa}, or PTX and cubin from one run of the backend when
        the cubin is asked for too (and no line info is: then the cubin is assembled from the PTX without it)."""
        if not self._check_targets():
            return False
        if self.options.line_info is not None:
            with self.ctx:
                add_line_info(self.module_op, self.options.line_info)
        elif "cubin" in self.options.emit:
            both = self._ptx_and_cubin(st)
            if both is not None:
                return both
        if not self._passes(st.passes, self.module_op):
            return False
        isa = [(d, t) for _, f, d, t in binaries_of(self.module_op) if f == "isa"]
        self.ptx = b"".join(d for d, _ in isa).decode()
        self.target = isa[0][1] if isa else None
        self.keep(st.ir, self.ptx)
        return True

    def make_cubin(self) -> bool:
        """The cubin stage: made already with the PTX, or that PTX assembled, or (no PTX asked for) one
        gpu-module-to-binary{format=bin} run on the module."""
        if self.fused:
            return True
        if self.target is None:  # no PTX asked for: one gpu-module-to-binary run makes the cubin
            if not self._check_targets() or not self._passes((binary_pass("bin"),), self.module_op):
                return False
            self.cubin = b"".join(d for _, f, d, _ in binaries_of(self.module_op) if f == "bin")
            return True
        ptx = without_line_info(self.ptx) if self.options.line_info is not None else self.ptx
        cubin = assemble(ptx, self.target, self.ctx, self._passes)
        if cubin is None:
            return False
        self.cubin = cubin
        return True

    def _ptx_and_cubin(self, st) -> bool | None:
        targets = [op.operation.attributes["targets"] for op in self.module_op.regions[0].blocks[0].operations
                   if op.operation.name == "gpu.module"]
        got = ptx_and_cubin(self.module_op, self._passes)
        if got is None:
            return None
        self.ptx, self.cubin = got
        if not self.ptx:
            if not self.engine.has_errors():
                self.engine.emit(Diagnostic("error", "cute-module-to-binary wrote no PTX"))
            return False
        self.fused = True
        self.target = targets[0][0] if targets else None
        self.keep(st.ir, self.ptx)
        return True

    def _passes(self, elements, module_op) -> bool:
        self._made = []
        try:
            pm = pass_manager(elements, self.ctx, compile_options=self.options, made=self._made)
        except PipelineError as e:
            self.engine.emit(Diagnostic("error", str(e)))
            return False
        return run_pass_manager(pm, module_op, self.ctx, self.engine)

    def _check_targets(self) -> bool:
        """gpu-module-to-binary crashes the process on a gpu.module without targets: refuse it first."""
        ok = True
        for op in self.module_op.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "gpu.module" and "targets" not in op.attributes:
                self.engine.emit(Diagnostic.at("error", op, "gpu.module has no #nvvm.target; "
                                               "gpu-module-to-binary needs one"))
                ok = False
        return ok

