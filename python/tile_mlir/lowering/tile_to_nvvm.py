"""Pass `convert-tile-to-nvvm`: each tile.kernel becomes an llvm.func kernel in one gpu.module.

Buffers become pointers: global buffers are !llvm.ptr<1> kernel parameters, shared buffers are
llvm.mlir.global objects in address space 3 (aligned as their type says), tensor-memory buffers are the
i32 address that tcgen05.alloc wrote to their slot (lowering/values.py, the one buffer-value converter).
Ops lower to upstream NVVM ops (tcgen05.*, mbarrier.*, fence.*, elect.sync, barrier) plus arith/scf/llvm,
which the upstream passes that follow in the pipeline take to LLVM. copy_async and gemm_async must already
be lowered (the dispatch passes): what they left behind are the converter's casts from our buffers to
pointers/addresses, resolved here.

The pass is a DispatchPass (lowering/dispatch_pass.py): every tile op is lowered by a pattern on MLIR's walk
driver, as the dispatched ops are; a plain op is a dispatch with one variant, registered with @lowers(<class>)
(lowering/nvvm/, one module per op family). A first walk lowers each tile.kernel (its llvm.func, its shared
memory plan, its fences), a second walk over each kernel's function lowers its ops in program order; the
lowered ops are erased at the end of the kernel, users first, since later ops still name the buffers they
defined. The fences the PTX memory model requires are added by lowering.fences from the kernel's traits. The
dynamic shared memory each kernel needs is the pass's result (`dynamic_smem`), read by the pipeline.
"""
from __future__ import annotations

from ..diagnostics import error
from ..dialect.ir_utils import iter_ops, takes_tile_buffers
from ..dialect.ops import DISPATCHED, OP_CLASSES, AllocSharedOp, KernelOp, op_class
from ..dialect.types import BufferType, is_tile_type
from ..mlir import ir, llvm_array_type
from ..driver.pass_base import DEFAULT_FEATURES
from .copy_loop import linear_tid
from .dispatch_pass import DispatchPass, Driver
from .emitter import I8, I32, I64, Emitter
from .errors import LoweringError
from .fences import KernelFences
from .nvvm_ir import gpu_module
from .values import BufferValues

__all__ = ["ConvertTileToNVVMPass", "DEFAULT_FEATURES", "PLAIN_OPS", "KernelLowering"]

_STATIC_SMEM_LIMIT = 48 * 1024
_KERNEL = KernelOp.OPERATION_NAME
# the ops of the second walk: every tile op that is neither dispatched nor the kernel
PLAIN_OPS = tuple(c.OPERATION_NAME for c in OP_CLASSES if c.OPERATION_NAME not in DISPATCHED and c is not KernelOp)


class ConvertTileToNVVMPass(DispatchPass):
    name = "convert-tile-to-nvvm"
    # (its description and options: driver/pass_specs.py)
    WHAT = "lowering"
    REMARKS = False
    STOP_AFTER_ERROR = True  # (the ops after a failed one may use what it did not define)
    OPS = PLAIN_OPS

    def load_variants(self) -> None:
        from . import nvvm  # noqa: F401  (registers the lowerings)

    def run(self, module_op) -> bool:
        self.load_variants()
        self.dynamic_smem = 0  # the most bytes of dynamic shared memory a kernel of the module needs
        kernels = [op.operation for op in module_op.regions[0].blocks[0].operations
                   if op.operation.name == _KERNEL]
        leftovers = [op for op in iter_ops(module_op) if op.name in DISPATCHED]
        if leftovers:
            for op in leftovers:
                error(op, f"'{op.name}' op lowering: not lowered; run {DISPATCHED[op.name].pass_name} first")
            return False
        if not kernels:
            return True
        self._gmod = gpu_module(kernels[0], GPU_MODULE, self.compile.arch.arch, self.compile.features)
        self._kernels: list[KernelLowering] = []
        self._cache: dict = {}  # the emitters' parsed types and attributes, for the pass run
        first = Driver(self, self._cache)
        first.apply(module_op, (_KERNEL,))  # (post-order: each kernel after its body, which is not lowered yet)
        ok = first.ok
        for k in self._kernels:
            if not k.ready:
                continue
            self._current = k
            walk = Driver(self, self._cache)
            walk.apply(k.func, self.OPS)
            if not walk.ok:
                ok = False
                continue
            try:
                k.finish()
            except LoweringError as e:
                error(e.op, f"'{e.op.name}' op lowering: {e}")
                ok = False
                continue
            self.dynamic_smem = max(self.dynamic_smem, k.dynamic_smem)
        if ok:
            module_op.attributes["gpu.container_module"] = ir.UnitAttr.get()
        return ok

    def context(self, op, cache: dict):
        from .nvvm import LoweringCtx  # (late: tile-opt --help loads none of nvvm/'s lowerings)

        if op.name == _KERNEL:
            k = KernelLowering(self._gmod, op, cache)
            k.target = self.target
            self._kernels.append(k)
            return LoweringCtx(k, k.kernel, Emitter(ir.InsertionPoint(self._gmod.regions[0].blocks[0]),
                                                    op.location, cache), self.target)
        cls = op_class(op.name)
        return LoweringCtx(self._current, cls(op), Emitter(ir.InsertionPoint(op), op.location, cache), self.target)

    def lowered(self, op, rewriter) -> None:
        """A kernel: its function is there, so plan it (KernelLowering.prepare); any other op: erased at the
        end of its kernel (KernelLowering.finish)."""
        if op.name == _KERNEL:
            self._kernels[-1].prepare()
        else:
            self._current.lowered.append(op)


GPU_MODULE = "tile_kernels"


class KernelLowering:
    """The lowering of one tile.kernel: what its ops' lowerings share."""

    def __init__(self, gmod, kernel, cache: dict):
        self.gmod = gmod
        self.kernel = kernel = KernelOp(kernel)
        self.body = kernel.regions[0].blocks[0]
        self.sym = kernel.sym_name
        self.block = kernel.block
        self.cluster = kernel.cluster or (1, 1, 1)
        self.buffers = BufferValues()  # tile buffer value -> its lowered value (lowering/values.py)
        self.cache = cache  # the emitters' parsed types and attributes
        self.func = None  # the llvm.func, made by the tile.kernel lowering
        self.shared: dict = {}  # tile.alloc_shared op -> (global's name, byte offset in it)
        self.fences: KernelFences | None = None
        self.lowered: list = []  # the ops lowered, in program order (erased by finish)
        self.dynamic_smem = 0  # bytes of dynamic shared memory (_plan_shared)
        self.ready = False  # prepared: its ops can be lowered
        self.target = None  # the chip's ArchInfo (set by the pass): which instructions the lowerings may use

    def prepare(self) -> None:
        """Once the kernel's function holds its body: the fences it needs, the buffers' users checked,
        every op known, the shared buffers placed."""
        self.fences = KernelFences(self.func)
        tile_ops = [op for op in self.fences.ops if op.name.startswith("tile.")]
        _check_buffer_users(self.body, tile_ops)
        for op in tile_ops:
            if op.name not in PLAIN_OPS:
                raise LoweringError(op, "no lowering for this op (is it a tile op? run tile-verify)")
        self._plan_shared(tile_ops)
        self.ready = True

    def finish(self) -> None:
        """The dispatch passes' casts resolved, the lowered ops erased (users first), the kernel's other
        arguments replaced by the function's, the kernel erased."""
        self.buffers.resolve(self.fences.ops)
        for op in reversed(self.lowered):
            op.erase()
        entry = self.func.regions[0].blocks[0]
        for old, new in zip(self.body.arguments, entry.arguments):
            if BufferType.of(old.type) is None:
                old.replace_all_uses_with(new)
        self.kernel.erase()

    def tid(self, em):
        return linear_tid(em, self.block)

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
        self.dynamic_smem = off

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
