"""Lowerings of the kernel (llvm.func), its tensor-map parameters, the thread and CTA indices, and the ops
that make buffers (shared globals, register allocas, windows, views, tmem addresses)."""
from __future__ import annotations

from ...dialect.ops import (SUBVIEW_DYNAMIC, AllocRegOp, AllocSharedOp, BlockIdOp, CtaRankOp, ElectOneOp, GridDimOp,
                            KernelOp, LaneIdOp, ReinterpretOp, ReturnOp, SubviewOp, TensorMapOp, TensorMapPrefetchOp,
                            ThreadIdOp, TmemBufferOp, WarpIdOp, subview_strides)
from ...dialect.types import BufferType
from ...mlir import ir, llvm_array_type, llvm_function_type
from .. import nvvm_ir, registers
from ..emitter import I8, I32, I64, Emitter
from .registry import lowers


@lowers(KernelOp)
def _kernel(k, op, em):
    """An llvm.func kernel at em's insertion point (the end of the gpu.module) with op's body moved into
    its entry block; buffer parameters become !llvm.ptr<1>, and each tile.tensor_map one more parameter
    after them (_tensor_map_param_attrs)."""
    body = op.regions[0].blocks[0]
    params = [em.ptr(1) if BufferType.of(a.type) is not None else a.type for a in body.arguments]
    maps = [inner for inner in body.operations if inner.operation.name == TensorMapOp.OPERATION_NAME]
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
            k.buffers.bind(old, new)
    for m, new in zip(maps, list(entry.arguments)[len(body.arguments):]):
        k.buffers.bind(TensorMapOp(m.operation).map, new)
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


@lowers(TensorMapOp)
def _tensor_map(k, op, em):
    """Nothing to emit: _kernel made the parameter, and the TMA copies name it."""


@lowers(TensorMapPrefetchOp)
def _tensor_map_prefetch(k, op, em):
    nvvm_ir.prefetch_tensormap(em, k.buffers.get(op.map))


@lowers(ReturnOp)
def _return(k, op, em):
    em.create("llvm.return")


# -- ids ---------------------------------------------------------------------------------------------
@lowers(ThreadIdOp)
def _thread_id(k, op, em):
    op.result.replace_all_uses_with(k.tid(em))


@lowers(WarpIdOp)
def _warp_id(k, op, em):
    op.result.replace_all_uses_with(em.shr(k.tid(em), em.i32(5)))


@lowers(LaneIdOp)
def _lane_id(k, op, em):
    op.result.replace_all_uses_with(nvvm_ir.sreg(em, "laneid"))


@lowers(CtaRankOp)
def _cta_rank(k, op, em):
    op.result.replace_all_uses_with(nvvm_ir.sreg(em, "cluster.ctarank"))


@lowers(BlockIdOp)
def _block_id(k, op, em):
    op.result.replace_all_uses_with(nvvm_ir.sreg(em, f"ctaid.{op.dim}"))


@lowers(GridDimOp)
def _grid_dim(k, op, em):
    op.result.replace_all_uses_with(nvvm_ir.sreg(em, f"nctaid.{op.dim}"))


@lowers(ElectOneOp)
def _elect_one(k, op, em):
    op.result.replace_all_uses_with(nvvm_ir.elect_sync(em))


# -- buffers -----------------------------------------------------------------------------------------
@lowers(AllocSharedOp)
def _alloc_shared(k, op, em):
    name, off = k.shared[op.operation]
    k.buffers.bind(op.result, em.gep(em.addressof(name, 3), off))


@lowers(AllocRegOp)
def _alloc_reg(k, op, em):
    """In the entry block's first position, wherever the op is: SROA promotes only entry allocas."""
    entry = k.func.regions[0].blocks[0]
    at = Emitter(ir.InsertionPoint.at_block_begin(entry), op.location, k.cache)
    k.buffers.bind(op.result, registers.alloc_registers(at, BufferType.of(op.result.type)))


@lowers(SubviewOp)
def _subview(k, op, em):
    """The window's first element: source + sum(offset_d * stride_d) elements, in i64 (large tensors)."""
    src_t = BufferType.of(op.source.type)
    dynamic = iter(op.offsets)
    elems = None
    for o, stride in zip(op.static_offsets, subview_strides(src_t)):
        term = em.mul(em.zext(next(dynamic), I64()) if o == SUBVIEW_DYNAMIC else em.i64(o), em.i64(stride))
        elems = term if elems is None else em.add(elems, term)
    byte_offset = em.udiv(em.mul(elems, em.i64(src_t.addr_bits)), em.i64(8))
    k.buffers.bind(op.result, em.gep(k.buffers.get(op.source), byte_offset))


@lowers(ReinterpretOp)
def _reinterpret(k, op, em):
    k.buffers.bind(op.result, k.buffers.get(op.source))


@lowers(TmemBufferOp)
def _tmem_buffer(k, op, em):
    addr = em.load(I32(), k.buffers.get(op.slot), align=4)
    k.buffers.bind(op.result, em.add(addr, em.i32(op.col_offset)) if op.col_offset else addr)
