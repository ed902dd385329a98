"""Pass `convert-tile-to-nvvm`: each tile.kernel becomes an llvm.func kernel in one gpu.module.

Buffers become pointers: global buffers are !llvm.ptr<1> kernel parameters, shared buffers are
llvm.mlir.global objects in address space 3 (aligned as their type says), tensor-memory buffers are the
i32 address that tcgen05.alloc wrote to their slot. Ops lower to upstream NVVM ops (tcgen05.*,
mbarrier.*, fence.*, elect.sync, barrier) plus arith/scf/llvm, which the upstream passes that follow in
the pipeline take to LLVM. copy_async must already be lowered (tile-lower-copy-async): what it left
behind are unrealized casts from our buffers to pointers/addresses, resolved here.
"""
from __future__ import annotations

from ..diagnostics import error
from ..dialect.ops import attr_value as attr
from ..dialect.types import BufferType
from ..dialect.ir_utils import iter_ops
from ..mlir import ir
from ..passes import TilePass, chip_option
from ..target import DEFAULT_ARCH
from .address import vector_bytes
from .copy_loop import copy_types, emit_copy_loop, emit_group_copy, linear_tid, scope_rank, sliced_layouts
from .emitter import I1, I32, I64, Emitter, int_type

__all__ = ["ConvertTileToNVVMPass", "DEFAULT_FEATURES"]

# PTX ISA 8.8: the bundled ptxas accepts it; without it libNVVM emits .version 9.4
DEFAULT_FEATURES = "+ptx88"
_STATIC_SMEM_LIMIT = 48 * 1024
GPU_MODULE = "tile_kernels"


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

    def run(self, module_op) -> bool:
        chip = self.target.arch
        features = self.options.get("features") or DEFAULT_FEATURES
        kernels = [op.operation for op in module_op.regions[0].blocks[0].operations
                   if op.operation.name == "tile.kernel"]
        leftovers = [op for op in iter_ops(module_op) if op.name == "tile.copy_async"]
        if leftovers:
            for op in leftovers:
                error(op, "'tile.copy_async' op lowering: not lowered; run tile-lower-copy-async first")
            return False
        ok = True
        gmod = None
        if kernels:  # one gpu.module holds every kernel: one PTX module, one cubin
            gmod = ir.Operation.parse(f'gpu.module @{GPU_MODULE} [#nvvm.target<chip = "{chip}", '
                                      f'features = "{features}">] {{\n}}')
            ir.InsertionPoint(kernels[0]).insert(gmod)  # a detached op is inserted, not moved
        for k in kernels:
            try:
                KernelLowering(gmod, k).run()
            except LoweringError as e:
                error(e.op, f"'{e.op.name}' op lowering: {e}")
                ok = False
        if kernels and ok:
            module_op.attributes["gpu.container_module"] = ir.UnitAttr.get()
        return ok


class KernelLowering:
    def __init__(self, gmod, kernel):
        self.gmod = gmod
        self.kernel = kernel
        self.sym = attr(kernel, "sym_name")
        self.block = attr(kernel, "block")
        self.cluster = attr(kernel, "cluster") or (1, 1, 1)
        self.values: dict = {}  # tile value -> lowered value (pointer / i32 address)

    # -- skeleton ----------------------------------------------------------------------------------
    def _skeleton(self):
        body = self.kernel.regions[0].blocks[0]
        params = []
        for arg in body.arguments:
            bt = BufferType.of(arg.type)
            params.append("!llvm.ptr<1>" if bt is not None else str(arg.type))
        sig = ", ".join(f"%a{i}: {t}" for i, t in enumerate(params))
        attrs = ["gpu.kernel", "nvvm.kernel", f"nvvm.reqntid = array<i32: {', '.join(map(str, self.block))}>"]
        if tuple(self.cluster) != (1, 1, 1):
            attrs.append(f"nvvm.cluster_dim = array<i32: {', '.join(map(str, self.cluster))}>")
        self.func = ir.Operation.parse(f'llvm.func @{self.sym}({sig}) attributes {{{", ".join(attrs)}}} {{\n'
                                       '  llvm.return\n}')
        ir.InsertionPoint(self.gmod.regions[0].blocks[0]).insert(self.func)
        return body

    def run(self):
        body = self._skeleton()
        entry = self.func.regions[0].blocks[0]
        for old, new in zip(body.arguments, entry.arguments):
            if BufferType.of(old.type) is not None:
                self.values[old] = new
        ret = entry.operations[0]
        for op in list(body.operations):
            if op.name == "tile.return":
                continue
            op.move_before(ret)
        self.loc = self.kernel.location
        # lower tile ops in program order; erase afterwards, users first
        all_ops, self.neighbours = _program(self.func)
        tile_ops = [op for op in all_ops if op.name.startswith("tile.")]
        self._plan_shared(tile_ops)
        # tcgen05 state: fences the PTX memory model requires are added where the program lacks them
        self.uses_tcgen05 = any(op.name in ("tile.tmem.alloc", "tile.tmem.load") or op.name.startswith("nvvm.tcgen05")
                                for op in all_ops)
        self.async_proxy_reads = any(op.name == "nvvm.tcgen05.cp" for op in all_ops)
        attrs: dict = {}
        for op in tile_ops:
            em = Emitter(ir.InsertionPoint(op), op.location, attrs)
            getattr(self, "lower_" + op.name[len("tile."):].replace(".", "_"))(op, em)
        self._resolve_casts([op for op in all_ops if op.name == "builtin.unrealized_conversion_cast"])
        for op in reversed(tile_ops):
            op.erase()
        for old, new in zip(body.arguments, entry.arguments):
            if BufferType.of(old.type) is None:
                old.replace_all_uses_with(new)
        self.kernel.erase()

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

    def _next_to_fence(self, op, step: int, kind: str) -> bool:
        """Whether the op right before (step -1) or after (+1) `op` in its block is tile.fence {kind}."""
        n = self.neighbours[op][step > 0]
        return n is not None and n.name == "tile.fence" and attr(n, "kind") == kind

    # -- ids --------------------------------------------------------------------------------------
    def _tid(self, em):
        return linear_tid(em, self.block)

    def lower_thread_id(self, op, em):
        op.results[0].replace_all_uses_with(self._tid(em))

    def lower_warp_id(self, op, em):
        op.results[0].replace_all_uses_with(em.shr(self._tid(em), em.i32(5)))

    def lower_lane_id(self, op, em):
        op.results[0].replace_all_uses_with(em.result("nvvm.read.ptx.sreg.laneid", I32()))

    def lower_cta_rank(self, op, em):
        op.results[0].replace_all_uses_with(em.result("nvvm.read.ptx.sreg.cluster.ctarank", I32()))

    def lower_elect_one(self, op, em):
        op.results[0].replace_all_uses_with(em.result("nvvm.elect.sync", I1()))

    # -- buffers ----------------------------------------------------------------------------------
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
                bufs.append((op, nbytes, max(bt.align or 16, 16)))
        total = sum(n for _, n, _ in bufs)
        self.shared = {}
        self.dynamic_smem = 0
        if total <= _STATIC_SMEM_LIMIT:
            for i, (op, nbytes, align) in enumerate(bufs):
                name = f"{self.sym}_smem{i}"
                g = ir.Operation.parse(f"llvm.mlir.global internal @{name}() {{addr_space = 3 : i32, "
                                       f"alignment = {align} : i64}} : !llvm.array<{nbytes} x i8>")
                ir.InsertionPoint(self.func).insert(g)
                self.shared[op] = (name, 0)
            return
        name = f"{self.sym}_dynsmem"
        g = ir.Operation.parse(f"llvm.mlir.global external @{name}() {{addr_space = 3 : i32, alignment = 1024 : i64}}"
                               " : !llvm.array<0 x i8>")
        ir.InsertionPoint(self.func).insert(g)
        off = 0
        for op, nbytes, align in sorted(bufs, key=lambda b: -b[2]):  # largest alignment first: no padding
            off = (off + align - 1) // align * align
            self.shared[op] = (name, off)
            off += nbytes
        self.dynamic_smem = off
        self.func.attributes["tile.dynamic_smem"] = ir.IntegerAttr.get(I32(), off)

    def lower_alloc_shared(self, op, em):
        name, off = self.shared[op]
        self.values[op.results[0]] = em.gep(em.addressof(name, 3), off)

    def lower_tmem_buffer(self, op, em):
        slot = self.values[op.operands[0]]
        self.values[op.results[0]] = em.load(I32(), slot, align=4)

    # -- fences and barriers --------------------------------------------------------------------------
    # (NVVM ops are created generically, like the emitter's: the generated builders cost 2-4x)
    def _proxy_fence(self, em):
        em.create("nvvm.fence.proxy", attrs={"kind": em.attr("#nvvm.proxy_kind<async.shared>"),
                                             "space": em.attr("#nvvm.shared_space<cta>")})

    def lower_fence(self, op, em):
        kind = attr(op, "kind")
        if kind == "proxy_async":
            self._proxy_fence(em)
        elif kind == "mbarrier_init":
            em.create("nvvm.fence.mbarrier.init")
        else:
            self._tcgen05_fence(em, "before" if kind == "tcgen05_before_sync" else "after")

    def _tcgen05_fence(self, em, which: str):
        em.create("nvvm.tcgen05.fence", attrs={"kind": em.attr(f"#nvvm.tcgen05_fence<{which}>")})

    def lower_barrier(self, op, em):
        # PTX memory model: tcgen05 ops before a thread sync need fence::before_thread_sync, those after
        # it fence::after_thread_sync; added unless the program has them right there
        fenced = self.uses_tcgen05 and not self._next_to_fence(op, -1, "tcgen05_before_sync")
        if fenced:
            self._tcgen05_fence(em, "before")
        if attr(op, "scope") == "cluster":
            em.create("nvvm.cluster.arrive", attrs={"aligned": ir.UnitAttr.get()})
            em.create("nvvm.cluster.wait", attrs={"aligned": ir.UnitAttr.get()})
        else:
            em.create("nvvm.barrier0")
        if self.uses_tcgen05 and not self._next_to_fence(op, +1, "tcgen05_after_sync"):
            self._tcgen05_fence(em, "after")

    # -- tensor memory ----------------------------------------------------------------------------
    def _group(self, op, em):
        return {"group": em.attr(f"#nvvm.cta_group<cta_{attr(op, 'cta_group')}>")}

    def lower_tmem_alloc(self, op, em):
        em.create("nvvm.tcgen05.alloc", (self.values[op.operands[0]], em.i32(attr(op, "num_cols"))),
                  attrs=self._group(op, em))

    def lower_tmem_dealloc(self, op, em):
        addr = em.load(I32(), self.values[op.operands[0]], align=4)
        em.create("nvvm.tcgen05.dealloc", (em.inttoptr(addr, 6), em.i32(attr(op, "num_cols"))),
                  attrs=self._group(op, em))

    def lower_tmem_relinquish(self, op, em):
        em.create("nvvm.tcgen05.relinquish_alloc_permit", attrs=self._group(op, em))

    def lower_commit(self, op, em):
        bar = self.values[op.operands[0]]
        mask = attr(op, "multicast_mask")
        operands = (bar,) if mask is None else (bar, em.const(mask, int_type(16)))
        em.create("nvvm.tcgen05.commit", operands, attrs=self._group(op, em))

    def lower_tmem_load(self, op, em):
        """Each warp reads its lane quarter (tcgen05.ld.32x32b, at most 128 columns per instruction),
        waits (tcgen05.wait::ld), and stores its lane's row."""
        dst = self.values[op.operands[0]]
        base = self.values[op.operands[1]]
        n = attr(op, "num_cols")
        tid = self._tid(em)
        warp_in_group = em.and_(em.shr(tid, em.i32(5)), em.i32(3))
        lane = em.and_(tid, em.i32(31))
        # absolute lane field (32 * warp quarter), as CUTLASS passes it; columns are added, never OR-ed
        quarter = em.add(base, em.shl(warp_in_group, em.i32(21)))
        row = lane if attr(op, "scope") == "warp" else em.add(em.shl(warp_in_group, em.i32(5)), lane)
        row_ptr = em.gep(dst, em.mul(row, em.i32(n * 4)))
        chunk = min(n, 128)
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

    # -- mbarrier ---------------------------------------------------------------------------------
    def lower_mbarrier_init(self, op, em):
        em.create("nvvm.mbarrier.init", operands=[self.values[op.operands[0]], em.i32(attr(op, "count"))],
                  attrs={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, 0])})

    def lower_mbarrier_arrive(self, op, em):
        em.create("nvvm.mbarrier.arrive", operands=[self.values[op.operands[0]]], results=[I64()],
                  attrs={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, 0])})

    def lower_mbarrier_wait(self, op, em):
        bar = self.values[op.operands[0]]
        phase = attr(op, "phase")

        def try_wait(e):
            return e.create("nvvm.mbarrier.try_wait", operands=[bar, e.i32(phase)], results=[I1()],
                            attrs={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, 0])}).results[0]

        em.spin_until(try_wait)
        if self.uses_tcgen05 and not self._next_to_fence(op, +1, "tcgen05_after_sync"):
            self._tcgen05_fence(em, "after")  # consumers of the tcgen05 ops the barrier tracked

    def lower_async_wait(self, op, em):
        em.create("nvvm.cp.async.wait.group", attrs={"n": ir.IntegerAttr.get(I32(), 0)})
        if self.async_proxy_reads and not self._next_to_fence(op, +1, "proxy_async"):
            # cp.async writes shared memory through the generic proxy: tcgen05.cp (async proxy)
            # reads of it need fence.proxy.async after the wait, as for ordinary stores
            self._proxy_fence(em)

    # -- synchronous copy -------------------------------------------------------------------------
    def _lower_group_copy(self, op, em, layouts, numel):
        """6-bit elements: whole groups of 16 (copy_loop.emit_group_copy), packed <-> .b6x16_p32."""
        from .address import group_runs
        from .copy_loop import GROUP

        types = copy_types(op)
        for side, lay, t in zip(("dst", "src"), layouts, types):
            if getattr(lay, "swizzle", None) is not None and t.packing is None:
                raise LoweringError(op, f"tile.copy of 6-bit elements: the {side} buffer is swizzled but holds "
                                    "packed 6-bit data, whose 12-byte groups straddle swizzle units; "
                                    "declare it with packing b6x16_p32")
            if not group_runs(lay, GROUP):
                raise LoweringError(op, f"tile.copy of 6-bit elements moves whole groups of {GROUP} "
                                    f"(12 bytes packed, 16 bytes in packing b6x16_p32): every run of {GROUP} "
                                    f"elements of the {side} region must be contiguous and start at a multiple "
                                    f"of {GROUP} elements")
        rank, n = scope_rank(em, attr(op, "scope"), self._tid(em), self.block)
        emit_group_copy(em, (self.values[op.operands[0]], self.values[op.operands[1]]), layouts, types,
                        numel, rank, n)
        if self.async_proxy_reads and types[0].scope == "shared" and not self._next_to_fence(op, +1, "proxy_async"):
            self._proxy_fence(em)

    def lower_copy(self, op, em):
        dst_l, src_l, bits, numel = sliced_layouts(op)
        if bits == 6:
            self._lower_group_copy(op, em, (dst_l, src_l), numel)
            return
        if not vector_bytes((dst_l, src_l), bits):
            raise LoweringError(op, f"tile.copy of {bits}-bit elements needs whole bytes: each contiguous run "
                                "of the copied region must start on a byte and cover whole bytes on both sides")
        rank, n = scope_rank(em, attr(op, "scope"), self._tid(em), self.block)
        emit_copy_loop(em, (self.values[op.operands[0]], self.values[op.operands[1]]), (dst_l, src_l), bits,
                       numel, rank, n)
        if (self.async_proxy_reads and BufferType.of(op.operands[0].type).scope == "shared"
                and not self._next_to_fence(op, +1, "proxy_async")):
            # generic-proxy stores that tcgen05.cp (async proxy) may read need fence.proxy.async
            self._proxy_fence(em)


def _program(func) -> tuple[list, dict]:
    """(every op nested in func in pre-order, {tile op: (op before it, op after it) in its block}).

    The neighbours stay those of the program while it is lowered, since each lowering inserts only
    before the op it lowers (and erasing waits until the end)."""
    ops = iter_ops(func)
    blocks: dict = {}  # block -> its ops in order (a pre-order walk lists each block's ops in order)
    for op in ops:
        blocks.setdefault(op.block, []).append(op)
    neighbours: dict = {}
    for block_ops in blocks.values():
        for i, op in enumerate(block_ops):
            if op.name.startswith("tile."):
                neighbours[op] = (block_ops[i - 1] if i else None,
                                  block_ops[i + 1] if i + 1 < len(block_ops) else None)
    return ops, neighbours

