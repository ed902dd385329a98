"""Matrix multiply-accumulate: tile.gemm_async (dispatched: tcgen05.mma or wgmma), its block-scaled form,
and tile.gemm_wait (wgmma.wait_group)."""
from __future__ import annotations

from ..checks import buffer_type, same_cta_group
from ..decline import fail
from ..enums import CtaGroup, MemScope, MmaKind, ScaleVec, Scope
from ..ir_utils import region_of
from ..op_def import I64, STR, Attr, BufferOf, Dispatched, Emits, Operand, RegionAttrs, TileOp, Trait, TypeIs
from ..types import BufferType

__all__ = ["GemmAsyncOp", "GemmAsyncBlockScaleOp", "GemmWaitOp"]

_TC, _ASYNC_READ = Trait.TCGEN05, Trait.READS_SHARED_ASYNC_PROXY


def _matrix_shape(op, side: str, bt: BufferType) -> tuple[int, int]:
    """The (rows, cols) of a gemm operand's region: its shape without leading dims of extent 1."""
    shape = region_of(op, side, bt).shape
    while len(shape) > 2 and shape[0] == 1:
        shape = shape[1:]
    if len(shape) != 2:
        fail("gemm-shape", f"the {side} region {list(region_of(op, side, bt).shape)} is not a matrix (2 dims "
             "after leading dims of extent 1)")
    return shape


class GemmAsyncOp(TileOp, name="gemm_async"):
    """D (+)= A . B^T over the regions of d (M x N), a (M x K) and b (N x K), per CTA; `accumulate` false:
    D = A . B^T. Lowered by the gemm_async dispatch: tcgen05.mma (d in tmem; commit to an mbarrier) or
    wgmma (d a register tile; each op is one wgmma group: tile.gemm_wait)."""

    d = Operand(BufferOf(MemScope.TMEM, MemScope.REG))
    a = Operand(BufferOf(MemScope.SHARED, MemScope.TMEM, MemScope.REG))
    b = Operand(BufferOf(MemScope.SHARED))
    accumulate = Operand(TypeIs("i1"))
    regions = RegionAttrs("d", "a", "b")
    kind = Attr(MmaKind)
    cta_group = Attr(CtaGroup, default=CtaGroup.CTA_1)
    scope = Attr(Scope, default=Scope.THREAD, choices=(Scope.THREAD, Scope.WARPGROUP))
    dispatch = Attr(STR)
    TRAITS = (Trait.USES_TMEM, Dispatched("tile-lower-gemm-async", "gemm_async"),
              Emits("nvvm.tcgen05.mma", "tcgen05.mma", (_TC, _ASYNC_READ)),
              Emits("nvvm.wgmma.fence.aligned", "wgmma.fence"),
              Emits("nvvm.wgmma.mma_async", "wgmma.mma_async", _ASYNC_READ),
              Emits("nvvm.wgmma.commit.group.sync.aligned", "wgmma.commit_group"))

    def verify(self, kernel) -> None:  # and gemm_async.block_scale (docs/gemm.md §1)
        d_t = buffer_type(self.d, "operand #0 (d)")
        a_t = buffer_type(self.a, "operand #1 (a)")
        b_t = buffer_type(self.b, "operand #2 (b)")
        (md, n), (ma, ka), (nb, kb) = (_matrix_shape(self, s, t) for s, t in (("d", d_t), ("a", a_t), ("b", b_t)))
        cta_group = self.cta_group
        if ka != kb:
            fail("gemm-shape", f"a is {ma}x{ka} and b {nb}x{kb} (M x K and N x K): their K differ")
        if ma != md:
            fail("gemm-shape", f"a has {ma} rows and d {md}: both hold this CTA's M / cta_group rows")
        if nb * cta_group != n:
            fail("gemm-shape", f"b has {nb} rows (N / cta_group) and d {n} columns (N), with cta_group {cta_group}")
        scope = self.scope
        if d_t.scope == MemScope.TMEM:
            if a_t.scope == MemScope.REG:
                fail("operand-scope", "tcgen05.mma (a tmem accumulator) reads A from shared or tensor memory, not registers")
            same_cta_group(self, cta_group, kernel)
            if scope != Scope.THREAD:
                fail("gemm-scope", f"an accumulator in tensor memory is tcgen05.mma's, issued by one thread: scope "
                     f"must be \"thread\" (put it under an elected thread), got \"{scope}\"")
        else:
            if self.SPEC.name.endswith("block_scale"):
                fail("operand-scope", "block-scaled MMAs accumulate in tensor memory (tcgen05.mma): d must be tmem")
            if a_t.scope not in (MemScope.SHARED, MemScope.REG):
                fail("operand-scope", "with a register accumulator (wgmma) A is read from shared memory or registers")
            if scope != Scope.WARPGROUP or cta_group != CtaGroup.CTA_1:
                fail("gemm-scope", f"a register accumulator is wgmma's, issued by a warpgroup with cta_group 1: got "
                     f"scope \"{scope}\", cta_group {cta_group}")


class GemmAsyncBlockScaleOp(GemmAsyncOp, name="gemm_async.block_scale"):
    """gemm_async with block scaling (tcgen05.mma.block_scale): D (+)= (A x sfa) . (B x sfb)^T, scale factors
    in tensor memory, one per row and scale_vec elements of K."""

    sfa = Operand(BufferOf(MemScope.TMEM))
    sfb = Operand(BufferOf(MemScope.TMEM))
    scale_vec = Attr(ScaleVec, default=ScaleVec.V32)
    TRAITS = (Trait.USES_TMEM, Dispatched("tile-lower-gemm-async", "gemm_async"),
              Emits("nvvm.tcgen05.mma.block_scale", "tcgen05.mma", (_TC, _ASYNC_READ)))


class GemmWaitOp(TileOp, name="gemm_wait"):
    """wgmma.wait_group: wait until at most `pending` of the warpgroup's gemm_async groups (wgmma) are in
    flight; their accumulators may be read after it."""

    pending = Attr(I64, default=0)
    TRAITS = (Emits("nvvm.wgmma.wait.group.sync.aligned", "wgmma.wait_group"),)

    def verify(self, kernel) -> None:
        n = self.pending
        if not 0 <= n <= 63:
            fail("gemm-wait", f"pending must be in [0, 63], got {n}")
