"""The stages of a compile, defined once: compile() runs them (pipeline.py), tile-opt's pipeline aliases
--tile-to-nvvm and --tile-to-ptx are spelled from them (passes.py), and Artifact.asm names its IR by
them. Each stage is an object with its own behaviour (`run(comp)`): a pass stage runs its passes over the
Compilation's module and keeps its IR; the nvvm stage also takes the pass's report of dynamic shared memory,
the llvm stage the kernels' LLVM IR when asked, the ptx and cubin stages make their outputs through the
Compilation (pipeline.py), which holds everything that touches MLIR: nothing here imports it.

    parse     text -> builtin.module; ops of dialects the bindings do not register are refused
    verify    tile-verify
    dispatch  tile.copy_async and tile.gemm_async lowered by the variant each dispatch picks
    nvvm      every other tile op lowered: llvm.func kernels of NVVM ops in one gpu.module
    llvm      upstream conversions of what is left (scf, arith, cf) to the LLVM dialect
    ptx       gpu-module-to-binary{format=isa}: LLVM's NVPTX backend, once
    cubin     that PTX assembled by the bindings' embedded ptxas (assemble.py), once
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Stage", "ParseStage", "NvvmStage", "LlvmStage", "PtxStage", "CubinStage", "STAGES", "STAGE_NAMES", "ASM_NAMES", "stage", "passes_through"]


@dataclass(frozen=True)
class Stage:
    """A stage that runs its passes over the module, keeps its IR when asked, then takes what it reports."""

    name: str
    passes: tuple[str, ...]  # pass-pipeline elements (ours or upstream), without options
    what: str  # what failed, in "<what> failed" of a TileError
    description: str
    ir: str = ""  # the name of the IR after this stage in Artifact.asm ("" for none)

    def run(self, comp) -> bool:
        """Run over Compilation `comp`; False with the errors in its engine."""
        if not comp.run_passes(self.passes):
            return False
        comp.keep(self.ir)
        self.after(comp)
        return True

    def after(self, comp) -> None:
        """What the stage takes from its passes (or keeps besides its IR)."""


class ParseStage(Stage):
    def run(self, comp) -> bool:
        raise TypeError("the parse stage makes the module: pipeline.parse(), not Compilation.run")


class NvvmStage(Stage):
    def after(self, comp) -> None:
        comp.dynamic_smem = comp.pass_report("dynamic_smem", 0)  # (convert-tile-to-nvvm's, one per kernel)


class LlvmStage(Stage):
    def after(self, comp) -> None:
        comp.keep_llvm_ir()


class PtxStage(Stage):
    def run(self, comp) -> bool:
        return comp.make_ptx(self)


class CubinStage(Stage):
    def run(self, comp) -> bool:
        return comp.make_cubin()


STAGES: tuple[Stage, ...] = (
    ParseStage("parse", (), "parsing", "tile IR text -> builtin.module (registered dialects and tile only)"),
    Stage("verify", ("tile-verify",), "verification", "the tile verifier", "tile"),
    Stage("dispatch", ("tile-lower-copy-async", "tile-lower-gemm-async"), "lowering",
          "copy_async and gemm_async lowered by the variant the dispatch registry picks", "dispatched"),
    NvvmStage("nvvm", ("convert-tile-to-nvvm",), "lowering", "tile kernels -> llvm.func of NVVM ops in a gpu.module",
              "nvvm"),
    # (the kernel is an llvm.func in a gpu.module by then; convert-to-llvm also keeps the mbarrier
    # predicates that convert-gpu-to-nvvm alone would drop)
    LlvmStage("llvm", ("gpu.module(convert-scf-to-cf,convert-to-llvm)", "reconcile-unrealized-casts"), "lowering",
              "scf/arith/cf -> LLVM dialect", "llvm"),
    PtxStage("ptx", ("gpu-module-to-binary{format=isa}",), "PTX generation", "LLVM NVPTX backend -> PTX", "ptx"),
    CubinStage("cubin", (), "cubin generation (ptxas)", "the PTX assembled by the embedded ptxas"),
)
STAGE_NAMES = tuple(s.name for s in STAGES)
#: the IR Artifact.asm can hold, by name: each stage's IR (MLIR text, or the PTX), "llvmir" (after "llvm":
#: the gpu.module translated to LLVM IR, what libNVVM or LLVM's NVPTX backend is given) and "sass", the
#: cubin disassembled where nvdisasm exists
_IR = tuple(s.ir for s in STAGES if s.ir)
ASM_NAMES = _IR[:_IR.index("llvm") + 1] + ("llvmir",) + _IR[_IR.index("llvm") + 1:] + ("sass",)


def stage(name: str) -> Stage:
    return STAGES[STAGE_NAMES.index(name)]


def passes_through(last: str, first: str = "verify") -> tuple[str, ...]:
    """The pass elements of the stages `first` .. `last`, in order."""
    i, j = STAGE_NAMES.index(first), STAGE_NAMES.index(last)
    return tuple(p for s in STAGES[i:j + 1] for p in s.passes)
