"""Math on register tiles (docs/registers.md §8-§9): elementwise f32 operations, masks from an element's
logical coordinates, and reductions along a layout axis. Every op writes its first operand (dst, in
destination-passing style, as tile.convert); an operand of the dst's shape with some dimensions 1
broadcasts along them (a row value [M, 1] along the columns). Each thread computes the dst elements it
holds from its own registers (dialect/regtile.py), so no op but tile.reg.reduce moves data between
threads."""
from __future__ import annotations

from ..checks import buffer_type
from ..decline import fail
from ..enums import CmpPredicate, MaskKind, MemScope, RcpMode, ReduceKind
from ..op_def import I64, Attr, BufferOf, Emits, Operand, TileOp, TypeIs, Writes
from ..reduce_plan import plan_reduce
from ..regtile import coordinates, slot_map
from .sync import check_named_barrier

__all__ = ["RegFillOp", "RegNegOp", "RegExp2Op", "RegLg2Op", "RegRcpOp", "RegAddOp", "RegSubOp", "RegMulOp", "RegMaxOp", "RegMinOp",
           "RegFmaOp", "RegSelectOp", "RegMaskOp", "RegReduceOp", "REG_OPS"]

_REG = BufferOf(MemScope.REG)


def _what(op, name: str) -> str:
    """`operand #N (name)`, as diagnostics name an operand."""
    i = next(k for k, o in enumerate(op.SPEC.operands) if o.name == name)
    return f"operand #{i} ({name})"


def _f32_tiles(op, names) -> list:
    """The buffer types of the named operands, each an f32 register tile."""
    out = []
    for name in names:
        bt = buffer_type(getattr(op, name), _what(op, name))
        if bt.elem != "f32":
            fail("element-type", f"{_what(op, name)} holds {bt.elem}: tile.reg ops compute on f32 tiles "
                 "(tile.convert makes bf16 / f16 from them)")
        out.append(bt)
    return out


class _Elementwise(TileOp, name=None):
    """(the shared verifier of the elementwise ops: f32 tiles, broadcast shapes, a static slot map; not an
    op)"""

    TILES: tuple[str, ...] = ()

    def tiles(self):
        return ("dst",) + self.TILES

    def slot_map(self):
        """dialect/regtile.SlotMap of the op (its lowering reads the same)."""
        names = [n for n in self.tiles() if getattr(self, n) is not None]
        types = _f32_tiles(self, names)
        ops = tuple((bt, _what(self, n)) for n, bt in zip(names[1:], types[1:]))
        return slot_map(types[0], ops)

    def verify(self, kernel) -> None:
        self.slot_map()


class RegFillOp(_Elementwise, name="reg.fill"):
    """dst = value in every element (mov.b32)."""

    dst = Operand(_REG)
    value = Operand(TypeIs("f32"))
    TRAITS = (Writes("dst"), Emits(None, "mov"))


class RegNegOp(_Elementwise, name="reg.neg"):
    """dst = -src (neg.f32: the sign flipped, NaN included)."""

    dst = Operand(_REG)
    src = Operand(_REG)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits(None, "neg"))


class RegExp2Op(_Elementwise, name="reg.exp2"):
    """dst = 2^(src * scale - bias) by ex2.approx.ftz.f32 of one fma.rn.f32 (src, scale, -bias): scale an f32
    value, bias an optional tile (a row value broadcast along the columns: the scaled row maximum of an
    online softmax). Without bias, mul.rn.f32 (src, scale); with scale the constant 1.0 and no bias, ex2
    of src itself."""

    dst = Operand(_REG)
    src = Operand(_REG)
    scale = Operand(TypeIs("f32"))
    bias = Operand(_REG, optional=True)
    TILES = ("src", "bias")
    TRAITS = (Writes("dst"), Emits("nvvm.ex2", "ex2.approx"), Emits("nvvm.fma", "fma"), Emits("nvvm.fma.packed.f32x2", "fma"),
              Emits("llvm.call_intrinsic", "mul"), Emits("nvvm.mul.packed.f32x2", "mul"), Emits(None, "neg"))


class RegLg2Op(_Elementwise, name="reg.lg2"):
    """dst = log2(src) by lg2.approx.ftz.f32 (the log-sum-exp of an attention kernel: m * scale + log2(l))."""

    dst = Operand(_REG)
    src = Operand(_REG)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits("nvvm.log2", "lg2.approx"))


class RegRcpOp(_Elementwise, name="reg.rcp"):
    """dst = 1 / src: rcp.approx.ftz.f32 (mode approx) or rcp.rn.f32 (mode rn, IEEE): the final 1 / l of an
    attention kernel's output."""

    dst = Operand(_REG)
    src = Operand(_REG)
    mode = Attr(RcpMode, default=RcpMode.RN)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits("nvvm.rcp.approx.ftz.f", "rcp.approx"), Emits("llvm.call_intrinsic", "rcp.rn"))


class _Binary(_Elementwise, name=None):
    dst = Operand(_REG)
    lhs = Operand(_REG)
    rhs = Operand(_REG)
    TILES = ("lhs", "rhs")


# the packed f32x2 forms (sm_100a): chosen by the lowering where two adjacent dst slots allow, bit for bit
# the scalar .rn operation on each half (PTX ISA "add", "mul", "fma": .f32x2)
class RegAddOp(_Binary, name="reg.add"):
    """dst = lhs + rhs (add.rn.f32; add.rn.f32x2 on sm_100a for pairs of adjacent slots)."""

    TRAITS = (Writes("dst"), Emits("nvvm.addf", "add"), Emits("nvvm.add.packed.f32x2", "add"))


class RegSubOp(_Binary, name="reg.sub"):
    """dst = lhs - rhs (sub.rn.f32; sub.rn.f32x2 on sm_100a for pairs of adjacent slots)."""

    TRAITS = (Writes("dst"), Emits("nvvm.subf", "sub"), Emits("nvvm.sub.packed.f32x2", "sub"))


class RegMulOp(_Binary, name="reg.mul"):
    """dst = lhs * rhs (mul.rn.f32; mul.rn.f32x2 on sm_100a for pairs of adjacent slots)."""

    TRAITS = (Writes("dst"), Emits("llvm.call_intrinsic", "mul"), Emits("nvvm.mul.packed.f32x2", "mul"))


class RegMaxOp(_Binary, name="reg.max"):
    """dst = max(lhs, rhs) (max.f32: a NaN operand gives the other one)."""

    TRAITS = (Writes("dst"), Emits(None, "max"))


class RegMinOp(_Binary, name="reg.min"):
    """dst = min(lhs, rhs) (min.f32: a NaN operand gives the other one)."""

    TRAITS = (Writes("dst"), Emits(None, "min"))


class RegFmaOp(_Elementwise, name="reg.fma"):
    """dst = a * b + c rounded once (fma.rn.f32; fma.rn.f32x2 on sm_100a for pairs of adjacent slots): the
    online softmax's rescale of a running sum, o = o * alpha + ..."""

    dst = Operand(_REG)
    a = Operand(_REG)
    b = Operand(_REG)
    c = Operand(_REG)
    TILES = ("a", "b", "c")
    TRAITS = (Writes("dst"), Emits("nvvm.fma", "fma"), Emits("nvvm.fma.packed.f32x2", "fma"))


class RegSelectOp(_Elementwise, name="reg.select"):
    """dst = (lhs `predicate` rhs) ? on_true : on_false (setp.<predicate>.f32, ordered: false for a NaN
    operand; selp.f32)."""

    dst = Operand(_REG)
    lhs = Operand(_REG)
    rhs = Operand(_REG)
    on_true = Operand(_REG)
    on_false = Operand(_REG)
    predicate = Attr(CmpPredicate, required=True)
    TILES = ("lhs", "rhs", "on_true", "on_false")
    TRAITS = (Writes("dst"), Emits(None, ("setp", "selp")))


class RegMaskOp(_Elementwise, name="reg.mask"):
    """dst = -inf where the element's logical (row, col) is masked, else src: causal, col > row + bound;
    residual, col >= bound (bound an index value: the query tile's offset from the key tile's, or the
    valid keys in this tile). The thread computes its row and column once from its index; each element
    is one setp and one selp."""

    dst = Operand(_REG)
    src = Operand(_REG)
    bound = Operand(TypeIs("index"))
    kind = Attr(MaskKind, required=True)
    TILES = ("src",)
    TRAITS = (Writes("dst"), Emits(None, ("setp", "selp", "sub", "add")))

    def verify(self, kernel) -> None:
        super().verify(kernel)
        dst_t = buffer_type(self.dst, "operand #0 (dst)")
        if len(dst_t.shape) != 2:
            fail("shape", f"tile.reg.mask masks a 2-d (row, col) tile, got shape {list(dst_t.shape)}")
        coordinates(dst_t, "operand #0 (dst)")


class RegReduceOp(TileOp, name="reg.reduce"):
    """dst = src reduced along `axis` (dst: src's shape with that dimension 1) by max.f32 or add.rn.f32:
    inside each thread, then across the lanes that share an output element by shfl.sync.bfly, then,
    where the layout spreads the axis over warps, across warps through `scratch` (shared f32, one word per
    output element and warp) between named barriers `barrier_id` (docs/registers.md §9)."""

    dst = Operand(_REG)
    src = Operand(_REG)
    scratch = Operand(BufferOf(MemScope.SHARED), optional=True)
    kind = Attr(ReduceKind, required=True)
    axis = Attr(I64, required=True)
    barrier_id = Attr(I64)
    TRAITS = (Writes("dst"), Emits("nvvm.shfl.sync", "shfl"), Emits(None, ("max", "add")),
              Emits("nvvm.barrier", "bar.sync"), Emits(None, ("st", "ld")))

    def plan(self):
        dst_t, src_t = _f32_tiles(self, ("dst", "src"))
        return plan_reduce(src_t, dst_t, self.axis)

    def verify(self, kernel) -> None:
        if self.dst == self.src:
            fail("in-place", "dst and src are one tile: a reduction's result has another shape")
        plan = self.plan()
        if plan.warps == 1:
            if self.scratch is not None or self.barrier_id is not None:
                fail("scratch", "the layout keeps each output element inside one warp: the reduction needs no "
                     "scratch or barrier_id")
            return
        if self.scratch is None or self.barrier_id is None:
            fail("scratch", f"the layout spreads the axis over {plan.warps} warps: give a shared f32 scratch "
                 "operand and a barrier_id for the exchange between them")
        sc = buffer_type(self.scratch, "operand #2 (scratch)")
        need = buffer_type(self.dst, "operand #0 (dst)").numel * plan.warps
        if sc.elem != "f32" or sc.numel < need:
            fail("scratch", f"operand #2 (scratch) must hold at least {need} f32 (one per output element and "
                 f"warp), got {sc.numel} {sc.elem}")
        check_named_barrier(self.barrier_id, plan.threads)


REG_OPS = (RegFillOp, RegNegOp, RegExp2Op, RegLg2Op, RegRcpOp, RegAddOp, RegSubOp, RegMulOp, RegMaxOp, RegMinOp, RegFmaOp,
           RegSelectOp, RegMaskOp, RegReduceOp)
