"""NVVM ops and attributes, the #nvvm.target and the gpu.module, built in one place: every other module asks
here by meaning (`mbarrier_init(em, bar, count)`, `cta_group(em, CtaGroup.CTA_2)`), never spells an NVVM op's
name or `#nvvm` text.

Ops are created generically (Emitter.create, ir.Operation.create): the bindings' generated builders cost 2-4x
per op, which dominates lowering time (measured), and LLVM 22's and 23's differ in their signatures; each
function here is the typed builder of one NVVM op (its operands and attributes by name), and where the two
providers' ops differ (operand segments) it asks mlir.operand_segments.

The bindings' own builders of NVVM enum attributes (`_nvvm_enum_gen.py`, `register_attribute_builder`) parse
the same `#nvvm.<mnemonic><value>` text, and #nvvm.target has no builder in either provider; so this module
parses it too, from values that are ours (members of our enums, plan fields from closed tables, tokens of
target.py's grammars), never a user's string, and once per emitter cache (`em.attr`).
"""
from __future__ import annotations

from ..dialect.enums import CtaGroup, FenceKind, RegAction
from ..mlir import ir, nvvm_f32_ops, operand_segments

__all__ = ["cta_group", "tcgen05_fence_kind", "tcgen05_wait_kind", "tcgen05_ldst_shape", "tcgen05_cp_shape",
           "tcgen05_cp_multicast", "tcgen05_cp_src_fmt", "tcgen05_mma_block_scale", "wgmma_shape", "wgmma_type",
           "wgmma_scale_in", "wgmma_scale_out", "mma_layout", "tma_load_mode", "tma_store_mode", "proxy_kind",
           "shared_space", "fp_rnd_mode", "sat_mode", "nvvm_enum", "gpu_module", "setmaxregister", "sreg",
           "elect_sync", "prefetch_tensormap", "barrier0", "cluster_arrive_wait", "fence_mbarrier_init",
           "fence_proxy_async_shared", "tcgen05_fence", "mbarrier_init", "mbarrier_arrive", "mbarrier_try_wait",
           "mbarrier_expect_tx", "mapa", "cp_async_commit_group", "cp_async_wait_group", "cp_async_bulk_wait_group",
           "cp_async_bulk_commit_group", "tma_load", "tma_store", "tcgen05_alloc", "tcgen05_dealloc",
           "tcgen05_relinquish_alloc_permit", "tcgen05_commit", "tcgen05_ld", "tcgen05_st", "tcgen05_wait",
           "tcgen05_cp", "tcgen05_mma", "wgmma_fence", "wgmma_commit_group", "wgmma_wait_group", "wgmma_mma_async",
           "convert_f32x2_to_f16x2", "convert_f32x2_to_f8x2", "fence_acq_rel_gpu", "atom_inc_global",
           "barrier_red_or"]

_CTA_GROUP = {CtaGroup.CTA_1: "cta_1", CtaGroup.CTA_2: "cta_2"}
_TCGEN05_FENCE = {FenceKind.TCGEN05_BEFORE_SYNC: "before", FenceKind.TCGEN05_AFTER_SYNC: "after"}


def _enum(em, mnemonic: str, value: str):
    return em.attr(f"#nvvm.{mnemonic}<{value}>")


def cta_group(em, group):
    """#nvvm.cta_group: the op's CtaGroup (or its plain value: 2 is CTA_2)."""
    return _enum(em, "cta_group", _CTA_GROUP[group])


def tcgen05_fence_kind(em, kind: FenceKind):
    return _enum(em, "tcgen05_fence", _TCGEN05_FENCE[kind])


def nvvm_enum(em, value):
    """The NVVM attribute of one of our enum members that has one (CtaGroup, the tcgen05 FenceKinds)."""
    return cta_group(em, value) if value in _CTA_GROUP else tcgen05_fence_kind(em, value)


def tcgen05_wait_kind(em, kind: str):
    """kind: "load" (tcgen05.wait::ld) or "store" (::st)."""
    assert kind in ("load", "store"), kind
    return _enum(em, "tcgen05_wait", kind)


def tcgen05_ldst_shape(em, shape: str):
    """shape: the PTX shape of tcgen05.ld/st, e.g. "32x32b"."""
    return _enum(em, "tcgen05_ldst_shape", f"shape_{shape}")


def tcgen05_cp_shape(em, shape: str):
    """shape: the PTX shape of tcgen05.cp without its multicast, e.g. "128x256b"."""
    return _enum(em, "tcgen05_cp_shape", f"shape_{shape}")


def tcgen05_cp_multicast(em, multicast: str):
    """multicast: the PTX qualifier, e.g. "warpx2::02_13"."""
    return _enum(em, "tcgen05_cp_multicast", multicast.replace("::", "_"))


def tcgen05_cp_src_fmt(em, fmt: str):
    return _enum(em, "tcgen05_cp_src_fmt", fmt)


def tcgen05_mma_block_scale(em, block: str):
    """block: "block16" or "block32"."""
    return _enum(em, "tcgen05_mma_block_scale", block)


def wgmma_shape(em, n: int, k: int):
    return em.attr(f"#nvvm.shape<m = 64, n = {int(n)}, k = {int(k)}>")


def wgmma_type(em, t: str):
    return _enum(em, "wgmma_type", t)


def wgmma_scale_in(em, scale: str):
    return _enum(em, "wgmma_scale_in", scale)


def wgmma_scale_out(em, scale: str):
    return _enum(em, "wgmma_scale_out", scale)


def mma_layout(em, layout: str):
    """layout: "row" or "col"."""
    return _enum(em, "mma_layout", layout)


def tma_load_mode(em, mode: str = "tile"):
    return _enum(em, "tma_load_mode", mode)


def tma_store_mode(em, mode: str = "tile"):
    return _enum(em, "tma_store_mode", mode)


def proxy_kind(em, kind: str):
    return _enum(em, "proxy_kind", kind)


def shared_space(em, space: str):
    return _enum(em, "shared_space", space)


def fp_rnd_mode(em, mode: str):
    return _enum(em, "fp_rnd_mode", mode)


def sat_mode(em, mode: str):
    return _enum(em, "sat_mode", mode)


# -- ops ---------------------------------------------------------------------------------------------
def _i32(v: int):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(v))


def _i64(v: int):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v))


def sreg(em, name: str):
    """The i32 special register %name (laneid, cluster.ctarank, ctaid.x, nctaid.y, ...)."""
    return em.result(f"nvvm.read.ptx.sreg.{name}", ir.IntegerType.get_signless(32))


def elect_sync(em):
    return em.result("nvvm.elect.sync", ir.IntegerType.get_signless(1))


def prefetch_tensormap(em, tensor_map):
    em.create("nvvm.prefetch", (tensor_map,), attrs={"tensormap": ir.UnitAttr.get()})


def barrier0(em):
    em.create("nvvm.barrier0")


def cluster_arrive_wait(em):
    """barrier.cluster.arrive.aligned, then barrier.cluster.wait.aligned."""
    em.create("nvvm.cluster.arrive", attrs={"aligned": ir.UnitAttr.get()})
    em.create("nvvm.cluster.wait", attrs={"aligned": ir.UnitAttr.get()})


def fence_mbarrier_init(em):
    em.create("nvvm.fence.mbarrier.init")


def fence_proxy_async_shared(em):
    """fence.proxy.async.shared::cta"""
    em.create("nvvm.fence.proxy", attrs={"kind": proxy_kind(em, "async.shared"), "space": shared_space(em, "cta")})


def tcgen05_fence(em, kind: FenceKind):
    """tcgen05.fence::before_thread_sync (TCGEN05_BEFORE_SYNC) or ::after_thread_sync (TCGEN05_AFTER_SYNC)"""
    em.create("nvvm.tcgen05.fence", attrs={"kind": tcgen05_fence_kind(em, kind)})


def mbarrier_init(em, bar, count):
    em.create("nvvm.mbarrier.init", operands=[bar, count], attrs=operand_segments("nvvm.mbarrier.init", [1, 1, 0]))


def mbarrier_arrive(em, bar, *, state: bool):
    """mbarrier.arrive on `bar`; `state`: the op returns the barrier's i64 state (a .shared::cta arrive),
    else none (a .shared::cluster arrive returns none: PTX ISA "mbarrier.arrive")."""
    results = [ir.IntegerType.get_signless(64)] if state else []
    em.create("nvvm.mbarrier.arrive", operands=[bar], results=results,
              attrs=operand_segments("nvvm.mbarrier.arrive", [1, 0, 0]))


def mbarrier_try_wait(em, bar, phase_or_parity):
    """mbarrier.try_wait.parity: its i1 result."""
    return em.create("nvvm.mbarrier.try_wait", operands=[bar, phase_or_parity],
                     results=[ir.IntegerType.get_signless(1)],
                     attrs=operand_segments("nvvm.mbarrier.try_wait", [1, 1, 0])).results[0]


def mbarrier_expect_tx(em, bar, nbytes, *, arrive: bool):
    """mbarrier.arrive.expect_tx (arrive) or mbarrier.expect_tx."""
    name = "nvvm.mbarrier.arrive.expect_tx" if arrive else "nvvm.mbarrier.expect_tx"
    em.create(name, operands=[bar, nbytes], attrs=operand_segments(name, [1, 1, 0, 0]))


def mapa(em, ptr, cta):
    """mapa.shared::cluster: `ptr` in CTA `cta`'s shared memory window (!llvm.ptr<7>)."""
    return em.result("nvvm.mapa", em.ptr(7), (ptr, cta))


def cp_async_commit_group(em):
    em.create("nvvm.cp.async.commit.group")


def cp_async_wait_group(em, n: int):
    em.create("nvvm.cp.async.wait.group", attrs={"n": _i32(n)})


def cp_async_bulk_wait_group(em, pending: int, *, read: bool):
    attrs = {"group": _i32(pending)}
    if read:
        attrs["read"] = ir.UnitAttr.get()
    em.create("nvvm.cp.async.bulk.wait_group", attrs=attrs)


def cp_async_bulk_commit_group(em):
    em.create("nvvm.cp.async.bulk.commit.group")


def tma_load(em, smem, desc, coords, bar, extra, attrs):
    """cp.async.bulk.tensor.Nd.shared::cluster.global...; `attrs` from tma_load_mode, cta_group, ..."""
    em.create("nvvm.cp.async.bulk.tensor.shared.cluster.global", [smem, desc, *coords, bar, *extra], attrs=attrs)


def tma_store(em, desc, smem, coords, segments):
    em.create("nvvm.cp.async.bulk.tensor.global.shared.cta", [desc, smem, *coords],
              attrs={"mode": tma_store_mode(em), "operandSegmentSizes": ir.DenseI32ArrayAttr.get(segments)})


def tma_reduce(em, desc, smem, coords, kind: str, segments):
    """cp.reduce.async.bulk.tensor.Nd.global.shared::cta.<kind>.tile.bulk_group [desc, coords], [smem]."""
    em.create("nvvm.cp.async.bulk.tensor.reduce", [desc, smem, *coords],
              attrs={"redKind": _enum(em, "tma_redux_kind", kind), "mode": tma_store_mode(em),
                     "operandSegmentSizes": ir.DenseI32ArrayAttr.get(segments)})


def tcgen05_alloc(em, slot, ncols, group):
    em.create("nvvm.tcgen05.alloc", (slot, ncols), attrs={"group": cta_group(em, group)})


def tcgen05_dealloc(em, taddr, ncols, group):
    em.create("nvvm.tcgen05.dealloc", (taddr, ncols), attrs={"group": cta_group(em, group)})


def tcgen05_relinquish_alloc_permit(em, group):
    em.create("nvvm.tcgen05.relinquish_alloc_permit", attrs={"group": cta_group(em, group)})


def tcgen05_commit(em, operands, group):
    """tcgen05.commit on the mbarrier operands[0] (with operands[1], an i16 multicast mask, when given)."""
    em.create("nvvm.tcgen05.commit", operands, attrs={"group": cta_group(em, group)})


def tcgen05_ld(em, operands, result_type, attrs):
    """tcgen05.ld; `attrs`: its shape (tcgen05_ldst_shape) and pack."""
    return em.create("nvvm.tcgen05.ld", operands=operands, results=[result_type], attrs=attrs).results[0]


def tcgen05_st(em, operands, attrs):
    em.create("nvvm.tcgen05.st", operands=operands, attrs=attrs)


def tcgen05_wait(em, kind: str):
    """tcgen05.wait::ld ("load") or ::st ("store")."""
    em.create("nvvm.tcgen05.wait", attrs={"kind": tcgen05_wait_kind(em, kind)})


def tcgen05_cp(em, taddr, desc, attrs):
    """tcgen05.cp; `attrs`: its shape, group, multicast and source format (the functions above)."""
    em.create("nvvm.tcgen05.cp", (taddr, desc), attrs=attrs)


def tcgen05_mma(em, operands, attrs, *, block_scale: bool):
    em.create("nvvm.tcgen05.mma.block_scale" if block_scale else "nvvm.tcgen05.mma", operands, attrs=attrs)


def wgmma_fence(em):
    em.create("nvvm.wgmma.fence.aligned")


def wgmma_commit_group(em):
    em.create("nvvm.wgmma.commit.group.sync.aligned")


def wgmma_wait_group(em, pending: int):
    em.create("nvvm.wgmma.wait.group.sync.aligned", attrs={"group": _i64(pending)})


def wgmma_mma_async(em, struct, operands, attrs):
    return em.result("nvvm.wgmma.mma_async", struct, operands, attrs)


def convert_f32x2_to_f16x2(em, elem: str, result_type, hi, lo, attrs):
    """cvt.<rnd>.{bf16x2,f16x2}.f32 (elem "bf16" or "f16")."""
    assert elem in ("bf16", "f16"), elem
    return em.result(f"nvvm.convert.f32x2.to.{elem}x2", result_type, (hi, lo), attrs=attrs)


def convert_f32x2_to_f8x2(em, hi, lo, attrs):
    return em.result("nvvm.convert.f32x2.to.f8x2", ir.IntegerType.get_signless(16), (hi, lo), attrs=attrs)


_REG_ACTION = {RegAction.INC: "increase", RegAction.DEC: "decrease"}


def setmaxregister(em, action: RegAction, count: int):
    """nvvm.setmaxregister: setmaxnreg.{inc,dec}.sync.aligned.u32 count."""
    return em.create("nvvm.setmaxregister", attrs={
        "regCount": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(count)),
        "action": em.attr(f"#nvvm<action {_REG_ACTION[action]}>")})


def gpu_module(before, name: str, chip: str, features: str):
    """The gpu.module `name` (one PTX module, one cubin) targeting #nvvm.target<chip, features>, inserted
    before op `before`. `chip` and `features` are tokens of target.py's grammars (parse_arch,
    check_ptx_features), printed by StringAttr (quoted and escaped), never pasted."""
    target = ir.Attribute.parse(f"#nvvm.target<chip = {ir.StringAttr.get(chip)}, "
                                f"features = {ir.StringAttr.get(features)}>")
    gmod = ir.Operation.create("gpu.module", attributes={"sym_name": ir.StringAttr.get(name),
                                                         "targets": ir.ArrayAttr.get([target])},
                               regions=1, ip=ir.InsertionPoint(before))
    gmod.regions[0].blocks.append()
    return gmod


# -- register math (docs/registers.md §8-§9): f32 scalars, their packed f32x2 pairs, shuffles, named barriers
def _f32():
    return ir.F32Type.get()


# every rounding operation carries its .rn explicitly: libNVVM and ptxas contract a plain fmul + fadd into an
# fma (measured: `mul.f32` + `add.f32` became one fma.rn.f32 in the PTX), and the program's roundings are
# its semantics (an online softmax is checked bit for bit against its model)
_F32_RN = {"add": "nvvm.addf", "sub": "nvvm.subf"}
_F32X2_RN = {"add": "nvvm.add.packed.f32x2", "sub": "nvvm.sub.packed.f32x2", "mul": "nvvm.mul.packed.f32x2"}
_F32_MINMAX = {"max": "llvm.intr.maxnum", "min": "llvm.intr.minnum"}


def _rn(em):
    return {"rnd": fp_rnd_mode(em, "rn")}


def _intrinsic(em, name: str, result, operands):
    """A call of NVVM intrinsic `name` (where the dialect has no op for it, or the provider's op does not
    translate: mlir.nvvm_f32_ops)."""
    return em.result("llvm.call_intrinsic", result, tuple(operands), {
        "intrin": ir.StringAttr.get(name), "op_bundle_sizes": ir.DenseI32ArrayAttr.get([]),
        **operand_segments("llvm.call_intrinsic", [len(operands), 0])})


def f32_arith(em, op: str, a, b):
    """add / sub / mul.rn.f32 or max / min.f32 of two f32 values; add / sub / mul.rn.f32x2 of two
    vector<2xf32> (the first element the low half)."""
    if op in _F32_MINMAX:
        return em.result(_F32_MINMAX[op], a.type, (a, b))
    if isinstance(a.type, ir.VectorType):
        return em.result(_F32X2_RN[op], a.type, (a, b), _rn(em))
    if op == "mul":  # (no NVVM op: the intrinsic that NVPTX prints as mul.rn.f32)
        return _intrinsic(em, "llvm.nvvm.mul.rn.f", a.type, (a, b))
    if not nvvm_f32_ops:  # (LLVM 22 has no sub intrinsic: a - b is a + -b, bit for bit, signed zeros too)
        return _intrinsic(em, "llvm.nvvm.add.rn.f", a.type, (a, b if op == "add" else f32_neg(em, b)))
    return em.result(_F32_RN[op], a.type, (a, b), _rn(em))


def f32_fma(em, a, b, c):
    """fma.rn.f32 (fma.rn.f32x2 on vector<2xf32>)."""
    if not nvvm_f32_ops and not isinstance(a.type, ir.VectorType):
        return _intrinsic(em, "llvm.nvvm.fma.rn.f", a.type, (a, b, c))
    name = "nvvm.fma.packed.f32x2" if isinstance(a.type, ir.VectorType) else "nvvm.fma"
    return em.result(name, a.type, (a, b, c), _rn(em))


def f32_neg(em, a):
    return em.result("llvm.fneg", a.type, (a,))


def f32_const(em, value: float):
    f32 = _f32()
    return em.result("llvm.mlir.constant", f32, attrs={"value": ir.FloatAttr.get(f32, value)})


def ex2_approx_ftz(em, a):
    """ex2.approx.ftz.f32."""
    if not nvvm_f32_ops:
        return _intrinsic(em, "llvm.nvvm.ex2.approx.ftz.f", a.type, (a,))
    return em.result("nvvm.ex2", a.type, (a,), {"ftz": ir.BoolAttr.get(True)})


# arith.cmpf's ordered predicates (false when an operand is NaN): MLIR's CmpFPredicate values
_CMPF_ORDERED = {"eq": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5, "ne": 6}


def lg2_approx_ftz(em, a):
    """lg2.approx.ftz.f32."""
    if not nvvm_f32_ops:
        return _intrinsic(em, "llvm.nvvm.lg2.approx.ftz.f", a.type, (a,))
    return em.result("nvvm.log2", a.type, (a,), {"ftz": ir.BoolAttr.get(True)})


def rcp(em, a, *, approx: bool):
    """rcp.approx.ftz.f32, or rcp.rn.f32 (through its intrinsic: NVVM has no op for it)."""
    if approx:
        return em.result("nvvm.rcp.approx.ftz.f", a.type, (a,))
    return _intrinsic(em, "llvm.nvvm.rcp.rn.f", a.type, (a,))


def f32_select(em, predicate: str, a, b, on_true, on_false):
    """setp.<predicate>.f32 (ordered), selp.f32."""
    cond = em.result("arith.cmpf", ir.IntegerType.get_signless(1), (a, b),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _CMPF_ORDERED[predicate])})
    return em.result("arith.select", on_true.type, (cond, on_true, on_false))


def shfl_bfly(em, value, lane_mask: int):
    """shfl.sync.bfly.b32 value, lane_mask, 31 (clamp), 0xffffffff (the whole warp)."""
    i32 = ir.IntegerType.get_signless(32)
    full = em.result("llvm.mlir.constant", i32, attrs={"value": ir.IntegerAttr.get(i32, -1)})
    return em.result("nvvm.shfl.sync", value.type, (full, value, em.i32(lane_mask), em.i32(31)),
                     {"kind": em.attr("#nvvm<shfl_kind bfly>")})


def named_barrier(em, bid, count, *, arrive: bool):
    """bar.sync bid{, count} (count None: the CTA's threads) or bar.arrive bid, count (i32 values)."""
    if arrive:
        em.create("nvvm.barrier.arrive", operands=[bid, count])  # (barrierId, numberOfThreads)
        return
    operands = [bid] if count is None else [bid, count]
    em.create("nvvm.barrier", operands=operands,
              attrs=operand_segments("nvvm.barrier", [1, 0 if count is None else 1, 0]))


# LLVM's enums as the generic form spells them (mlir/Dialect/LLVMIR/LLVMEnums.td: AtomicOrdering, AtomicBinOp)
_MONOTONIC, _ACQ_REL, _UINC_WRAP = 2, 6, 15


def fence_acq_rel_gpu(em):
    """fence.acq_rel.gpu: llvm.fence acq_rel at LLVM's "device" sync scope (NVPTX's gpu scope)."""
    em.create("llvm.fence", attrs={"ordering": _i64(_ACQ_REL),
                                   "syncscope": ir.StringAttr.get("device")})


def atom_inc_global(em, ptr, bound):
    """atom.global.inc.u32 (relaxed, gpu scope): old >= bound ? 0 : old + 1 at `ptr` (a global i32), the old
    value (llvm.atomicrmw uinc_wrap, which NVPTX selects as atom.inc)."""
    return em.result("llvm.atomicrmw", ir.IntegerType.get_signless(32), (ptr, bound), {
        "bin_op": _i64(_UINC_WRAP), "ordering": _i64(_MONOTONIC),
        "syncscope": ir.StringAttr.get("device")})


def barrier_red_or(em, bid, count, pred):
    """bar.red.or.pred at named barrier bid of `count` threads (i32 values): every participant's result is the
    OR of all their predicates (i1). Inline PTX: nvvm.barrier's reduction form takes barrier 0 of the whole
    CTA only."""
    i32 = ir.IntegerType.get_signless(32)
    asm = ("{\n.reg .pred p, q;\nsetp.ne.b32 p, $3, 0;\nbar.red.or.pred q, $1, $2, p;\n"
           "selp.b32 $0, 1, 0, q;\n}\n")
    red = em.result("llvm.inline_asm", i32, (bid, count, em.zext(pred, i32)), {
        "asm_string": ir.StringAttr.get(asm), "constraints": ir.StringAttr.get("=r,r,r,r"),
        "has_side_effects": ir.UnitAttr.get()})
    return em.cmp("ne", red, em.i32(0))
