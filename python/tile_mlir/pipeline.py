"""The compile's stages (stages.py) run over one module: what compile() and tile-opt share.

    parse(text, filename, ctx, engine)        the parse stage: the module, or None after errors
    Compilation(module_op, ctx, engine, ...)  the later stages, one call each: run("verify"), ...

Each stage runs its passes (our passes get the compile's options, e.g. chip, as objects) and reports
what it made: after "nvvm" the dynamic shared memory the kernel needs (read from the lowering in this
one place), after "ptx" the PTX and its #nvvm.target, after "cubin" the cubin: the PTX of the ptx
stage assembled (assemble.py), or both from one run (assemble.ptx_and_cubin) when the cubin follows,
or, when no PTX was asked for, gpu-module-to-binary{format=bin} run once on the module (one run of
the NVPTX backend in every case). The IR after a stage is kept (`asm`,
by the names in stages.ASM_NAMES) only when asked. With `line_info`, the PTX carries `.loc`/`.file`
directives (line_info.py) and the cubin is assembled from the PTX without them: the same cubin.
"""
from __future__ import annotations

from .assemble import assemble, binaries_of, ptx_and_cubin
from .context import first_unregistered_op, parse_source, unregistered_dialect_error
from .diagnostics import Diagnostic, _from_mlir
from .line_info import add_line_info, without_line_info
from .mlir import MLIRError, binary_pass, ir, llvm_ir
from .passes import PipelineError, pass_manager, run_pass_manager
from .stages import stage

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
    from .dialect.verifier import verify_module

    with ctx, module_op.location:
        if not verify_module(module_op):
            return "verify"
    engine.emit(unregistered_dialect_error(foreign))
    return "parse"


class Compilation:
    """A module going through the stages after parse; `options` go to our passes that take them."""

    def __init__(self, module_op, ctx, engine, *, options: dict[str, str] | None = None, keep=(),
                 line_info: str | None = None):
        self.module_op, self.ctx, self.engine = module_op, ctx, engine
        self.line_info = line_info  # the file name the PTX's .loc lines name (line_info.py), or None
        self.options = dict(options or {})
        self.keep = frozenset(keep)
        self.asm: dict[str, str] = {}
        self.dynamic_smem = 0
        self.ptx = ""
        self.target = None  # the #nvvm.target the PTX was made for
        self.cubin = b""
        self.fused = False  # the ptx stage made the cubin too (ptx_and_cubin)

    def run(self, name: str, *, then_cubin: bool = False) -> bool:
        """Run stage `name` (not "parse"); False with the errors in the engine. `then_cubin` (for
        "ptx"): the cubin stage follows, so both may come from one run of the backend."""
        st = stage(name)
        if name == "cubin":
            if self.fused:
                return True
            if self.target is None:  # no PTX asked for: one gpu-module-to-binary run makes the cubin
                if not self._check_targets() or not self._passes((binary_pass("bin"),),
                                                                 self.module_op):
                    return False
                self.cubin = b"".join(d for _, f, d, _ in binaries_of(self.module_op) if f == "bin")
                return True
            ptx = without_line_info(self.ptx) if self.line_info is not None else self.ptx
            cubin = assemble(ptx, self.target, self.ctx, self._passes)
            if cubin is None:
                return False
            self.cubin = cubin
            return True
        if name == "ptx":
            if not self._check_targets():
                return False
            if self.line_info is not None:
                with self.ctx:
                    add_line_info(self.module_op, self.line_info)
            elif then_cubin:  # (with line info, the cubin is assembled from the PTX without it)
                both = self._ptx_and_cubin()
                if both is not None:
                    return both
        if not self._passes(st.passes, self.module_op):
            return False
        if name == "nvvm":
            self.dynamic_smem = _dynamic_smem(self.module_op)
        elif name == "ptx":
            isa = [(d, t) for _, f, d, t in binaries_of(self.module_op) if f == "isa"]
            self.ptx = b"".join(d for d, _ in isa).decode()
            self.target = isa[0][1] if isa else None
        if st.ir in self.keep:
            self.asm[st.ir] = self.ptx if name == "ptx" else str(self.module_op)
        if name == "llvm" and "llvmir" in self.keep:
            ops = self.module_op.regions[0].blocks[0].operations
            self.asm["llvmir"] = "\n".join(llvm_ir(op.operation) for op in ops if op.operation.name == "gpu.module")
        return True

    def _ptx_and_cubin(self) -> bool | None:
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
        if "ptx" in self.keep:
            self.asm["ptx"] = self.ptx
        return True

    def _passes(self, elements, module_op) -> bool:
        try:
            pm = pass_manager(elements, self.ctx, options=self.options)
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


def _dynamic_smem(module_op) -> int:
    """Bytes of dynamic shared memory the lowered kernels need: the one reader of the `tile.dynamic_smem`
    attribute that convert-tile-to-nvvm puts on a kernel's llvm.func when its shared buffers exceed the
    static limit (lowering/tile_to_nvvm.py, KernelLowering._plan_shared)."""
    total = 0
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "gpu.module":
            continue
        for f in op.regions[0].blocks[0].operations:
            if "tile.dynamic_smem" in f.attributes:
                total = max(total, ir.IntegerAttr(f.attributes["tile.dynamic_smem"]).value)
    return total
