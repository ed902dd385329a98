"""Pass `convert-tile-to-nvvm`: each tile.kernel becomes an llvm.func kernel in one gpu.module.

Buffers become pointers: global buffers are !llvm.ptr<1> kernel parameters, shared buffers are
llvm.mlir.global objects in address space 3 (aligned as their type says), tensor-memory buffers are the
i32 address that tcgen05.alloc wrote to their slot. Ops lower to upstream NVVM ops (tcgen05.*,
mbarrier.*, fence.*, elect.sync, barrier) plus arith/scf/llvm, which the upstream passes that follow in
the pipeline take to LLVM. copy_async must already be lowered (tile-lower-copy-async): what it left
behind are unrealized casts from our buffers to pointers/addresses, resolved here.

Each tile op class has one lowering function, registered with @lowers(<class>) in LOWERINGS (lowering/nvvm/,
one module per op family) and called as fn(k, op, em): k is the KernelLowering of the op's kernel, op the
op's typed view, em an Emitter before the op. The ops lowered by a dispatch pass (Dispatched trait) must be
gone by then. The fences the PTX memory model requires are added by lowering.fences from the kernel's traits.
"""
from __future__ import annotations

from ..diagnostics import error
from ..dialect.ir_utils import BUFFER_CAST, iter_ops, takes_tile_buffers
from ..dialect.ops import DISPATCHED, AllocSharedOp, KernelOp, op_class
from ..dialect.types import BufferType, is_tile_type
from ..mlir import ir, llvm_array_type
from ..pass_base import PipelineError, TilePass, chip_option
from ..target import DEFAULT_ARCH, check_ptx_features
from .copy_loop import linear_tid
from .emitter import I8, I32, I64, Emitter
from .fences import KernelFences
from .nvvm import LOWERINGS, LoweringError, lowers

__all__ = ["ConvertTileToNVVMPass", "DEFAULT_FEATURES", "LOWERINGS", "lowers"]

# PTX ISA 8.8: the bundled ptxas accepts it; without it libNVVM emits .version 9.4
DEFAULT_FEATURES = "+ptx88"
_STATIC_SMEM_LIMIT = 48 * 1024
GPU_MODULE = "tile_kernels"


class ConvertTileToNVVMPass(TilePass):
    name = "convert-tile-to-nvvm"
    description = f"Lower tile kernels to llvm.func kernels of NVVM ops in a gpu.module (chip={DEFAULT_ARCH})"
    OPTIONS = {"chip": "target chip, e.g. sm_100a or sm_90a", "features": "PTX features, default +ptx88"}

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.target = chip_option(self)
        try:  # (chip and features go into #nvvm.target, and on to libNVVM: both checked tokens)
            self.features = check_ptx_features(self.options.get("features") or DEFAULT_FEATURES)
        except ValueError as e:
            raise PipelineError(f"pass '{self.name}': option features: {e}") from None

    def run(self, module_op) -> bool:
        kernels = [op.operation for op in module_op.regions[0].blocks[0].operations
                   if op.operation.name == KernelOp.OPERATION_NAME]
        leftovers = [op for op in iter_ops(module_op) if op.name in DISPATCHED]
        if leftovers:
            for op in leftovers:
                error(op, f"'{op.name}' op lowering: not lowered; run {DISPATCHED[op.name].pass_name} first")
            return False
        ok = True
        gmod = _gpu_module(kernels[0], self.target.arch, self.features) if kernels else None
        for k in kernels:
            try:
                KernelLowering(gmod, k).run()
            except LoweringError as e:
                error(e.op, f"'{e.op.name}' op lowering: {e}")
                ok = False
        if kernels and ok:
            module_op.attributes["gpu.container_module"] = ir.UnitAttr.get()
        return ok


def _gpu_module(before, chip: str, features: str):
    """The gpu.module that holds every kernel (one PTX module, one cubin), inserted before op `before`."""
    # The bindings have no builder for #nvvm.target: its two parameters, tokens of target.py's grammars
    # (chip_option, check_ptx_features), are printed by StringAttr (quoted and escaped), never pasted.
    target = ir.Attribute.parse(f"#nvvm.target<chip = {ir.StringAttr.get(chip)}, "
                                f"features = {ir.StringAttr.get(features)}>")
    gmod = ir.Operation.create("gpu.module", attributes={"sym_name": ir.StringAttr.get(GPU_MODULE),
                                                         "targets": ir.ArrayAttr.get([target])},
                               regions=1, ip=ir.InsertionPoint(before))
    gmod.regions[0].blocks.append()
    return gmod


class KernelLowering:
    """The lowering of one tile.kernel: what its ops' lowerings share."""

    def __init__(self, gmod, kernel):
        self.gmod = gmod
        self.kernel = kernel = KernelOp(kernel)
        self.sym = kernel.sym_name
        self.block = kernel.block
        self.cluster = kernel.cluster or (1, 1, 1)
        self.values: dict = {}  # tile value -> lowered value (pointer / i32 address)
        self.cache: dict = {}  # the emitters' parsed types and attributes
        self.func = None  # the llvm.func, made by the tile.kernel lowering
        self.shared: dict = {}  # tile.alloc_shared op -> (global's name, byte offset in it)
        self.fences: KernelFences | None = None

    def run(self):
        kernel = self.kernel
        body = kernel.regions[0].blocks[0]
        LOWERINGS[KernelOp](self, kernel, Emitter(ir.InsertionPoint(self.gmod.regions[0].blocks[0]),
                                                       kernel.location, self.cache))
        entry = self.func.regions[0].blocks[0]
        self.fences = KernelFences(self.func)
        all_ops = self.fences.ops
        # lower tile ops in program order; erase afterwards, users first
        tile_ops = [op for op in all_ops if op.name.startswith("tile.")]
        _check_buffer_users(body, tile_ops)
        self._plan_shared(tile_ops)
        for op in tile_ops:
            cls = op_class(op.name)
            lower = LOWERINGS.get(cls)
            if lower is None:
                raise LoweringError(op, "no lowering for this op (is it a tile op? run tile-verify)")
            lower(self, cls(op), Emitter(ir.InsertionPoint(op), op.location, self.cache))
        self._resolve_casts([op for op in all_ops if op.name == BUFFER_CAST])
        for op in reversed(tile_ops):
            op.erase()
        for old, new in zip(body.arguments, entry.arguments):
            if BufferType.of(old.type) is None:
                old.replace_all_uses_with(new)
        kernel.erase()

    def tid(self, em):
        return linear_tid(em, self.block)

    def _resolve_casts(self, casts):
        """Casts of our buffers left by tile-lower-copy-async: replace them with the lowered value. (The
        lowerings create no casts: those of the program are all there are.)"""
        for op in casts:
            operands = list(op.operands)
            if len(operands) != 1:
                continue
            source, = operands
            new = self.values.get(source)
            if new is None:
                continue
            result = op.results[0]
            if new.type != result.type:
                raise LoweringError(op, f"cast of a buffer to {result.type}, lowered as {new.type}")
            result.replace_all_uses_with(new)
            op.erase()

    def _plan_shared(self, tile_ops) -> None:
        """Place every shared buffer: static globals while they fit in 48 KB (the static limit), else all
        of them at aligned offsets of one dynamic `extern .shared` array (the launch then passes
        dynamic_smem bytes and, above 48 KB, opts in with cuFuncSetAttribute)."""
        bufs = []
        for op in tile_ops:
            if op.name == AllocSharedOp.OPERATION_NAME:
                bt = BufferType.of(AllocSharedOp(op).result.type)
                inner = bt.layout.inner
                nbytes = max(1, bt.storage_bytes(inner.span()))
                if inner is not bt.layout:  # a swizzle moves 16-byte chunks within their 128-byte line
                    nbytes = -(-nbytes // 128) * 128
                # LLVM's NVPTX load/store vectorizer widens a run of scalar loads to an aligned vector that
                # may reach past the last element (5 x 7 f32: v4 at byte 128; 3 f16: v4.b16): a power of
                # two up to 16 bytes, whole 16-byte chunks beyond
                nbytes = 1 << (nbytes - 1).bit_length() if nbytes <= 16 else -(-nbytes // 16) * 16
                bufs.append((op, nbytes, max(bt.align or 16, 16)))
        if sum(n for _, n, _ in bufs) <= _STATIC_SMEM_LIMIT:
            for i, (op, nbytes, align) in enumerate(bufs):
                name = f"{self.sym}_smem{i}"
                self._shared_global(name, "internal", nbytes, align)
                self.shared[op] = (name, 0)
            return
        name = f"{self.sym}_dynsmem"
        self._shared_global(name, "external", 0, 1024)
        off = 0
        for op, nbytes, align in sorted(bufs, key=lambda b: -b[2]):  # largest alignment first: no padding
            off = (off + align - 1) // align * align
            self.shared[op] = (name, off)
            off += nbytes
        self.func.attributes["tile.dynamic_smem"] = ir.IntegerAttr.get(I32(), off)

    def _shared_global(self, name: str, linkage: str, nbytes: int, align: int) -> None:
        """llvm.mlir.global <linkage> @name() {addr_space = 3, alignment = align} : !llvm.array<nbytes x i8>,
        before the kernel's function."""
        ir.Operation.create("llvm.mlir.global", attributes={
            "sym_name": ir.StringAttr.get(name), "linkage": ir.Attribute.parse(f"#llvm.linkage<{linkage}>"),
            "global_type": ir.TypeAttr.get(llvm_array_type(I8(), nbytes)),
            "addr_space": ir.IntegerAttr.get(I32(), 3), "alignment": ir.IntegerAttr.get(I64(), align),
            "unnamed_addr": ir.IntegerAttr.get(I64(), 0),  # (none, spelled out as the parser does)
        }, regions=1, loc=self.kernel.location, ip=ir.InsertionPoint(self.func))


def _check_buffer_users(body, tile_ops) -> None:
    """Only the ops allowed to (ir_utils.takes_tile_buffers) may use tile buffers: the tile ops are
    erased once lowered, and another op still using their buffers would dangle (and crash the
    process). tile-verify reports these; this guards pipelines run without it."""
    buffers = [a for a in body.arguments if is_tile_type(a.type)]
    buffers += [r for op in tile_ops for r in op.results if is_tile_type(r.type)]
    for v in buffers:
        for use in v.uses:
            user = use.owner.operation
            if not takes_tile_buffers(user.name):
                raise LoweringError(user, "uses a tile buffer, which only tile ops take (run tile-verify)")
