"""The kernel and what its body starts from: tile.kernel, tile.return, the thread and CTA indices, and the
ops that make buffers (shared, register, windows and views of others)."""
from __future__ import annotations

import keyword
import re

from ..checks import MAX_CTA_THREADS, buffer_type, check_buffer_once, check_register_budget
from ..decline import fail
from ..enums import Dim, MemScope
from ..op_def import (I32_ARRAY3, I64_ARRAY, STR, STR_ARRAY, Attr, BufferOf, Emits, Operand, Result, TileOp,
                      Trait, TypeIs)
from ..types import BufferType, TypeParseError

__all__ = ["KernelOp", "ReturnOp", "ThreadIdOp", "WarpIdOp", "LaneIdOp", "CtaRankOp", "BlockIdOp", "GridDimOp",
           "ElectOneOp", "AllocSharedOp", "SubviewOp", "ReinterpretOp", "AllocRegOp", "SUBVIEW_DYNAMIC",
           "subview_strides", "KERNEL_NAME", "KERNEL_NAME_MAX"]

SUBVIEW_DYNAMIC = -1  # a tile.subview static_offsets entry taken from the op's next offset operand

# A kernel's name is its llvm.func symbol and its PTX .entry: an identifier of both PTX
# ([a-zA-Z][a-zA-Z0-9_$]* | [_$%][a-zA-Z0-9_$]+) and libNVVM ([a-zA-Z$_][a-zA-Z$_0-9]*), without '$'
# and '%' (which need quoting in MLIR). PTX asks every implementation to take identifiers of at least
# 1024 characters; 1000 leaves room for the suffixes of the kernel's shared buffers (_smem<i>).
KERNEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*|_[A-Za-z0-9_]+", re.ASCII)
KERNEL_NAME_MAX = 1000
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)  # a Python keyword argument's name
_I32, _I1 = TypeIs("i32"), TypeIs("i1")


class KernelOp(TileOp, name="kernel"):
    """A GPU kernel; its block arguments are the kernel parameters (global buffers or i32/i64/f32 scalars,
    in PTX .param order)."""

    sym_name = Attr(STR, required=True)
    block = Attr(I32_ARRAY3, required=True)
    cluster = Attr(I32_ARRAY3)
    grid = Attr(I32_ARRAY3)
    # the parameters' names, one per block argument (a kernel's keyword arguments)
    arg_names = Attr(STR_ARRAY)
    REGIONS = 1

    def verify(self, kernel) -> None:
        name = self.sym_name
        if len(name) > KERNEL_NAME_MAX or not KERNEL_NAME.fullmatch(name):
            shown = name if len(name) <= 40 else name[:40] + "..."
            fail("kernel-name", f"sym_name {shown!r} must be a PTX identifier of at most {KERNEL_NAME_MAX} "
                 "characters: a letter or '_' first, then letters, digits and '_' ('_' alone is none)")
        block = self.block
        if any(b <= 0 for b in block) or block[0] * block[1] * block[2] > MAX_CTA_THREADS:
            fail("launch-shape", f"block {list(block)} must be positive with at most {MAX_CTA_THREADS} threads")
        cluster = self.cluster or (1, 1, 1)
        if any(c <= 0 for c in cluster) or cluster[0] * cluster[1] * cluster[2] > 16:
            fail("launch-shape", f"cluster {list(cluster)} must be positive with at most 16 CTAs")
        grid = self.grid or (1, 1, 1)
        if any(g <= 0 for g in grid) or grid[1] > 65535 or grid[2] > 65535:
            fail("launch-shape", f"grid {list(grid)} must be positive, with y and z at most 65535 (CUDA's limits)")
        blocks = list(self.regions[0].blocks)
        if len(blocks) != 1:
            fail("body", f"expects a single-block body, got {len(blocks)} blocks")
        args = blocks[0].arguments
        for i, arg in enumerate(args):
            try:
                bt = BufferType.of(arg.type)
            except TypeParseError as e:
                fail("buffer-type", f"parameter #{i}: {e}")
            if bt is not None:
                if bt.scope != MemScope.GLOBAL:
                    fail("parameter", f"parameter #{i} must be a global buffer or a scalar, got a {bt.scope} buffer")
                check_buffer_once(bt, f"parameter #{i}")
                if bt.dynamic:
                    _check_runtime_extents(arg, i)
            elif str(arg.type) not in ("i32", "i64", "f32"):
                fail("parameter", f"parameter #{i} must be a global buffer or an i32/i64/f32 scalar, got {arg.type}")
        self._verify_arg_names(len(args))
        ops = blocks[0].operations  # (indexed, not listed: that would wrap every op)
        last = ops[-1].operation.name if len(ops) else None
        if last != ReturnOp.OPERATION_NAME:
            fail("body", "the body must end with tile.return")

    def _verify_arg_names(self, n: int) -> None:
        names = self.arg_names
        if names is None:
            return
        if len(names) != n:
            fail("arg-names", f"arg_names has {len(names)} names for {n} parameters")
        seen = set()
        for i, name in enumerate(names):
            if not _PARAM_NAME.fullmatch(name) or keyword.iskeyword(name):
                fail("arg-names", f"parameter #{i}'s name {name[:40]!r} is not an identifier (a letter or '_' "
                     "first, then letters, digits and '_'; not a Python keyword)")
            if name in seen:
                fail("arg-names", f"parameter #{i}'s name {name!r} is given twice")
            seen.add(name)


def _check_runtime_extents(arg, i: int) -> None:
    """A parameter with runtime extents (`?`, dialect/types.py) has row strides known only at launch, so it
    is reached only through TMA: declared by tile.tensor_map, windowed by tile.subview for tile.copy_async
    (SubviewOp checks the window's own uses)."""
    for use in arg.uses:
        name = getattr(use.owner, "name", None)
        if name not in ("tile.tensor_map", "tile.subview") or use.operand_number != 0:
            fail("runtime-extent", f"parameter #{i} has runtime extents ('?'): only tile.tensor_map and "
                 f"tile.subview windows for TMA copies may use it (its strides are known at launch), not {name}")


class ReturnOp(TileOp, name="return"):
    """Terminates a tile.kernel body."""

    TRAITS = (Trait.TERMINATOR, Emits("llvm.return", "ret"))


class ThreadIdOp(TileOp, name="thread_id"):
    """Linear thread index in the CTA."""

    result = Result(_I32)
    TRAITS = (Emits("nvvm.read.ptx.sreg.tid", ("mov", "mad")),)


class WarpIdOp(TileOp, name="warp_id"):
    """Warp index in the CTA (linear thread index / 32)."""

    result = Result(_I32)
    TRAITS = (Emits("nvvm.read.ptx.sreg.tid", ("mov", "shr")),)


class LaneIdOp(TileOp, name="lane_id"):
    """Lane index in the warp."""

    result = Result(_I32)
    TRAITS = (Emits("nvvm.read.ptx.sreg.laneid", "mov"),)


class CtaRankOp(TileOp, name="cta_rank"):
    """Rank of this CTA in its cluster (%cluster_ctarank)."""

    result = Result(_I32)
    TRAITS = (Emits("nvvm.read.ptx.sreg.cluster.ctarank", "mov"),)


class BlockIdOp(TileOp, name="block_id"):
    """Index of this CTA in the grid along `dim` (%ctaid)."""

    dim = Attr(Dim, required=True)
    result = Result(_I32)
    TRAITS = (Emits("nvvm.read.ptx.sreg.ctaid", "mov"),)


class GridDimOp(TileOp, name="grid_dim"):
    """Number of CTAs in the grid along `dim` (%nctaid)."""

    dim = Attr(Dim, required=True)
    result = Result(_I32)
    TRAITS = (Emits("nvvm.read.ptx.sreg.nctaid", "mov"),)


class ElectOneOp(TileOp, name="elect_one"):
    """True in exactly one lane of the executing warp (elect.sync); executed by a whole warp."""

    result = Result(_I1)
    TRAITS = (Emits("nvvm.elect.sync", "elect.sync"),)


class AllocSharedOp(TileOp, name="alloc_shared"):
    """A static shared-memory buffer, aligned as its type says."""

    result = Result(BufferOf(MemScope.SHARED))


class SubviewOp(TileOp, name="subview"):
    """A window of a global buffer: sizes elements per dim from static_offsets (-1: the next i32 of
    `offsets`), the source's strides. tile.copy through it addresses the source; a TMA copy_async adds the
    offsets to its coordinates (a window crossing the tensor's edge: TMA fills / clips)."""

    source = Operand(BufferOf(MemScope.GLOBAL))
    offsets = Operand(_I32, variadic=True)
    result = Result(BufferOf(MemScope.GLOBAL))
    static_offsets = Attr(I64_ARRAY, required=True)
    sizes = Attr(I64_ARRAY, required=True)
    TRAITS = (Emits(None, ("mul", "add")),)

    @staticmethod
    def window_type(src: BufferType, sizes) -> BufferType:
        """The result type of a window of `sizes` elements of `src`."""
        tup = lambda xs: "(" + ", ".join(map(str, xs)) + ("," if len(xs) == 1 else "") + ")"  # noqa: E731
        return BufferType(MemScope.GLOBAL, tuple(sizes), src.elem, f"S[{tup(sizes)} : {tup(subview_strides(src))}]",
                          None)

    def verify(self, kernel) -> None:
        src = buffer_type(self.source, "operand #0 (source)")
        res = buffer_type(self.result, "result")
        offsets, sizes = self.static_offsets, self.sizes
        rank = len(src.shape)
        if len(offsets) != rank or len(sizes) != rank:
            fail("subview-rank", f"{len(offsets)} static_offsets and {len(sizes)} sizes for a rank-{rank} source")
        dynamic = sum(o == SUBVIEW_DYNAMIC for o in offsets)
        n_offsets = len(self.offsets)
        if dynamic != n_offsets:
            fail("subview-offsets", f"static_offsets has {dynamic} dynamic entries (-1), the op {n_offsets} "
                 "offset operands")
        for d, (o, n, ext) in enumerate(zip(offsets, sizes, src.shape)):
            if n <= 0 or (o != SUBVIEW_DYNAMIC and not 0 <= o < ext):
                fail("region-in-bounds", f"window [{o}, {o} + {n}) of dim {d} is outside the source's extent {ext}")
            if n > ext or (o != SUBVIEW_DYNAMIC and o + n > ext):
                where = f"[{o}, {o} + {n})" if o != SUBVIEW_DYNAMIC else f"of {n} elements from a dynamic start"
                self._only_tma(f"window {where} of dim {d} reaches past the source's extent {ext}")
        if src.dynamic:
            self._only_tma("a window of a buffer with runtime extents ('?': its strides are known at launch)")
        bits, strides = src.addr_bits, subview_strides(src)
        start = sum(o * st for o, st in zip(offsets, strides) if o != SUBVIEW_DYNAMIC) * bits
        if start % 8 or any(o == SUBVIEW_DYNAMIC and st * bits % 8 for o, st in zip(offsets, strides)):
            fail("subview-alignment", f"a window of {src.elem} elements must start on a byte: its offsets "
                 f"(static ones, and the strides of dynamic ones) must be whole bytes")
        want = self.window_type(src, sizes)
        if res.elem != src.elem or res.shape != want.shape or res.layout != want.layout:
            fail("result-type", f"the window of this source is {want}, got {res}")

    def _only_tma(self, what: str) -> None:
        """A window that is sure to reach past its tensor's edge is only for TMA copies (tile.copy_async between
        it and shared memory), which fill the box past the edge with zeros on a load and clip a store there
        (checked on the H200 with boxes larger than the tensor, docs/tma.md §2); any other copy would
        address memory outside the tensor."""
        for use in self.result.uses:
            owner = use.owner
            sides = [BufferType.of(v.type) for v in list(owner.operands)[:2]]
            if getattr(owner, "name", None) != "tile.copy_async" or not any(t and t.scope == MemScope.SHARED for t in sides):
                fail("region-in-bounds", f"{what}: only a TMA copy (tile.copy_async to or from shared memory), "
                     "which fills and clips past the edge, may move such a window")


def subview_strides(src: BufferType) -> tuple[int, ...]:
    """A global buffer's element strides per dim (row-major, or its layout's: one iter per dim)."""
    if src.layout_text is None:
        strides, acc = [], 1
        for d in reversed(src.shape):
            strides.append(acc)
            acc *= d
        return tuple(reversed(strides))
    lay = src.layout
    shard = getattr(lay, "shard", ())
    if (lay.swizzle is not None or len(shard) != len(src.shape) or lay.replica or lay.offset
            or any(it.extent != d for it, d in zip(shard, src.shape))):
        fail("subview-layout", f"a window of a global buffer with layout {src.layout_text!r}: only row-major or "
             "one strided iter per dim")
    return tuple(it.stride for it in shard)


class ReinterpretOp(TileOp, name="reinterpret"):
    """A view of a shared buffer's bytes as another shared buffer type (element type, shape, layout) no
    larger and no more aligned; no data moves (e.g. a TMA box viewed as the matrix it holds)."""

    source = Operand(BufferOf(MemScope.SHARED))
    result = Result(BufferOf(MemScope.SHARED))

    def verify(self, kernel) -> None:
        src = buffer_type(self.source, "operand #0 (source)")
        dst = buffer_type(self.result, "result")
        if src.scope != MemScope.SHARED or dst.scope != MemScope.SHARED:
            fail("operand-scope", f"tile.reinterpret views a shared buffer as another shared buffer, got "
                 f"{src.scope} -> {dst.scope}")
        src_bytes, dst_bytes = (t.storage_bytes(t.layout.inner.span()) for t in (src, dst))
        if dst_bytes > src_bytes:
            fail("reinterpret-size", f"the result's layout spans {dst_bytes} bytes, the source holds {src_bytes}")
        if (dst.align or 16) > (src.align or 16):
            fail("alignment", f"the result claims align {dst.align}, the source guarantees {src.align or 16}")


class AllocRegOp(TileOp, name="alloc_reg"):
    """A register tile: every thread holds the elements its layout gives it (axes warpid, laneid, reg;
    docs/registers.md)."""

    result = Result(BufferOf(MemScope.REG))

    def verify(self, kernel) -> None:
        if kernel.threads is not None:
            check_register_budget(buffer_type(self.result, "result #0"), kernel.threads, "result #0")
