"""The data movers: tile.copy (synchronous), tile.copy_async (dispatched: tcgen05.cp, tcgen05.ld/st, TMA,
cp.async), tile.convert (register tiles, cvt)."""
from __future__ import annotations

from ..checks import buffer_type, check_slot, register_fragment, same_cta_group, stored_fragment
from ..decline import fail
from ..enums import BarrierCta, CtaGroup, MemScope, Rounding, Scope
from ..ir_utils import region_of
from ..op_def import I64, STR, Attr, BufferOf, Dispatched, Emits, Operand, RegionAttrs, TileOp, Trait, Writes
from ..types import BufferType

__all__ = ["CopyOp", "CopyAsyncOp", "ConvertOp", "CONVERSIONS", "COPY_SCOPES"]

COPY_SCOPES = (Scope.THREAD, Scope.WARP, Scope.WARPGROUP, Scope.CTA)
_TC, _ASYNC_READ = Trait.TCGEN05, Trait.READS_SHARED_ASYNC_PROXY


def _copy_regions(op, *, replicas: bool = False) -> tuple[BufferType, tuple[int, ...], tuple[int, ...]]:
    """(dst type, dst region shape, src region shape) of a copy whose regions hold the same elements; its
    register tiles may be replicated where `replicas` (tile.copy: every copy of an element is loaded, replica
    0 alone is stored)."""
    dst_t = buffer_type(op.dst, "operand #0 (dst)")
    src_t = buffer_type(op.src, "operand #1 (src)")
    dst_r = region_of(op, "dst", dst_t)
    src_r = region_of(op, "src", src_t)
    if dst_r.numel != src_r.numel:
        fail("region-size", f"dst region {list(dst_r.shape)} has {dst_r.numel} elements, "
             f"src region {list(src_r.shape)} has {src_r.numel}")
    if dst_t.elem_bits != src_t.elem_bits:
        fail("element-type", f"dst element type {dst_t.elem} and src element type {src_t.elem} differ in width")
    if dst_t.scope == MemScope.REG:
        register_fragment(dst_t, "operand #0 (dst)", replicas=replicas)
    if src_t.scope == MemScope.REG:
        (stored_fragment if replicas else register_fragment)(src_t, "operand #1 (src)")
    return dst_t, dst_r.shape, src_r.shape


class CopyOp(TileOp, name="copy"):
    """Synchronous element copy between global and shared buffers by every thread of `scope`; to or from a
    reg buffer, each thread loads or stores the elements it holds (vectorised ld/st.global, ld/st.shared)."""

    dst = Operand(BufferOf(MemScope.GLOBAL, MemScope.SHARED, MemScope.REG))
    src = Operand(BufferOf(MemScope.GLOBAL, MemScope.SHARED, MemScope.REG))
    regions = RegionAttrs("dst", "src")
    scope = Attr(Scope, default=Scope.CTA, choices=COPY_SCOPES)
    TRAITS = (Writes("dst"), Emits(None, ("ld", "st")))

    def verify(self, kernel) -> None:
        _, dst_shape, src_shape = _copy_regions(self, replicas=True)
        if dst_shape != src_shape:
            fail("region-size", f"tile.copy needs equal region shapes, got {list(dst_shape)} and {list(src_shape)}")
        src_scope = buffer_type(self.src, "operand #1 (src)").scope
        if src_scope == MemScope.REG and buffer_type(self.dst, "operand #0 (dst)").scope == MemScope.REG:
            fail("operand-scope", "tile.copy between two register tiles moves no memory; registers go to or come "
                 "from global or shared memory")


class CopyAsyncOp(TileOp, name="copy_async"):
    """Asynchronous copy of src[region] to dst[region], lowered by the copy_async dispatch (tcgen05.cp for
    shared -> tmem: commit to an mbarrier; tcgen05.ld / tcgen05.st between tmem and registers, completed by
    the tcgen05.wait::ld / wait::st the lowering places before their first use; TMA (cp.async.bulk.tensor)
    between global and shared through a tile.tensor_map: a load completes on the mbarrier operand, a store
    at tile.bulk_wait)."""

    dst = Operand(BufferOf(MemScope.GLOBAL, MemScope.SHARED, MemScope.TMEM, MemScope.REG))
    src = Operand(BufferOf(MemScope.GLOBAL, MemScope.SHARED, MemScope.TMEM, MemScope.REG))
    # TMA loads (global -> shared) complete on it: complete_tx of the box's bytes
    barrier = Operand(BufferOf(MemScope.SHARED), optional=True)
    regions = RegionAttrs("dst", "src")
    cta_group = Attr(CtaGroup, default=CtaGroup.CTA_1)
    scope = Attr(Scope, default=Scope.THREAD, choices=COPY_SCOPES)
    dispatch = Attr(STR)
    multicast_mask = Attr(I64)
    # whose mbarrier a cta_group 2 TMA load completes on (docs/tma.md §8)
    barrier_cta = Attr(BarrierCta, default=BarrierCta.OWN, elide_default=True)
    TRAITS = (Writes("dst"), Trait.USES_TMEM, Dispatched("tile-lower-copy-async", "copy_async"),
              Emits("nvvm.tcgen05.cp", "tcgen05.cp", (_TC, _ASYNC_READ)),
              Emits("nvvm.tcgen05.ld", "tcgen05.ld", _TC), Emits("nvvm.tcgen05.st", "tcgen05.st", _TC),
              Emits("nvvm.tcgen05.wait", ("tcgen05.wait::ld", "tcgen05.wait::st"), _TC),
              Emits("nvvm.cp.async.bulk.tensor.shared.cluster.global", "cp.async.bulk.tensor"),
              Emits("nvvm.cp.async.bulk.tensor.global.shared.cta", "cp.async.bulk.tensor", _ASYNC_READ),
              Emits("nvvm.cp.async.bulk.commit.group", "cp.async.bulk.commit_group"),
              Emits("nvvm.cp.async.shared.global", "cp.async"),
              Emits("nvvm.cp.async.commit.group", "cp.async.commit_group"),
              Emits("nvvm.mapa", "mapa"), Emits(None, ("st", "ld", "cvta")))

    def verify(self, kernel) -> None:
        dst_t, _, _ = _copy_regions(self)
        src_scope = buffer_type(self.src, "operand #1 (src)").scope
        if dst_t.scope == MemScope.TMEM and src_scope != MemScope.REG:  # tcgen05.cp; tcgen05.st has no cta_group
            same_cta_group(self, self.cta_group, kernel)
        if MemScope.REG in (dst_t.scope, src_scope) and {dst_t.scope, src_scope} != {MemScope.REG, MemScope.TMEM}:
            fail("operand-scope", f"tile.copy_async moves registers only to or from tmem (tcgen05.ld / tcgen05.st), "
                 f"got {src_scope} -> {dst_t.scope}; use tile.copy to store registers to global or shared memory")
        self._verify_tma_operands(src_scope, dst_t.scope, kernel)

    def _verify_tma_operands(self, src_scope: str, dst_scope: str, kernel) -> None:
        """The mbarrier operand and multicast_mask of a TMA load (docs/tma.md §1)."""
        barrier = self.barrier
        has_barrier = barrier is not None
        if has_barrier:
            check_slot(barrier, 64, "operand #2 (barrier)")
            if (src_scope, dst_scope) != (MemScope.GLOBAL, MemScope.SHARED):
                fail("barrier", f"only a global -> shared copy (a TMA load) completes on an mbarrier, got "
                     f"{src_scope} -> {dst_scope}")
        mask = self.multicast_mask
        if mask is not None:
            if not has_barrier:
                fail("multicast", "multicast_mask is for TMA loads: give the mbarrier operand")
            if not 0 < mask < (1 << 16):
                fail("multicast", f"multicast_mask must be a non-zero 16-bit mask of CTA ranks (PTX ctaMask), got "
                     f"{mask}")
            if mask >> kernel.cluster_size:
                fail("multicast", f"multicast_mask {mask:#x} names CTA ranks beyond the cluster of "
                     f"{kernel.cluster_size}")
        if self.barrier_cta == BarrierCta.PAIR_LEADER:
            # the even CTA's barrier at the same offset: PTX lets a .cta_group::2 load signal the peer's
            if not has_barrier:
                fail("barrier-cta", "barrier_cta = \"pair_leader\" names whose mbarrier a TMA load completes on: "
                     "give the mbarrier operand")
            if self.cta_group != CtaGroup.CTA_2:
                fail("barrier-cta", "only a cta_group = 2 TMA load may complete on the pair leader's mbarrier (PTX "
                     f"cp.async.bulk.tensor .cta_group::2), got cta_group {self.cta_group}")
            if mask is not None:
                fail("barrier-cta", "barrier_cta = \"pair_leader\" with multicast_mask: a multicast load signals "
                     "the barrier of each destination's pair by the parity of the barrier's CTA; not supported")
            if kernel.cluster_size % 2:
                fail("barrier-cta", f"barrier_cta = \"pair_leader\" needs CTA pairs: the cluster has "
                     f"{kernel.cluster_size} CTAs")


# (src element type, dst element type) -> the roundings cvt has for it (PTX ISA "cvt": f8 needs .satfinite)
CONVERSIONS = {
    ("f32", "bf16"): (Rounding.RN, Rounding.RZ), ("f32", "f16"): (Rounding.RN, Rounding.RZ),
    ("f32", "f8E4M3FN"): (Rounding.RN_SATFINITE,), ("f32", "f8E5M2"): (Rounding.RN_SATFINITE,),
}


class ConvertOp(TileOp, name="convert"):
    """Element-type conversion between register tiles that put each element in the same thread, with PTX
    cvt's rounding (rn, rz; rn_satfinite for f8)."""

    dst = Operand(BufferOf(MemScope.REG))
    src = Operand(BufferOf(MemScope.REG))
    rounding = Attr(Rounding, default=Rounding.RN)
    TRAITS = (Writes("dst"), Emits("nvvm.convert.f32x2.to.bf16x2", "cvt"), Emits("nvvm.convert.f32x2.to.f16x2", "cvt"),
              Emits("nvvm.convert.f32x2.to.f8x2", "cvt"))

    def verify(self, kernel) -> None:
        dst_t = buffer_type(self.dst, "operand #0 (dst)")
        src_t = buffer_type(self.src, "operand #1 (src)")
        if dst_t.shape != src_t.shape:
            fail("shape", f"dst shape {list(dst_t.shape)} and src shape {list(src_t.shape)} differ")
        roundings = CONVERSIONS.get((src_t.elem, dst_t.elem))
        if roundings is None:
            known = ", ".join(f"{a} -> {b}" for a, b in CONVERSIONS)
            fail("element-type", f"no conversion {src_t.elem} -> {dst_t.elem} (known: {known})")
        rounding = self.rounding
        if rounding not in roundings:
            fail("rounding", f"{src_t.elem} -> {dst_t.elem} rounds {' or '.join(roundings)}, got {str(rounding)!r}")
        from ...layout import THREAD_AXES  # (on first use, as check_buffer)

        d, s = register_fragment(dst_t, "operand #0 (dst)"), register_fragment(src_t, "operand #1 (src)")
        if not ((d.warp == s.warp).all() and (d.lane == s.lane).all()):
            fail("layout", "dst and src must put every element in the same thread "
                 f"({', '.join(a.name for a in THREAD_AXES)} equal): a conversion moves no data between threads")
        slot_of: dict[int, int] = {}
        for ds, ss in zip(d.slot.tolist(), s.slot.tolist()):
            if slot_of.setdefault(ds, ss) != ss:
                fail("layout", f"dst register slot {ds} holds elements of src slots {slot_of[ds]} and {ss} in "
                     "different threads: the slot map must be the same in every thread (one instruction sequence "
                     "serves all)")
