"""Lowerings of the register-tile math ops and the named barriers (docs/registers.md §8-§9).

An elementwise op walks its slot map (dialect/regtile.py, the one its verifier checked): per dst slot, the
operand slots are loaded from the tiles' allocas (SROA makes them registers, docs/registers.md §2), one
instruction computes, the result is stored. On chips with the packed f32x2 forms (sm_100a) two adjacent
dst slots go through one add / mul / fma.rn.f32x2, bit for bit the two scalar .rn operations. A masked
element is one compare of a per-thread value with a per-slot constant (regtile.coordinates). A reduction
follows its plan (dialect/reduce_plan.py): the halving fold of each partial, the butterfly of shuffles,
and the shared-memory exchange between warps.
"""
from __future__ import annotations

from ...dialect.enums import MaskKind, RcpMode, ReduceKind
from ...dialect.ops import (NamedBarrierArriveOp, NamedBarrierSyncOp, RegAddOp, RegExp2Op, RegFillOp, RegFmaOp,
                            RegLg2Op, RegMaskOp, RegMaxOp, RegMinOp, RegMulOp, RegNegOp, RegRcpOp, RegReduceOp,
                            RegSelectOp, RegSubOp)
from ...dialect.reduce_plan import fold_order
from ...dialect.regtile import coordinates
from ...dialect.types import BufferType
from ...mlir import ir, nvvm_f32_ops
from .. import nvvm_ir
from ..emitter import I32
from .registry import lowers


class _Tiles:
    """Loads and stores of f32 register-tile slots for one op; an operand slot is loaded once."""

    def __init__(self, k, em):
        self.k, self.em, self.loaded = k, em, {}
        self.f32 = ir.F32Type.get()

    def ptr(self, value):
        return self.k.buffers.get(value)

    def load(self, value, slot: int):
        key = (value, slot)
        v = self.loaded.get(key)
        if v is None:
            v = self.loaded[key] = self.em.load(self.f32, self.em.gep(self.ptr(value), 4 * slot), align=4)
        return v

    def load_neg(self, value, slot: int):
        key = (value, slot, "neg")
        v = self.loaded.get(key)
        if v is None:
            v = self.loaded[key] = nvvm_ir.f32_neg(self.em, self.load(value, slot))
        return v

    def store(self, value, slot: int, v) -> None:
        self.em.store(v, self.em.gep(self.ptr(value), 4 * slot), align=4)


def _packed(k) -> bool:
    """Two slots in one f32x2 operation: the chip has them, and so do the provider's bindings."""
    target = getattr(k, "target", None)
    return target is not None and target.has_f32x2 and nvvm_f32_ops


def _vec2(em, a, b):
    """<a, b> : vector<2xf32> (a the low half: PTX's first element of a .f32x2 operand)."""
    vt = ir.VectorType.get([2], ir.F32Type.get())
    v = em.result("llvm.mlir.poison", vt)
    v = em.result("llvm.insertelement", vt, (v, a, em.i32(0)))
    return em.result("llvm.insertelement", vt, (v, b, em.i32(1)))


def _halves(em, v):
    f32 = ir.F32Type.get()
    return (em.result("llvm.extractelement", f32, (v, em.i32(0))),
            em.result("llvm.extractelement", f32, (v, em.i32(1))))


def _elementwise(k, op, em, compute, *, pairs: bool = False, negate=()) -> None:
    """dst[slot] = compute(operand values) per slot of the op's slot map; with `pairs` (an op whose
    instruction has an f32x2 form) and a chip that has it, adjacent dst slots two at a time. The operands
    numbered in `negate` are read negated (neg.f32 once per slot)."""
    sm = op.slot_map()
    names = [n for n in op.tiles()[1:] if getattr(op, n) is not None]
    tiles = _Tiles(k, em)
    values = [getattr(op, n) for n in names]
    load = [tiles.load_neg if n in negate else tiles.load for n in range(len(values))]
    slots = list(sm.slots)
    index = {s: i for i, s in enumerate(slots)}
    done = set()
    packed = pairs and _packed(k)
    for i, d in enumerate(slots):
        if d in done:
            continue
        j = index.get(d + 1)
        if packed and d % 2 == 0 and j is not None:
            args = [_vec2(em, load[n](v, sm.sources[n][i]), load[n](v, sm.sources[n][j]))
                    for n, v in enumerate(values)]
            lo, hi = _halves(em, compute(args))
            tiles.store(op.dst, d, lo)
            tiles.store(op.dst, d + 1, hi)
            done.update((d, d + 1))
            continue
        tiles.store(op.dst, d, compute([load[n](v, sm.sources[n][i]) for n, v in enumerate(values)]))
        done.add(d)


@lowers(RegFillOp)
def _fill(k, op, em):
    tiles = _Tiles(k, em)
    for d in op.slot_map().slots:
        tiles.store(op.dst, d, op.value)


@lowers(RegNegOp)
def _neg(k, op, em):
    _elementwise(k, op, em, lambda a: nvvm_ir.f32_neg(em, a[0]))


@lowers(RegLg2Op)
def _lg2(k, op, em):
    _elementwise(k, op, em, lambda a: nvvm_ir.lg2_approx_ftz(em, a[0]))


@lowers(RegRcpOp)
def _rcp(k, op, em):
    approx = op.mode == RcpMode.APPROX
    _elementwise(k, op, em, lambda a: nvvm_ir.rcp(em, a[0], approx=approx))


def _binary(name: str, pairs: bool):
    def lower(k, op, em):
        _elementwise(k, op, em, lambda a: nvvm_ir.f32_arith(em, name, a[0], a[1]), pairs=pairs)
    return lower


lowers(RegAddOp)(_binary("add", True))
lowers(RegSubOp)(_binary("sub", True))
lowers(RegMulOp)(_binary("mul", True))
lowers(RegMaxOp)(_binary("max", False))
lowers(RegMinOp)(_binary("min", False))


@lowers(RegFmaOp)
def _fma(k, op, em):
    _elementwise(k, op, em, lambda a: nvvm_ir.f32_fma(em, a[0], a[1], a[2]), pairs=True)


@lowers(RegSelectOp)
def _select(k, op, em):
    pred = str(op.predicate)
    _elementwise(k, op, em, lambda a: nvvm_ir.f32_select(em, pred, a[0], a[1], a[2], a[3]))


def _is_one(value) -> bool:
    """Whether `value` is the f32 constant 1.0 (arith.constant or llvm.mlir.constant)."""
    owner = getattr(value, "owner", None)
    if getattr(owner, "name", None) not in ("arith.constant", "llvm.mlir.constant"):
        return False
    attr = owner.attributes["value"]
    return isinstance(attr, ir.FloatAttr) and attr.value == 1.0


@lowers(RegExp2Op)
def _exp2(k, op, em):
    """ex2.approx.ftz.f32 of fma.rn(src, scale, -bias), of mul.rn(src, scale) without bias, of src itself
    when scale is 1.0 and there is no bias. -bias is negated once per bias slot (exact)."""
    scale, bias = op.scale, op.bias
    if bias is None and _is_one(scale):
        _elementwise(k, op, em, lambda a: nvvm_ir.ex2_approx_ftz(em, a[0]))
        return
    scale2 = []

    def compute(a):
        if isinstance(a[0].type, ir.VectorType):
            if not scale2:
                scale2.append(_vec2(em, scale, scale))
            x = nvvm_ir.f32_fma(em, a[0], scale2[0], a[1]) if bias is not None else \
                nvvm_ir.f32_arith(em, "mul", a[0], scale2[0])
            lo, hi = _halves(em, x)
            return _vec2(em, nvvm_ir.ex2_approx_ftz(em, lo), nvvm_ir.ex2_approx_ftz(em, hi))
        x = nvvm_ir.f32_fma(em, a[0], scale, a[1]) if bias is not None else nvvm_ir.f32_arith(em, "mul", a[0], scale)
        return nvvm_ir.ex2_approx_ftz(em, x)

    _elementwise(k, op, em, compute, pairs=True, negate=(1,))


def _linear(em, rank, base: int, coeffs) -> object:
    """base + sum of ((rank >> b) & 1) * c (i32)."""
    v = em.i32(base)
    for b, c in coeffs:
        v = em.add(v, em.mul(em.and_(em.shr(rank, em.i32(b)), em.i32(1)), em.i32(c)))
    return v


@lowers(RegMaskOp)
def _mask(k, op, em):
    """causal: col > row + bound <=> (col_t - row_t - bound) > (row_s - col_s); residual: col >= bound <=>
    (col_t - bound) >= -col_s; t the thread's part, s the slot's (regtile.coordinates)."""
    c = coordinates(BufferType.of(op.dst.type), "operand #0 (dst)")
    rank = em.sub(k.tid(em), em.i32(c.first_thread))
    row_t = _linear(em, rank, c.base[0], c.coeffs[0])
    col_t = _linear(em, rank, c.base[1], c.coeffs[1])
    bound = em.index_cast(op.bound, I32())
    causal = op.kind == MaskKind.CAUSAL
    lhs = em.sub(em.sub(col_t, row_t), bound) if causal else em.sub(col_t, bound)
    part = {s: i for i, s in enumerate(c.slots)}
    sm = op.slot_map()
    tiles = _Tiles(k, em)
    ninf = nvvm_ir.f32_const(em, float("-inf"))
    for i, d in enumerate(sm.slots):
        j = part[d]
        rhs = c.slot_part[0][j] - c.slot_part[1][j] if causal else -c.slot_part[1][j]
        cond = em.cmp("sgt" if causal else "sge", lhs, em.i32(rhs))
        v = tiles.load(op.src, sm.sources[0][i])
        tiles.store(op.dst, d, em.result("llvm.select", v.type, (cond, ninf, v)))


def _combine(em, kind: ReduceKind, a, b):
    return nvvm_ir.f32_arith(em, "max" if kind == ReduceKind.MAX else "add", a, b)


def _fold(k, em, kind: ReduceKind, vals: list) -> object:
    """Stage A: the halving fold (reduce_plan.fold_order); adjacent pairs of a level's sums as f32x2 adds."""
    packed = kind == ReduceKind.SUM and _packed(k)
    vals = list(vals)
    for level in fold_order(len(vals)):
        p = 0
        while p < len(level):
            i, j = level[p]
            if packed and p + 1 < len(level):
                lo, hi = _halves(em, nvvm_ir.f32_arith(em, "add", _vec2(em, vals[i], vals[i + 1]),
                                                       _vec2(em, vals[j], vals[j + 1])))
                vals[i], vals[i + 1] = lo, hi
                p += 2
                continue
            vals[i] = _combine(em, kind, vals[i], vals[j])
            p += 1
        vals = vals[:len(vals) - len(level)]
    return vals[0]


@lowers(RegReduceOp)
def _reduce(k, op, em):
    plan = op.plan()
    kind = op.kind
    tiles = _Tiles(k, em)
    results = []
    for g, slots in enumerate(plan.groups):
        x = _fold(k, em, kind, [tiles.load(op.src, s) for s in slots])
        for mask in plan.lane_masks:  # stage B
            x = _combine(em, kind, x, nvvm_ir.shfl_bfly(em, x, mask))
        results.append(x)
    if plan.warps == 1:
        _store_results(tiles, op, plan, results)
        return
    # stage C: the tile's warps alone, since the barriers count them (plan.threads)
    tid = k.tid(em)
    first_warp = plan.first_thread // 32
    if k.block[0] * k.block[1] * k.block[2] > plan.threads or first_warp:
        inside = em.cmp("ult", em.sub(em.shr(tid, em.i32(5)), em.i32(first_warp)), em.i32(plan.threads // 32))
        with em.if_(inside):
            _store_results(tiles, op, plan, _across_warps(k, op, em, plan, results, tid))
    else:
        _store_results(tiles, op, plan, _across_warps(k, op, em, plan, results, tid))


def _store_results(tiles, op, plan, results) -> None:
    for g, x in enumerate(results):
        if plan.dst_slots[g] >= 0:
            tiles.store(op.dst, plan.dst_slots[g], x)


def _across_warps(k, op, em, plan, results: list, tid) -> list:
    """Stage C: one lane per butterfly group writes scratch[out * W + k], bar.sync, every thread folds the W
    values of its outputs in order, bar.sync (the scratch is free again)."""
    kind, W = op.kind, plan.warps
    f32 = ir.F32Type.get()
    scratch = k.buffers.get(op.scratch)
    rank = em.sub(tid, em.i32(plan.first_thread))
    warp_rank = _linear(em, em.shr(rank, em.i32(5)), 0, plan.warp_coeffs)
    out = _linear(em, rank, plan.out_base, plan.out_coeffs)
    lane_bits = sum(plan.lane_masks)
    leader = em.cmp("eq", em.and_(tid, em.i32(lane_bits)), em.i32(0))
    bid = em.i32(op.barrier_id)
    count = em.i32(plan.threads)

    def addr(g, kk):
        word = em.add(em.mul(em.add(out, em.i32(plan.out_slot_part[g])), em.i32(W)), kk)
        return em.gep(scratch, em.mul(word, em.i32(4)))

    with em.if_(leader):
        for g, x in enumerate(results):
            em.store(x, addr(g, warp_rank), align=4)
    nvvm_ir.named_barrier(em, bid, count, arrive=False)
    folded = []
    for g in range(len(results)):
        acc = em.load(f32, addr(g, em.i32(0)), align=4)
        for j in range(1, W):
            acc = _combine(em, kind, acc, em.load(f32, addr(g, em.i32(j)), align=4))
        folded.append(acc)
    nvvm_ir.named_barrier(em, bid, count, arrive=False)
    return folded


def _named_barrier(arrive: bool):
    def lower(k, op, em):
        k.fences.before_thread_sync(op, em)
        bid = em.i32(op.id)
        if op.id_offset is not None:
            bid = em.add(bid, op.id_offset)
        count = em.i32(op.count) if op.count is not None else None
        nvvm_ir.named_barrier(em, bid, count, arrive=arrive)
        if not arrive:
            k.fences.after_thread_sync(op, em)
    return lower


lowers(NamedBarrierSyncOp)(_named_barrier(False))
lowers(NamedBarrierArriveOp)(_named_barrier(True))
