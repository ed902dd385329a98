"""The `tile` dialect's operations: one declarative table, Python OpViews and builders.

The bindings cannot register a dialect from Python, so tile ops live in an unregistered `tile` namespace
in generic form; OpView classes registered for their names give typed access, and the verifier
(tile_mlir.dialect.verifier) checks what ODS would. OP_SPECS is the single source of truth: the
verifier, the builders and lib/TileOps.irdl (checked by test/python/test_irdl_agreement.py) follow it.
Each spec carries what ODS would put on the op: its own verifier (`verify`, ODS hasVerifier / xDSL
verify_), run after the generic checks of its operands, results and attributes, and its traits.

Operand order and attribute names are stable; FileCheck tests depend on them.
"""
from __future__ import annotations

import enum
import math
import re
import sys
from dataclasses import dataclass
from typing import Callable

from .. import mlir as _mlir
from ..mlir import ir, register_dialect, register_operation
from ..target import TMEM_COLUMNS
from .checks import (MAX_CTA_THREADS, KernelFacts, buffer_type, check_buffer_once, check_register_budget,
                     check_slot, fail, same_cta_group, tensor_map_problem)
from .ir_utils import region_of
from .types import BufferType, TypeParseError

__all__ = ["Trait", "OperandSpec", "AttrSpec", "OpSpec", "OP_SPECS", "spec_of", "OPVIEWS", "SUBVIEW_DYNAMIC",
           "subview_strides"]

SUBVIEW_DYNAMIC = -1  # a tile.subview static_offsets entry taken from the op's next offset operand


class Trait(enum.Enum):
    """Facts about an op that passes act on without naming the op (as MLIR's op traits)."""

    # issues tcgen05 instructions: one cta_group per kernel (verifier), and the PTX memory model's
    # tcgen05.fence::before/after_thread_sync around thread syncs (convert-tile-to-nvvm)
    TCGEN05 = "Tcgen05"
    # reads shared memory through the async proxy: generic-proxy writes it reads need fence.proxy.async
    READS_SHARED_ASYNC_PROXY = "ReadsSharedAsyncProxy"


@dataclass(frozen=True)
class OperandSpec:
    name: str
    # "buffer:<scope>[|<scope>]" for !tile.buffer of those scopes, or an MLIR type spelling (i1, i32)
    constraint: str
    optional: bool = False
    variadic: bool = False  # the last operand only: any number of values (0 or more)


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: str  # "str" | "i64" | "i64_array" | "i32_array3"
    required: bool = False
    default: object = None
    choices: tuple = ()


@dataclass(frozen=True)
class OpSpec:
    name: str  # without the "tile." prefix
    summary: str
    operands: tuple[OperandSpec, ...] = ()
    results: tuple[OperandSpec, ...] = ()
    attrs: tuple[AttrSpec, ...] = ()
    regions: int = 0
    terminator: bool = False
    # verify(op, kernel: KernelFacts): the op's own invariants, raising VerifyError (checks.fail)
    verify: Callable[..., None] | None = None
    traits: frozenset[Trait] = frozenset()

    @property
    def full_name(self) -> str:
        return "tile." + self.name

    def attr(self, name: str) -> AttrSpec:
        try:
            return self._attr_map[name]
        except AttributeError:
            object.__setattr__(self, "_attr_map", {a.name: a for a in self.attrs})
            return self._attr_map[name]


# -- op verifiers ---------------------------------------------------------------------------------------
# A kernel's name is its llvm.func symbol and its PTX .entry: an identifier of both PTX
# ([a-zA-Z][a-zA-Z0-9_$]* | [_$%][a-zA-Z0-9_$]+) and libNVVM ([a-zA-Z$_][a-zA-Z$_0-9]*), without '$'
# and '%' (which need quoting in MLIR). PTX asks every implementation to take identifiers of at least
# 1024 characters; 1000 leaves room for the suffixes of the kernel's shared buffers (_smem<i>).
KERNEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*|_[A-Za-z0-9_]+", re.ASCII)
KERNEL_NAME_MAX = 1000


def _verify_kernel(op, kernel: KernelFacts) -> None:
    name = attr_value(op, "sym_name")
    if len(name) > KERNEL_NAME_MAX or not KERNEL_NAME.fullmatch(name):
        shown = name if len(name) <= 40 else name[:40] + "..."
        fail("kernel-name", f"sym_name {shown!r} must be a PTX identifier of at most {KERNEL_NAME_MAX} "
             "characters: a letter or '_' first, then letters, digits and '_' ('_' alone is none)")
    block = attr_value(op, "block")
    if any(b <= 0 for b in block) or block[0] * block[1] * block[2] > MAX_CTA_THREADS:
        fail("launch-shape", f"block {list(block)} must be positive with at most {MAX_CTA_THREADS} threads")
    cluster = attr_value(op, "cluster") or (1, 1, 1)
    if any(c <= 0 for c in cluster) or cluster[0] * cluster[1] * cluster[2] > 16:
        fail("launch-shape", f"cluster {list(cluster)} must be positive with at most 16 CTAs")
    grid = attr_value(op, "grid") or (1, 1, 1)
    if any(g <= 0 for g in grid) or grid[1] > 65535 or grid[2] > 65535:
        fail("launch-shape", f"grid {list(grid)} must be positive, with y and z at most 65535 (CUDA's limits)")
    blocks = list(op.regions[0].blocks)
    if len(blocks) != 1:
        fail("body", f"expects a single-block body, got {len(blocks)} blocks")
    for i, arg in enumerate(blocks[0].arguments):
        try:
            bt = BufferType.of(arg.type)
        except TypeParseError as e:
            fail("buffer-type", f"parameter #{i}: {e}")
        if bt is not None:
            if bt.scope != "global":
                fail("parameter", f"parameter #{i} must be a global buffer or a scalar, got a {bt.scope} buffer")
            check_buffer_once(bt, f"parameter #{i}")
        elif str(arg.type) not in ("i32", "i64", "f32"):
            fail("parameter", f"parameter #{i} must be a global buffer or an i32/i64/f32 scalar, got {arg.type}")
    ops = blocks[0].operations  # (indexed, not listed: that would wrap every op)
    last = spec_of(ops[-1].operation.name) if len(ops) else None
    if last is None or not last.terminator:
        fail("body", "the body must end with tile.return")


def _pow2_cols(n: int) -> None:
    if n < 32 or n > TMEM_COLUMNS or n & (n - 1):
        fail("tmem-alloc", f"num_cols must be a power of two in [32, {TMEM_COLUMNS}] (PTX tcgen05.alloc), got {n}")


def _verify_tmem_alloc(op, kernel: KernelFacts) -> None:  # and tmem.dealloc
    check_slot(op.operands[0], 32, "operand #0 (slot)")
    _pow2_cols(attr_value(op, "num_cols"))


def _verify_tmem_buffer(op, kernel: KernelFacts) -> None:
    check_slot(op.operands[0], 32, "operand #0 (slot)")
    if not any(u.owner.name == "tile.tmem.alloc" for u in op.operands[0].uses if hasattr(u.owner, "name")):
        fail("tmem-address", "the slot is not written by any tile.tmem.alloc, so the buffer has no address")


def _verify_reinterpret(op, kernel: KernelFacts) -> None:
    src = buffer_type(op.operands[0], "operand #0 (source)")
    dst = buffer_type(op.results[0], "result")
    if src.scope != "shared" or dst.scope != "shared":
        fail("operand-scope", f"tile.reinterpret views a shared buffer as another shared buffer, got "
             f"{src.scope} -> {dst.scope}")
    src_bytes, dst_bytes = (t.storage_bytes(getattr(t.layout, "inner", t.layout).span()) for t in (src, dst))
    if dst_bytes > src_bytes:
        fail("reinterpret-size", f"the result's layout spans {dst_bytes} bytes, the source holds {src_bytes}")
    if (dst.align or 16) > (src.align or 16):
        fail("alignment", f"the result claims align {dst.align}, the source guarantees {src.align or 16}")


def _verify_subview(op, kernel: KernelFacts) -> None:
    src = buffer_type(op.operands[0], "operand #0 (source)")
    res = buffer_type(op.results[0], "result")
    offsets, sizes = attr_value(op, "static_offsets"), attr_value(op, "sizes")
    rank = len(src.shape)
    if len(offsets) != rank or len(sizes) != rank:
        fail("subview-rank", f"{len(offsets)} static_offsets and {len(sizes)} sizes for a rank-{rank} source")
    dynamic = sum(o == SUBVIEW_DYNAMIC for o in offsets)
    if dynamic != len(op.operands) - 1:
        fail("subview-offsets", f"static_offsets has {dynamic} dynamic entries (-1), the op {len(op.operands) - 1} "
             "offset operands")
    for d, (o, n, ext) in enumerate(zip(offsets, sizes, src.shape)):
        if not 0 < n <= ext or (o != SUBVIEW_DYNAMIC and (o < 0 or o + n > ext)):
            fail("region-in-bounds", f"window [{o}, {o} + {n}) of dim {d} is outside the source's extent {ext}")
    strides = subview_strides(src)
    tup = lambda xs: "(" + ", ".join(map(str, xs)) + ("," if len(xs) == 1 else "") + ")"  # noqa: E731
    want = BufferType("global", tuple(sizes), src.elem, f"S[{tup(sizes)} : {tup(strides)}]", None)
    if res.elem != src.elem or res.shape != want.shape or res.layout != want.layout:
        fail("result-type", f"the window of this source is {want}, got {res}")


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
    if (getattr(lay, "inner", None) is not None or len(shard) != len(src.shape) or lay.replica or lay.offset
            or any(it.extent != d for it, d in zip(shard, src.shape))):
        fail("subview-layout", f"a window of a global buffer with layout {src.layout_text!r}: only row-major or "
             "one strided iter per dim")
    return tuple(it.stride for it in shard)


def _verify_barrier_operand(op, kernel: KernelFacts) -> None:
    check_slot(op.operands[0], 64, "operand #0 (barrier)")


def _verify_commit(op, kernel: KernelFacts) -> None:
    _verify_barrier_operand(op, kernel)
    mask = attr_value(op, "multicast_mask")
    if mask is not None and not 0 <= mask < (1 << 16):
        fail("multicast", f"multicast_mask must be a 16-bit mask of CTA ranks (PTX ctaMask), got {mask}")


def _verify_mbarrier_init(op, kernel: KernelFacts) -> None:
    _verify_barrier_operand(op, kernel)
    count = attr_value(op, "count")
    if not 1 <= count < (1 << 20):
        fail("mbarrier", f"count must be in [1, 2^20 - 1], got {count}")


def _copy_regions(op) -> tuple[BufferType, tuple[int, ...], tuple[int, ...]]:
    """(dst type, dst region shape, src region shape) of a copy whose regions hold the same elements."""
    dst_t = buffer_type(op.operands[0], "operand #0 (dst)")
    src_t = buffer_type(op.operands[1], "operand #1 (src)")
    dst_r = region_of(op, "dst", dst_t)
    src_r = region_of(op, "src", src_t)
    if dst_r.numel != src_r.numel:
        fail("region-size", f"dst region {list(dst_r.shape)} has {dst_r.numel} elements, "
             f"src region {list(src_r.shape)} has {src_r.numel}")
    if dst_t.elem_bits != src_t.elem_bits:
        fail("element-type", f"dst element type {dst_t.elem} and src element type {src_t.elem} differ in width")
    return dst_t, dst_r.shape, src_r.shape


def _verify_copy(op, kernel: KernelFacts) -> None:
    _, dst_shape, src_shape = _copy_regions(op)
    if dst_shape != src_shape:
        fail("region-size", f"tile.copy needs equal region shapes, got {list(dst_shape)} and {list(src_shape)}")
    src_scope = buffer_type(op.operands[1], "operand #1 (src)").scope
    if src_scope == "reg" and buffer_type(op.operands[0], "operand #0 (dst)").scope == "reg":
        fail("operand-scope", "tile.copy between two register tiles moves no memory; registers go to or come "
             "from global or shared memory")


def _verify_copy_async(op, kernel: KernelFacts) -> None:
    dst_t, _, _ = _copy_regions(op)
    src_scope = buffer_type(op.operands[1], "operand #1 (src)").scope
    if dst_t.scope == "tmem" and src_scope != "reg":  # tcgen05.cp; tcgen05.st has no cta_group
        same_cta_group(op, attr_value(op, "cta_group"), kernel)
    if "reg" in (dst_t.scope, src_scope) and {dst_t.scope, src_scope} != {"reg", "tmem"}:
        fail("operand-scope", f"tile.copy_async moves registers only to or from tmem (tcgen05.ld / tcgen05.st), "
             f"got {src_scope} -> {dst_t.scope}; use tile.copy to store registers to global or shared memory")
    _verify_tma_operands(op, src_scope, dst_t.scope, kernel)


def _verify_tma_operands(op, src_scope: str, dst_scope: str, kernel: KernelFacts) -> None:
    """The mbarrier operand and multicast_mask of a TMA load (docs/tma.md §1)."""
    has_barrier = len(op.operands) > 2
    if has_barrier:
        check_slot(op.operands[2], 64, "operand #2 (barrier)")
        if (src_scope, dst_scope) != ("global", "shared"):
            fail("barrier", f"only a global -> shared copy (a TMA load) completes on an mbarrier, got "
                 f"{src_scope} -> {dst_scope}")
    mask = attr_value(op, "multicast_mask")
    if mask is not None:
        if not has_barrier:
            fail("multicast", "multicast_mask is for TMA loads: give the mbarrier operand")
        if not 0 < mask < (1 << 16):
            fail("multicast", f"multicast_mask must be a non-zero 16-bit mask of CTA ranks (PTX ctaMask), got {mask}")
        if mask >> kernel.cluster_size:
            fail("multicast", f"multicast_mask {mask:#x} names CTA ranks beyond the cluster of {kernel.cluster_size}")
    if attr_value(op, "barrier_cta") == "pair_leader":
        # the even CTA's barrier at the same offset: PTX lets a .cta_group::2 load signal the peer's
        if not has_barrier:
            fail("barrier-cta", "barrier_cta = \"pair_leader\" names whose mbarrier a TMA load completes on: give "
                 "the mbarrier operand")
        if attr_value(op, "cta_group") != 2:
            fail("barrier-cta", "only a cta_group = 2 TMA load may complete on the pair leader's mbarrier (PTX "
                 f"cp.async.bulk.tensor .cta_group::2), got cta_group {attr_value(op, 'cta_group')}")
        if mask is not None:
            fail("barrier-cta", "barrier_cta = \"pair_leader\" with multicast_mask: a multicast load signals the "
                 "barrier of each destination's pair by the parity of the barrier's CTA; not supported")
        if kernel.cluster_size % 2:
            fail("barrier-cta", f"barrier_cta = \"pair_leader\" needs CTA pairs: the cluster has "
                 f"{kernel.cluster_size} CTAs")


def _verify_tensor_map(op, kernel: KernelFacts) -> None:
    from ..layout import Iter, TileLayout, m

    # (its operand, a global buffer, is a kernel parameter: no op makes global buffers)
    if getattr(op.parent, "name", None) != "tile.kernel":
        fail("placement", "tile.tensor_map must be directly in the kernel body: it declares a kernel parameter")
    bt = buffer_type(op.operands[0], "operand #0 (buffer)")
    shape = bt.shape
    row_major = TileLayout([Iter(e, math.prod(shape[i + 1:]), m) for i, e in enumerate(shape)])
    if bt.layout_text is not None and bt.layout.canonicalize() != row_major.canonicalize():
        fail("tensor-map-layout", f"the buffer's layout \"{bt.layout_text}\" is not row-major; TMA maps "
             "describe row-major tensors here")
    problem = tensor_map_problem(shape, bt.elem, attr_value(op, "box"), attr_value(op, "swizzle"),
                                 attr_value(op, "oob_fill"))
    if problem:
        fail(*problem)


def _verify_expect_tx(op, kernel: KernelFacts) -> None:
    _verify_barrier_operand(op, kernel)
    n = attr_value(op, "bytes")
    if not 0 <= n < (1 << 20):
        fail("mbarrier", f"bytes must be in [0, 2^20 - 1] (the mbarrier tx-count range), got {n}")


def _verify_bulk_wait(op, kernel: KernelFacts) -> None:
    n = attr_value(op, "pending")
    if not 0 <= n <= 63:
        fail("bulk-wait", f"pending must be in [0, 63], got {n}")


# (src element type, dst element type) -> the roundings cvt has for it (PTX ISA "cvt": f8 needs .satfinite)
CONVERSIONS = {
    ("f32", "bf16"): ("rn", "rz"), ("f32", "f16"): ("rn", "rz"),
    ("f32", "f8E4M3FN"): ("rn_satfinite",), ("f32", "f8E5M2"): ("rn_satfinite",),
}


def _verify_alloc_reg(op, kernel: KernelFacts) -> None:
    if kernel.threads is not None:
        check_register_budget(buffer_type(op.results[0], "result #0"), kernel.threads, "result #0")


def _verify_convert(op, kernel: KernelFacts) -> None:
    dst_t = buffer_type(op.operands[0], "operand #0 (dst)")
    src_t = buffer_type(op.operands[1], "operand #1 (src)")
    if dst_t.shape != src_t.shape:
        fail("shape", f"dst shape {list(dst_t.shape)} and src shape {list(src_t.shape)} differ")
    roundings = CONVERSIONS.get((src_t.elem, dst_t.elem))
    if roundings is None:
        known = ", ".join(f"{a} -> {b}" for a, b in CONVERSIONS)
        fail("element-type", f"no conversion {src_t.elem} -> {dst_t.elem} (known: {known})")
    rounding = attr_value(op, "rounding")
    if rounding not in roundings:
        fail("rounding", f"{src_t.elem} -> {dst_t.elem} rounds {' or '.join(roundings)}, got {rounding!r}")
    from ..layout import THREAD_AXES, fragment_of  # (on first use, as check_buffer)

    d, s = fragment_of(dst_t.layout), fragment_of(src_t.layout)
    if not ((d.warp == s.warp).all() and (d.lane == s.lane).all()):
        fail("layout", "dst and src must put every element in the same thread "
             f"({', '.join(a.name for a in THREAD_AXES)} equal): a conversion moves no data between threads")
    slot_of: dict[int, int] = {}
    for ds, ss in zip(d.slot.tolist(), s.slot.tolist()):
        if slot_of.setdefault(ds, ss) != ss:
            fail("layout", f"dst register slot {ds} holds elements of src slots {slot_of[ds]} and {ss} in different "
                 "threads: the slot map must be the same in every thread (one instruction sequence serves all)")


def _matrix_shape(op, side: str, bt: BufferType) -> tuple[int, int]:
    """The (rows, cols) of a gemm operand's region: its shape without leading dims of extent 1."""
    shape = region_of(op, side, bt).shape
    while len(shape) > 2 and shape[0] == 1:
        shape = shape[1:]
    if len(shape) != 2:
        fail("gemm-shape", f"the {side} region {list(region_of(op, side, bt).shape)} is not a matrix (2 dims "
             "after leading dims of extent 1)")
    return shape


def _verify_gemm_async(op, kernel: KernelFacts) -> None:  # and gemm_async.block_scale (docs/gemm.md §1)
    d_t = buffer_type(op.operands[0], "operand #0 (d)")
    a_t = buffer_type(op.operands[1], "operand #1 (a)")
    b_t = buffer_type(op.operands[2], "operand #2 (b)")
    (md, n), (ma, ka), (nb, kb) = (_matrix_shape(op, s, t) for s, t in (("d", d_t), ("a", a_t), ("b", b_t)))
    cta_group = attr_value(op, "cta_group")
    if ka != kb:
        fail("gemm-shape", f"a is {ma}x{ka} and b {nb}x{kb} (M x K and N x K): their K differ")
    if ma != md:
        fail("gemm-shape", f"a has {ma} rows and d {md}: both hold this CTA's M / cta_group rows")
    if nb * cta_group != n:
        fail("gemm-shape", f"b has {nb} rows (N / cta_group) and d {n} columns (N), with cta_group {cta_group}")
    scope = attr_value(op, "scope")
    if d_t.scope == "tmem":
        same_cta_group(op, cta_group, kernel)
        if scope != "thread":
            fail("gemm-scope", f"an accumulator in tensor memory is tcgen05.mma's, issued by one thread: scope "
                 f"must be \"thread\" (put it under an elected thread), got \"{scope}\"")
    else:
        if op.name.endswith("block_scale"):
            fail("operand-scope", "block-scaled MMAs accumulate in tensor memory (tcgen05.mma): d must be tmem")
        if a_t.scope != "shared":
            fail("operand-scope", "with a register accumulator (wgmma) A is read from shared memory")
        if scope != "warpgroup" or cta_group != 1:
            fail("gemm-scope", f"a register accumulator is wgmma's, issued by a warpgroup with cta_group 1: got "
                 f"scope \"{scope}\", cta_group {cta_group}")


def _verify_gemm_wait(op, kernel: KernelFacts) -> None:
    n = attr_value(op, "pending")
    if not 0 <= n <= 63:
        fail("gemm-wait", f"pending must be in [0, 63], got {n}")


def _verify_tmem_load(op, kernel: KernelFacts) -> None:
    n = attr_value(op, "num_cols")
    if n < 1 or n > TMEM_COLUMNS or n & (n - 1):
        fail("tmem-load", f"num_cols must be a power of two in [1, {TMEM_COLUMNS}] (tcgen05.ld.32x32b.xN, N <= 128 per "
             f"instruction), got {n}")
    dst_t = buffer_type(op.operands[0], "operand #0 (dst)")
    if dst_t.elem_bits == 6:
        fail("tmem-load", f"dst holds packed 6-bit {dst_t.elem}, but tmem holds 6-bit data in 8-bit containers "
             "and tile.tmem.load copies whole 32-bit columns: read them into an 8-bit buffer (e.g. ui8)")
    lanes = 32 if attr_value(op, "scope") == "warp" else 128
    if len(dst_t.shape) != 2 or dst_t.shape[0] != lanes or dst_t.shape[1] * dst_t.elem_bits != n * 32:
        fail("tmem-load", f"dst must be [{lanes}, {n * 32 // max(dst_t.elem_bits, 1)}] of {dst_t.elem} "
             f"({lanes} lanes x {n} 32-bit columns), got {'x'.join(map(str, dst_t.shape))}")
    col = attr_value(op, "col_offset")
    if col < 0:
        fail("tmem-load", "col_offset must be non-negative")
    if col + n > TMEM_COLUMNS:
        fail("tmem-load", f"columns [{col}, {col + n}) reach beyond the {TMEM_COLUMNS} tmem columns")


SCOPE_CHOICES = ("thread", "warp", "warpgroup", "cta")
_CTA_GROUP = AttrSpec("cta_group", "i64", default=1, choices=(1, 2))
_TCGEN05 = frozenset({Trait.TCGEN05})
_REGION_ATTRS = (
    AttrSpec("dst_offsets", "i64_array"), AttrSpec("dst_sizes", "i64_array"),
    AttrSpec("src_offsets", "i64_array"), AttrSpec("src_sizes", "i64_array"),
)

_GEMM_OPERANDS = (OperandSpec("d", "buffer:tmem|reg"), OperandSpec("a", "buffer:shared|tmem"),
                  OperandSpec("b", "buffer:shared"), OperandSpec("accumulate", "i1"))
_GEMM_ATTRS = tuple(AttrSpec(f"{side}_{what}", "i64_array") for side in "dab" for what in ("offsets", "sizes")) + (
    AttrSpec("kind", "str", choices=("tf32", "f16", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")), _CTA_GROUP,
    AttrSpec("scope", "str", default="thread", choices=("thread", "warpgroup")), AttrSpec("dispatch", "str"))

OP_SPECS: tuple[OpSpec, ...] = (
    OpSpec("kernel", "A GPU kernel; its block arguments are the kernel parameters (global buffers or "
           "i32/i64/f32 scalars, in PTX .param order).",
           attrs=(AttrSpec("sym_name", "str", required=True), AttrSpec("block", "i32_array3", required=True),
                  AttrSpec("cluster", "i32_array3"), AttrSpec("grid", "i32_array3")),
           regions=1, verify=_verify_kernel),
    OpSpec("return", "Terminates a tile.kernel body.", terminator=True),
    OpSpec("thread_id", "Linear thread index in the CTA.", results=(OperandSpec("result", "i32"),)),
    OpSpec("warp_id", "Warp index in the CTA (linear thread index / 32).", results=(OperandSpec("result", "i32"),)),
    OpSpec("lane_id", "Lane index in the warp.", results=(OperandSpec("result", "i32"),)),
    OpSpec("cta_rank", "Rank of this CTA in its cluster (%cluster_ctarank).", results=(OperandSpec("result", "i32"),)),
    OpSpec("block_id", "Index of this CTA in the grid along `dim` (%ctaid).",
           attrs=(AttrSpec("dim", "str", required=True, choices=("x", "y", "z")),),
           results=(OperandSpec("result", "i32"),)),
    OpSpec("grid_dim", "Number of CTAs in the grid along `dim` (%nctaid).",
           attrs=(AttrSpec("dim", "str", required=True, choices=("x", "y", "z")),),
           results=(OperandSpec("result", "i32"),)),
    OpSpec("elect_one", "True in exactly one lane of the executing warp (elect.sync); executed by a whole warp.",
           results=(OperandSpec("result", "i1"),)),
    OpSpec("alloc_shared", "A static shared-memory buffer, aligned as its type says.",
           results=(OperandSpec("result", "buffer:shared"),)),
    OpSpec("subview", "A window of a global buffer: sizes elements per dim from static_offsets (-1: the next "
           "i32 of `offsets`), the source's strides. tile.copy through it addresses the source; a TMA copy_async "
           "adds the offsets to its coordinates (a window crossing the tensor's edge: TMA fills / clips).",
           operands=(OperandSpec("source", "buffer:global"), OperandSpec("offsets", "i32", variadic=True)),
           results=(OperandSpec("result", "buffer:global"),),
           attrs=(AttrSpec("static_offsets", "i64_array", required=True), AttrSpec("sizes", "i64_array", required=True)),
           verify=_verify_subview),
    OpSpec("reinterpret", "A view of a shared buffer's bytes as another shared buffer type (element type, shape, "
           "layout) no larger and no more aligned; no data moves (e.g. a TMA box viewed as the matrix it holds).",
           operands=(OperandSpec("source", "buffer:shared"),), results=(OperandSpec("result", "buffer:shared"),),
           verify=_verify_reinterpret),
    OpSpec("copy", "Synchronous element copy between global and shared buffers by every thread of `scope`; to or "
           "from a reg buffer, each thread loads or stores the elements it holds (vectorised ld/st.global, "
           "ld/st.shared).",
           operands=(OperandSpec("dst", "buffer:global|shared|reg"), OperandSpec("src", "buffer:global|shared|reg")),
           attrs=_REGION_ATTRS + (AttrSpec("scope", "str", default="cta", choices=SCOPE_CHOICES),),
           verify=_verify_copy),
    OpSpec("fence", "A memory fence: proxy_async (fence.proxy.async.shared::cta, after generic stores that an "
           "async-proxy read consumes), tcgen05_before_sync / tcgen05_after_sync, mbarrier_init.",
           attrs=(AttrSpec("kind", "str", required=True,
                           choices=("proxy_async", "tcgen05_before_sync", "tcgen05_after_sync", "mbarrier_init")),)),
    OpSpec("barrier", "Thread barrier of the CTA (bar.sync 0) or of the cluster.",
           attrs=(AttrSpec("scope", "str", default="cta", choices=("cta", "cluster")),)),
    OpSpec("tmem.alloc", "tcgen05.alloc of num_cols tensor-memory columns by the executing warp; the address is "
           "written to `slot` (a shared 1xi32 buffer).",
           operands=(OperandSpec("slot", "buffer:shared"),),
           attrs=(AttrSpec("num_cols", "i64", required=True), _CTA_GROUP),
           verify=_verify_tmem_alloc, traits=_TCGEN05),
    OpSpec("tmem.relinquish", "tcgen05.relinquish_alloc_permit by the executing warp.", attrs=(_CTA_GROUP,),
           traits=_TCGEN05),
    OpSpec("tmem.dealloc", "tcgen05.dealloc of the allocation whose address is in `slot`, by the executing warp.",
           operands=(OperandSpec("slot", "buffer:shared"),),
           attrs=(AttrSpec("num_cols", "i64", required=True), _CTA_GROUP),
           verify=_verify_tmem_alloc, traits=_TCGEN05),
    OpSpec("tmem.buffer", "A tensor-memory buffer over the address that tile.tmem.alloc wrote to `slot`.",
           operands=(OperandSpec("slot", "buffer:shared"),), results=(OperandSpec("result", "buffer:tmem"),),
           verify=_verify_tmem_buffer),
    OpSpec("copy_async", "Asynchronous copy of src[region] to dst[region], lowered by the copy_async dispatch "
           "(tcgen05.cp for shared -> tmem: commit to an mbarrier; tcgen05.ld / tcgen05.st between tmem and "
           "registers, completed by the tcgen05.wait::ld / wait::st the lowering places before their first use; "
           "TMA (cp.async.bulk.tensor) between global and shared through a tile.tensor_map: a load completes on "
           "the mbarrier operand, a store at tile.bulk_wait).",
           operands=(OperandSpec("dst", "buffer:global|shared|tmem|reg"),
                     OperandSpec("src", "buffer:global|shared|tmem|reg"),
                     # TMA loads (global -> shared) complete on it: complete_tx of the box's bytes
                     OperandSpec("barrier", "buffer:shared", optional=True)),
           attrs=_REGION_ATTRS + (_CTA_GROUP, AttrSpec("scope", "str", default="thread", choices=SCOPE_CHOICES),
                                  AttrSpec("dispatch", "str"), AttrSpec("multicast_mask", "i64"),
                                  # whose mbarrier a cta_group 2 TMA load completes on (docs/tma.md §8)
                                  AttrSpec("barrier_cta", "str", default="own", choices=("own", "pair_leader"))),
           verify=_verify_copy_async),
    OpSpec("tensor_map", "Declares a TMA tensor map of a kernel buffer parameter (a grid-constant 128-byte kernel "
           "parameter after the kernel's own, encoded by the runtime): box elements per dim (outermost first), "
           "swizzle, L2 promotion, out-of-bounds fill (docs/tma.md).",
           operands=(OperandSpec("buffer", "buffer:global"),), results=(OperandSpec("map", "!tile.tensormap"),),
           attrs=(AttrSpec("box", "i64_array", required=True),
                  AttrSpec("swizzle", "str", default="none", choices=("none", "32B", "64B", "128B")),
                  AttrSpec("l2_promotion", "str", default="none", choices=("none", "64B", "128B", "256B")),
                  AttrSpec("oob_fill", "str", default="zero", choices=("zero", "nan"))),
           verify=_verify_tensor_map),
    OpSpec("tensor_map.prefetch", "prefetch.tensormap: bring a tensor map into the descriptor cache ahead of the "
           "first TMA copy through it, by the executing thread (put it under an elected thread).",
           operands=(OperandSpec("map", "!tile.tensormap"),)),
    OpSpec("mbarrier.arrive_expect_tx", "mbarrier.arrive.expect_tx: raise the barrier's tx-count by `bytes`, then "
           "arrive (the producer of TMA loads completing on it).",
           operands=(OperandSpec("barrier", "buffer:shared"),), attrs=(AttrSpec("bytes", "i64", required=True),),
           verify=_verify_expect_tx),
    OpSpec("mbarrier.expect_tx", "mbarrier.expect_tx: raise the barrier's tx-count by `bytes`, without arriving.",
           operands=(OperandSpec("barrier", "buffer:shared"),), attrs=(AttrSpec("bytes", "i64", required=True),),
           verify=_verify_expect_tx),
    OpSpec("bulk_wait", "cp.async.bulk.wait_group{.read} pending: wait until at most `pending` of this thread's "
           "bulk groups (TMA stores) are pending; kind \"read\" waits only until their sources were read.",
           attrs=(AttrSpec("pending", "i64", default=0), AttrSpec("kind", "str", default="all",
                                                                   choices=("all", "read"))),
           verify=_verify_bulk_wait),
    OpSpec("commit", "tcgen05.commit: arrive once on `barrier` when this thread's earlier tcgen05 async ops "
           "complete (multicast to the CTAs of multicast_mask when given).",
           operands=(OperandSpec("barrier", "buffer:shared"),),
           attrs=(_CTA_GROUP, AttrSpec("multicast_mask", "i64")),
           verify=_verify_commit, traits=_TCGEN05),
    OpSpec("async_wait", "Wait for this thread's cp.async copies (cp.async.wait_all).", attrs=()),
    OpSpec("mbarrier.init", "mbarrier.init with the expected arrival count.",
           operands=(OperandSpec("barrier", "buffer:shared"),), attrs=(AttrSpec("count", "i64", required=True),),
           verify=_verify_mbarrier_init),
    OpSpec("mbarrier.arrive", "mbarrier.arrive by the executing thread.",
           operands=(OperandSpec("barrier", "buffer:shared"),), verify=_verify_barrier_operand),
    OpSpec("mbarrier.wait", "Spin on mbarrier.try_wait.parity until the phase with parity `phase` completes.",
           operands=(OperandSpec("barrier", "buffer:shared"),),
           attrs=(AttrSpec("phase", "i64", default=0, choices=(0, 1)),), verify=_verify_barrier_operand),
    OpSpec("alloc_reg", "A register tile: every thread holds the elements its layout gives it (axes warpid, "
           "laneid, reg; docs/registers.md).", results=(OperandSpec("result", "buffer:reg"),),
           verify=_verify_alloc_reg),
    OpSpec("convert", "Element-type conversion between register tiles that put each element in the same thread, "
           "with PTX cvt's rounding (rn, rz; rn_satfinite for f8).",
           operands=(OperandSpec("dst", "buffer:reg"), OperandSpec("src", "buffer:reg")),
           attrs=(AttrSpec("rounding", "str", default="rn", choices=("rn", "rz", "rn_satfinite")),),
           verify=_verify_convert),
    OpSpec("gemm_async", "D (+)= A . B^T over the regions of d (M x N), a (M x K) and b (N x K), per CTA; "
           "`accumulate` false: D = A . B^T. Lowered by the gemm_async dispatch: tcgen05.mma (d in tmem; commit "
           "to an mbarrier) or wgmma (d a register tile; each op is one wgmma group: tile.gemm_wait).",
           operands=_GEMM_OPERANDS, attrs=_GEMM_ATTRS, verify=_verify_gemm_async),
    OpSpec("gemm_async.block_scale", "gemm_async with block scaling (tcgen05.mma.block_scale): D (+)= (A x sfa) . "
           "(B x sfb)^T, scale factors in tensor memory, one per row and scale_vec elements of K.",
           operands=_GEMM_OPERANDS + (OperandSpec("sfa", "buffer:tmem"), OperandSpec("sfb", "buffer:tmem")),
           attrs=_GEMM_ATTRS + (AttrSpec("scale_vec", "i64", default=32, choices=(16, 32)),),
           verify=_verify_gemm_async),
    OpSpec("gemm_wait", "wgmma.wait_group: wait until at most `pending` of the warpgroup's gemm_async groups "
           "(wgmma) are in flight; their accumulators may be read after it.",
           attrs=(AttrSpec("pending", "i64", default=0),), verify=_verify_gemm_wait),
    OpSpec("tmem.load", "Read tensor memory back to a global buffer: each warp of `scope` reads the 32 lanes of its "
           "quarter, columns [col_offset, col_offset + num_cols) (32-bit) of `src`, with tcgen05.ld.32x32b and "
           "tcgen05.wait::ld, and stores row (lane) by row into dst (shape [lanes, num_cols * 32 / bits]).",
           operands=(OperandSpec("dst", "buffer:global"), OperandSpec("src", "buffer:tmem")),
           attrs=(AttrSpec("col_offset", "i64", default=0), AttrSpec("num_cols", "i64", required=True),
                  AttrSpec("scope", "str", default="warpgroup", choices=("warp", "warpgroup"))),
           verify=_verify_tmem_load, traits=_TCGEN05),
)

_BY_NAME = {s.full_name: s for s in OP_SPECS}


def spec_of(name: str) -> OpSpec | None:
    return _BY_NAME.get(name)


def nearest_tile_op(name: str) -> str | None:
    """The tile op a misspelt op name most likely meant (`tiel.copy` -> `tile.copy`), or None."""
    import difflib

    suffix = name.partition(".")[2]
    if f"tile.{suffix}" in _BY_NAME:
        return f"tile.{suffix}"
    return next(iter(difflib.get_close_matches(name, list(_BY_NAME), n=1, cutoff=0.75)), None)


@register_dialect
class _TileDialect(ir.Dialect):
    DIALECT_NAMESPACE = "tile"


def _class_name(spec: OpSpec) -> str:
    return "".join(p.capitalize() for p in spec.name.replace(".", "_").split("_")) + "Op"


def _make_opview(spec: OpSpec):
    def attr(self, name):
        a = spec_attr(spec, name)
        return read_attr(self.operation, a)

    ns = {
        "OPERATION_NAME": spec.full_name,
        "_ODS_REGIONS": (spec.regions, True),
        "SPEC": spec,
        "attr": attr,
        "__doc__": spec.summary,
    }
    for i, o in enumerate(spec.operands):
        ns[o.name] = property(lambda self, i=i: self.operation.operands[i])
    cls = type(_class_name(spec), (ir.OpView,), ns)
    return register_operation(_TileDialect)(cls)


def spec_attr(spec: OpSpec, name: str) -> AttrSpec:
    return spec.attr(name)


def attr_value(op, name: str):
    """The Python value of tile op `op`'s attribute `name` (its default when absent)."""
    return read_attr(op, _BY_NAME[op.name].attr(name))


def read_attr(op, a: AttrSpec):
    """The Python value of attribute `a` on op (its default when absent); VerifyError when the
    attribute is not of a's kind."""
    return read_attr_in(op.attributes, a)


def read_attr_in(attrs, a: AttrSpec):
    """read_attr on an op's attribute map (`op.attributes`), for callers that already hold it."""
    if a.name not in attrs:  # (a KeyError from the bindings costs ~15x a membership test)
        return a.default
    try:
        raw = attrs[a.name]
    except TypeError:  # an attribute the bindings cannot downcast, e.g. array<si32: ...>
        raw = None
    if a.kind == "i64" and isinstance(raw, ir.IntegerAttr) and not _KIND_OK["i64"](raw):
        fail("attributes", f"attribute '{a.name}' must be an integer of 64 bits (`N` or `N : i64`), got one of "
             f"type {raw.type} (which MLIR holds as {raw}, whatever was written)")
    if raw is None or not _KIND_OK[a.kind](raw):
        fail("attributes", f"attribute '{a.name}' must be {KIND_NAMES[a.kind]}"
             + (f", got {raw}" if raw is not None else ""))
    return _READERS[a.kind](raw)


# Attributes come back already downcast to their concrete class (StringAttr, IntegerAttr, ...).
_KIND_OK = {
    "str": lambda x: isinstance(x, ir.StringAttr),
    # 64 bits only: `255 : i8` is the attribute `-1 : i8` to MLIR, so a narrower type cannot say its value
    "i64": lambda x: isinstance(x, ir.IntegerAttr) and isinstance(x.type, ir.IntegerType) and x.type.width == 64,
    "i64_array": lambda x: isinstance(x, ir.DenseI64ArrayAttr),
    "i32_array3": lambda x: isinstance(x, ir.DenseI32ArrayAttr) and len(x) == 3,
}
KIND_NAMES = {"str": "a string", "i64": "an integer", "i64_array": "array<i64: ...>",
              "i32_array3": "array<i32: x, y, z>"}
_READERS = {
    "str": lambda v: v.value_bytes.decode("utf-8", "replace"),  # (.value raises on bytes not UTF-8)
    "i64": lambda v: v.value,
    "i64_array": tuple,
    "i32_array3": tuple,
}


def make_attr(a: AttrSpec, value):
    if a.kind == "str":
        return ir.StringAttr.get(value)
    if a.kind == "i64":
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
    if a.kind == "i64_array":
        return ir.DenseI64ArrayAttr.get([int(x) for x in value])
    if a.kind == "i32_array3":
        return ir.DenseI32ArrayAttr.get([int(x) for x in value])
    raise AssertionError(a.kind)


OPVIEWS = {s.full_name: _make_opview(s) for s in OP_SPECS}
# The bindings look for a Python module of each dialect namespace whenever they wrap an op, and do not
# remember a miss: name this module as the `tile` dialect's so the lookup succeeds at once.
sys.modules.setdefault(f"{_mlir._ROOT}.dialects.tile", sys.modules[__name__])
for _cls in OPVIEWS.values():
    globals()[_cls.__name__] = _cls
__all__ += [c.__name__ for c in OPVIEWS.values()]
