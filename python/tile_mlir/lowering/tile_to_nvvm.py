"""Pass `convert-tile-to-nvvm`: each tile.kernel becomes an llvm.func kernel in one gpu.module.

Buffers become pointers: global buffers are !llvm.ptr<1> kernel parameters, shared buffers are
llvm.mlir.global objects in address space 3 (aligned as their type says), tensor-memory buffers are the
i32 address that tcgen05.alloc wrote to their slot. Ops lower to upstream NVVM ops (tcgen05.*,
mbarrier.*, fence.*, elect.sync, barrier) plus arith/scf/llvm, which the upstream passes that follow in
the pipeline take to LLVM. copy_async must already be lowered (tile-lower-copy-async): what it left
behind are unrealized casts from our buffers to pointers/addresses, resolved here.

Each tile op has one lowering function, registered with @lowers("tile.<op>") in LOWERINGS and called
as fn(k, op, em): k is the KernelLowering of the op's kernel, em an Emitter before the op. The fences
the PTX memory model requires are added by lowering.fences from the kernel's traits.
"""
from __future__ import annotations

from typing import Callable

from ..diagnostics import error
from ..dialect.ir_utils import BUFFER_CAST, iter_ops, takes_tile_buffers
from ..dialect.ops import SUBVIEW_DYNAMIC, subview_strides
from ..dialect.ops import attr_value as attr
from ..dialect.types import BufferType, is_tile_type
from ..mlir import ir, llvm_array_type, llvm_function_type, operand_segments
from ..passes import PipelineError, TilePass, chip_option
from ..target import DEFAULT_ARCH, check_ptx_features
from . import registers
from .address import group_runs, vector_bytes
from .copy_async.tcgen05_ldst_plan import instruction_registers
from .copy_loop import GROUP, copy_types, emit_copy_loop, emit_group_copy, linear_tid, scope_rank, sliced_layouts
from .emitter import I1, I8, I32, I64, Emitter, int_type
from .fences import KernelFences, proxy_fence, tcgen05_fence

__all__ = ["ConvertTileToNVVMPass", "DEFAULT_FEATURES", "LOWERINGS", "lowers"]

# PTX ISA 8.8: the bundled ptxas accepts it; without it libNVVM emits .version 9.4
DEFAULT_FEATURES = "+ptx88"
_STATIC_SMEM_LIMIT = 48 * 1024
GPU_MODULE = "tile_kernels"

LOWERINGS: dict[str, Callable] = {}  # tile op name -> its lowering function (k, op, em)
# ops lowered by their dispatch passes, which must run before this one
_DISPATCHED = {"tile.copy_async": "tile-lower-copy-async", "tile.gemm_async": "tile-lower-gemm-async",
               "tile.gemm_async.block_scale": "tile-lower-gemm-async"}


def lowers(name: str):
    """Register the decorated function as the lowering of tile op `name`."""
    def register(fn):
        if name in LOWERINGS:
            raise ValueError(f"{name} has two lowerings: {LOWERINGS[name].__name__} and {fn.__name__}")
        LOWERINGS[name] = fn
        return fn

    return register


class LoweringError(Exception):
    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op


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
                   if op.operation.name == "tile.kernel"]
        leftovers = [op for op in iter_ops(module_op) if op.name in _DISPATCHED]
        if leftovers:
            for op in leftovers:
                error(op, f"'{op.name}' op lowering: not lowered; run {_DISPATCHED[op.name]} first")
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
        self.kernel = kernel
        self.sym = attr(kernel, "sym_name")
        self.block = attr(kernel, "block")
        self.cluster = attr(kernel, "cluster") or (1, 1, 1)
        self.values: dict = {}  # tile value -> lowered value (pointer / i32 address)
        self.cache: dict = {}  # the emitters' parsed types and attributes
        self.func = None  # the llvm.func, made by the tile.kernel lowering
        self.shared: dict = {}  # tile.alloc_shared op -> (global's name, byte offset in it)
        self.fences: KernelFences | None = None

    def run(self):
        kernel = self.kernel
        body = kernel.regions[0].blocks[0]
        LOWERINGS["tile.kernel"](self, kernel, Emitter(ir.InsertionPoint(self.gmod.regions[0].blocks[0]),
                                                       kernel.location, self.cache))
        entry = self.func.regions[0].blocks[0]
        self.fences = KernelFences(self.func)
        all_ops = self.fences.ops
        # lower tile ops in program order; erase afterwards, users first
        tile_ops = [op for op in all_ops if op.name.startswith("tile.")]
        _check_buffer_users(body, tile_ops)
        self._plan_shared(tile_ops)
        for op in tile_ops:
            lower = LOWERINGS.get(op.name)
            if lower is None:
                raise LoweringError(op, "no lowering for this op (is it a tile op? run tile-verify)")
            lower(self, op, Emitter(ir.InsertionPoint(op), op.location, self.cache))
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
            if len(op.operands) != 1:
                continue
            new = self.values.get(op.operands[0])
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
            if op.name == "tile.alloc_shared":
                bt = BufferType.of(op.results[0].type)
                inner = getattr(bt.layout, "inner", bt.layout)
                nbytes = max(1, bt.storage_bytes(inner.span()))
                if inner is not bt.layout:  # a swizzle moves 16-byte chunks within their 128-byte line
                    nbytes = -(-nbytes // 128) * 128
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


# -- kernel ------------------------------------------------------------------------------------------
@lowers("tile.kernel")
def _kernel(k, op, em):
    """An llvm.func kernel at em's insertion point (the end of the gpu.module) with op's body moved into
    its entry block; buffer parameters become !llvm.ptr<1>, and each tile.tensor_map one more parameter
    after them (_tensor_map_param_attrs)."""
    body = op.regions[0].blocks[0]
    params = [em.ptr(1) if BufferType.of(a.type) is not None else a.type for a in body.arguments]
    maps = [inner for inner in body.operations if inner.operation.name == "tile.tensor_map"]
    params += [em.ptr(0)] * len(maps)
    attrs = {"sym_name": ir.StringAttr.get(k.sym),
             "function_type": ir.TypeAttr.get(llvm_function_type(ir.Type.parse("!llvm.void"), params)),
             "gpu.kernel": ir.UnitAttr.get(), "nvvm.kernel": ir.UnitAttr.get(),
             "nvvm.reqntid": ir.DenseI32ArrayAttr.get(list(k.block)),
             "unnamed_addr": ir.IntegerAttr.get(I64(), 0)}  # (none, spelled out as the parser does)
    if tuple(k.cluster) != (1, 1, 1):
        attrs["nvvm.cluster_dim"] = ir.DenseI32ArrayAttr.get(list(k.cluster))
    if maps:
        attrs["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get({})] * len(body.arguments)
                                              + [_tensor_map_param_attrs(em)] * len(maps))
    k.func = em.create("llvm.func", attrs=attrs, regions=1)
    entry = k.func.regions[0].blocks.append(*params)
    for old, new in zip(body.arguments, entry.arguments):
        if BufferType.of(old.type) is not None:
            k.values[old] = new
    for m, new in zip(maps, list(entry.arguments)[len(body.arguments):]):
        k.values[m.results[0]] = new
    ops = list(body.operations)
    ret = ops[-1]  # tile.return (verified): first into the entry block, then the rest in order before it
    ret.detach_from_parent()
    ir.InsertionPoint(entry).insert(ret)
    for inner in ops[:-1]:
        inner.move_before(ret)


def _tensor_map_param_attrs(em):
    """A CUtensorMap passed by value: `.param .align 64 .b8 name[128]`, grid-constant so that TMA reads the
    parameter itself (its generic address, cvta.param), never a local copy (docs/tma.md §4)."""
    return ir.DictAttr.get({"llvm.byval": ir.TypeAttr.get(llvm_array_type(I8(), 128)),
                            "llvm.align": ir.IntegerAttr.get(I64(), 64),
                            "nvvm.grid_constant": ir.UnitAttr.get()})


@lowers("tile.tensor_map")
def _tensor_map(k, op, em):
    """Nothing to emit: _kernel made the parameter, and the TMA copies name it."""


@lowers("tile.tensor_map.prefetch")
def _tensor_map_prefetch(k, op, em):
    em.create("nvvm.prefetch", (k.values[op.operands[0]],), attrs={"tensormap": ir.UnitAttr.get()})


@lowers("tile.return")
def _return(k, op, em):
    em.create("llvm.return")


# -- ids ---------------------------------------------------------------------------------------------
@lowers("tile.thread_id")
def _thread_id(k, op, em):
    op.results[0].replace_all_uses_with(k.tid(em))


@lowers("tile.warp_id")
def _warp_id(k, op, em):
    op.results[0].replace_all_uses_with(em.shr(k.tid(em), em.i32(5)))


@lowers("tile.lane_id")
def _lane_id(k, op, em):
    op.results[0].replace_all_uses_with(em.result("nvvm.read.ptx.sreg.laneid", I32()))


@lowers("tile.cta_rank")
def _cta_rank(k, op, em):
    op.results[0].replace_all_uses_with(em.result("nvvm.read.ptx.sreg.cluster.ctarank", I32()))


@lowers("tile.block_id")
def _block_id(k, op, em):
    op.results[0].replace_all_uses_with(em.result(f"nvvm.read.ptx.sreg.ctaid.{attr(op, 'dim')}", I32()))


@lowers("tile.grid_dim")
def _grid_dim(k, op, em):
    op.results[0].replace_all_uses_with(em.result(f"nvvm.read.ptx.sreg.nctaid.{attr(op, 'dim')}", I32()))


@lowers("tile.elect_one")
def _elect_one(k, op, em):
    op.results[0].replace_all_uses_with(em.result("nvvm.elect.sync", I1()))


# -- buffers -----------------------------------------------------------------------------------------
@lowers("tile.alloc_shared")
def _alloc_shared(k, op, em):
    name, off = k.shared[op]
    k.values[op.results[0]] = em.gep(em.addressof(name, 3), off)


@lowers("tile.alloc_reg")
def _alloc_reg(k, op, em):
    """In the entry block's first position, wherever the op is: SROA promotes only entry allocas."""
    entry = k.func.regions[0].blocks[0]
    at = Emitter(ir.InsertionPoint.at_block_begin(entry), op.location, k.cache)
    k.values[op.results[0]] = registers.alloc_registers(at, BufferType.of(op.results[0].type))


@lowers("tile.convert")
def _convert(k, op, em):
    dst_t, src_t = (BufferType.of(v.type) for v in op.operands)
    registers.emit_convert(em, dst_t, src_t, k.values[op.operands[0]], k.values[op.operands[1]],
                           attr(op, "rounding"))


def _copy_registers(k, op, em, load: bool):
    """tile.copy to or from a register tile: each thread moves what it holds (lowering/registers.py)."""
    dst_l, src_l, bits, _ = sliced_layouts(op)
    mem_l, reg_l = (src_l, dst_l) if load else (dst_l, src_l)
    mem_t = BufferType.of(op.operands[1 if load else 0].type)
    mem_align = 16 if mem_t.scope == "global" else max(mem_t.align or 16, 16)
    try:
        plan = registers.plan_register_store(mem_l, reg_l, bits, mem_align)
    except registers.StoreError as e:
        raise LoweringError(op, f"tile.copy {'to' if load else 'from'} registers: {e}") from None
    tid = k.tid(em)
    warp = em.shr(tid, em.i32(5))
    lane = em.and_(tid, em.i32(31))
    nthreads = k.block[0] * k.block[1] * k.block[2]
    mem, regs = (k.values[op.operands[1]], k.values[op.operands[0]]) if load else \
        (k.values[op.operands[0]], k.values[op.operands[1]])
    args = (plan, mem, regs, warp, lane, load)
    if nthreads > 32 * plan.warps or plan.first_warp != 0:
        inside = em.cmp("ult", em.sub(warp, em.i32(plan.first_warp)), em.i32(plan.warps))
        with em.if_(inside):
            registers.emit_move(em, *args)
    else:
        registers.emit_move(em, *args)
    if not load and mem_t.scope == "shared":
        k.fences.after_generic_shared_writes(op, em)


@lowers("tile.subview")
def _subview(k, op, em):
    """The window's first element: source + sum(offset_d * stride_d) elements, in i64 (large tensors)."""
    src_t = BufferType.of(op.operands[0].type)
    dynamic = iter(op.operands[1:])
    elems = None
    for o, stride in zip(attr(op, "static_offsets"), subview_strides(src_t)):
        term = em.mul(em.zext(next(dynamic), I64()) if o == SUBVIEW_DYNAMIC else em.i64(o), em.i64(stride))
        elems = term if elems is None else em.add(elems, term)
    byte_offset = em.udiv(em.mul(elems, em.i64(src_t.addr_bits)), em.i64(8))
    k.values[op.results[0]] = em.gep(k.values[op.operands[0]], byte_offset)


@lowers("tile.reinterpret")
def _reinterpret(k, op, em):
    k.values[op.results[0]] = k.values[op.operands[0]]


@lowers("tile.tmem.buffer")
def _tmem_buffer(k, op, em):
    k.values[op.results[0]] = em.load(I32(), k.values[op.operands[0]], align=4)


# -- fences and barriers -----------------------------------------------------------------------------
# (NVVM ops are created generically, like the emitter's: the generated builders cost 2-4x)
@lowers("tile.fence")
def _fence(k, op, em):
    kind = attr(op, "kind")
    if kind == "proxy_async":
        proxy_fence(em)
    elif kind == "mbarrier_init":
        em.create("nvvm.fence.mbarrier.init")
    else:
        tcgen05_fence(em, "before" if kind == "tcgen05_before_sync" else "after")


@lowers("tile.barrier")
def _barrier(k, op, em):
    k.fences.before_thread_sync(op, em)
    if attr(op, "scope") == "cluster":
        em.create("nvvm.cluster.arrive", attrs={"aligned": ir.UnitAttr.get()})
        em.create("nvvm.cluster.wait", attrs={"aligned": ir.UnitAttr.get()})
    else:
        em.create("nvvm.barrier0")
    k.fences.after_thread_sync(op, em)


# -- tensor memory -----------------------------------------------------------------------------------
def _group(op, em):
    return {"group": em.attr(f"#nvvm.cta_group<cta_{attr(op, 'cta_group')}>")}


@lowers("tile.tmem.alloc")
def _tmem_alloc(k, op, em):
    em.create("nvvm.tcgen05.alloc", (k.values[op.operands[0]], em.i32(attr(op, "num_cols"))), attrs=_group(op, em))


@lowers("tile.tmem.dealloc")
def _tmem_dealloc(k, op, em):
    addr = em.load(I32(), k.values[op.operands[0]], align=4)
    em.create("nvvm.tcgen05.dealloc", (em.inttoptr(addr, 6), em.i32(attr(op, "num_cols"))), attrs=_group(op, em))


@lowers("tile.tmem.relinquish")
def _tmem_relinquish(k, op, em):
    em.create("nvvm.tcgen05.relinquish_alloc_permit", attrs=_group(op, em))


@lowers("tile.commit")
def _commit(k, op, em):
    bar = k.values[op.operands[0]]
    mask = attr(op, "multicast_mask")
    operands = (bar,) if mask is None else (bar, em.const(mask, int_type(16)))
    em.create("nvvm.tcgen05.commit", operands, attrs=_group(op, em))


@lowers("tile.gemm_wait")
def _gemm_wait(k, op, em):
    """wgmma.wait_group.sync.aligned N: the gemm_async groups (lowering/gemm_async/wgmma.py) but N are done."""
    em.create("nvvm.wgmma.wait.group.sync.aligned", attrs={"group": ir.IntegerAttr.get(I64(), attr(op, "pending"))})


@lowers("tile.tmem.load")
def _tmem_load(k, op, em):
    """Each warp reads its lane quarter (tcgen05.ld.32x32b, at most 128 columns per instruction, fewer in
    a large CTA: instruction_registers), waits (tcgen05.wait::ld), and stores its lane's row."""
    dst = k.values[op.operands[0]]
    base = k.values[op.operands[1]]
    n = attr(op, "num_cols")
    tid = k.tid(em)
    warp_in_group = em.and_(em.shr(tid, em.i32(5)), em.i32(3))
    lane = em.and_(tid, em.i32(31))
    # absolute lane field (32 * warp quarter), as CUTLASS passes it; columns are added, never OR-ed
    quarter = em.add(base, em.shl(warp_in_group, em.i32(21)))
    row = lane if attr(op, "scope") == "warp" else em.add(em.shl(warp_in_group, em.i32(5)), lane)
    row_ptr = em.gep(dst, em.mul(row, em.i32(n * 4)))
    chunk = min(n, instruction_registers(k.block[0] * k.block[1] * k.block[2]))
    vt = ir.VectorType.get([chunk], I32())
    shape = em.attr("#nvvm.tcgen05_ldst_shape<shape_32x32b>")
    regs = []
    for c0 in range(0, n, chunk):
        taddr = em.add(quarter, em.i32(attr(op, "col_offset") + c0))
        regs.append(em.create("nvvm.tcgen05.ld", operands=[em.inttoptr(taddr, 6)], results=[vt],
                              attrs={"shape": shape}).results[0])
    em.create("nvvm.tcgen05.wait", attrs={"kind": em.attr("#nvvm.tcgen05_wait<load>")})
    # global buffers are whole allocations (16-byte aligned, checked by the runtime): rows of n
    # columns start on min(16, 4n)-byte boundaries, which lets NVPTX use vector stores
    align = min(16, 4 * n)
    for i, v in enumerate(regs):
        em.store(v, em.gep(row_ptr, i * chunk * 4), align=align)


# -- mbarrier ----------------------------------------------------------------------------------------
@lowers("tile.mbarrier.init")
def _mbarrier_init(k, op, em):
    em.create("nvvm.mbarrier.init", operands=[k.values[op.operands[0]], em.i32(attr(op, "count"))],
              attrs=operand_segments("nvvm.mbarrier.init", [1, 1, 0]))


@lowers("tile.mbarrier.arrive")
def _mbarrier_arrive(k, op, em):
    em.create("nvvm.mbarrier.arrive", operands=[k.values[op.operands[0]]], results=[I64()],
              attrs=operand_segments("nvvm.mbarrier.arrive", [1, 0, 0]))


@lowers("tile.mbarrier.wait")
def _mbarrier_wait(k, op, em):
    bar = k.values[op.operands[0]]
    phase = attr(op, "phase")

    def try_wait(e):
        return e.create("nvvm.mbarrier.try_wait", operands=[bar, e.i32(phase)], results=[I1()],
                        attrs=operand_segments("nvvm.mbarrier.try_wait", [1, 1, 0])).results[0]

    em.spin_until(try_wait)
    k.fences.after_thread_sync(op, em)  # consumers of the tcgen05 ops the barrier tracked


def _expect_tx(name: str):
    def lower(k, op, em):
        em.create(name, operands=[k.values[op.operands[0]], em.i32(attr(op, "bytes"))],
                  attrs=operand_segments(name, [1, 1, 0, 0]))
    return lower


lowers("tile.mbarrier.arrive_expect_tx")(_expect_tx("nvvm.mbarrier.arrive.expect_tx"))
lowers("tile.mbarrier.expect_tx")(_expect_tx("nvvm.mbarrier.expect_tx"))


@lowers("tile.bulk_wait")
def _bulk_wait(k, op, em):
    attrs = {"group": ir.IntegerAttr.get(I32(), attr(op, "pending"))}
    if attr(op, "kind") == "read":
        attrs["read"] = ir.UnitAttr.get()
    em.create("nvvm.cp.async.bulk.wait_group", attrs=attrs)


@lowers("tile.async_wait")
def _async_wait(k, op, em):
    em.create("nvvm.cp.async.wait.group", attrs={"n": ir.IntegerAttr.get(I32(), 0)})
    k.fences.after_generic_shared_writes(op, em)  # cp.async writes shared memory through the generic proxy


# -- synchronous copy --------------------------------------------------------------------------------
@lowers("tile.copy")
def _copy(k, op, em):
    scopes = tuple(BufferType.of(v.type).scope for v in op.operands)
    if "reg" in scopes:
        return _copy_registers(k, op, em, load=scopes[0] == "reg")
    dst_l, src_l, bits, numel = sliced_layouts(op)
    if bits == 6 or any(t.packing for t in copy_types(op)):  # 6-bit data, padded 4-bit data (b4x16_p64)
        _group_copy(k, op, em, (dst_l, src_l), numel)
    else:
        if not vector_bytes((dst_l, src_l), bits):
            raise LoweringError(op, f"tile.copy of {bits}-bit elements needs whole bytes: each contiguous run "
                                "of the copied region must start on a byte and cover whole bytes on both sides")
        rank, n = scope_rank(em, attr(op, "scope"), k.tid(em), k.block)
        emit_copy_loop(em, (k.values[op.operands[0]], k.values[op.operands[1]]), (dst_l, src_l), bits,
                       numel, rank, n)
    if BufferType.of(op.operands[0].type).scope == "shared":
        k.fences.after_generic_shared_writes(op, em)


def _group_copy(k, op, em, layouts, numel):
    """6-bit (4-bit) elements: whole groups of 16 (copy_loop.emit_group_copy), packed <-> .b6x16_p32
    (.b4x16_p64)."""
    types = copy_types(op)
    for side, lay, t in zip(("dst", "src"), layouts, types):
        if t.elem_bits == 6 and getattr(lay, "swizzle", None) is not None and t.packing is None:
            raise LoweringError(op, f"tile.copy of 6-bit elements: the {side} buffer is swizzled but holds "
                                "packed 6-bit data, whose 12-byte groups straddle swizzle units; "
                                "declare it with packing b6x16_p32")
        if not group_runs(lay, GROUP):
            raise LoweringError(op, f"tile.copy of {t.elem_bits}-bit elements moves whole groups of {GROUP} "
                                f"({GROUP * t.elem_bits // 8} bytes packed, 16 bytes in packing "
                                f"{'b6x16_p32' if t.elem_bits == 6 else 'b4x16_p64'}): every run of {GROUP} "
                                f"elements of the {side} region must be contiguous and start at a multiple "
                                f"of {GROUP} elements")
    rank, n = scope_rank(em, attr(op, "scope"), k.tid(em), k.block)
    emit_group_copy(em, (k.values[op.operands[0]], k.values[op.operands[1]]), layouts, types, numel, rank, n)
