"""The CuTe DSL kernels that bench/compile.py times against our compiler; test/fixtures/ptx/make_cute.py
also keeps `reverse`'s PTX as a fixture.

Importing this module compiles nothing, but it imports cutlass, which reads the CuTe DSL's environment
(CUTE_DSL_ARCH, CUTE_DSL_KEEP, ...) once: set it before the first import.

- `reverse`: shared memory, an mbarrier of 128 arrivals, 128 threads; no tcgen05.
- `tmem_copy`: the twin of examples/demo.mlir, written with CuTe's own tcgen05 atoms: one warpgroup,
  warp 0 allocates 32 tensor-memory columns, threads 0..31 fill a 32x16-byte shared tile from global
  memory, warp 0 copies it to tensor memory (tcgen05.cp 32x128b.warpx4) and commits to an mbarrier
  that everyone waits on, each warp reads its 32 lanes x 4 columns back (tcgen05.ld 32x32b.x4) to
  global memory, and warp 0 relinquishes and frees the columns. Shared memory as the demo's: 512 bytes
  (align 1024), the 4-byte column slot and the 8-byte mbarrier. The demo's uint8 bytes are Int32 here
  (the instructions move 32-bit words either way).
"""
import cutlass
import cutlass.cute as cute
from cutlass._mlir.dialects import nvvm
from cutlass.cute.nvgpu import tcgen05
from cutlass.cute.runtime import make_fake_compact_tensor


@cute.kernel
def reverse_kernel(gA: cute.Tensor, gC: cute.Tensor):
    """Each CTA stages 128 floats in shared memory, synchronised by an mbarrier of 128 arrivals,
    and writes them back reversed and doubled."""
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    mbar = cute.arch.alloc_smem(cutlass.Int64, 1, alignment=8)
    sA = cute.make_tensor(cute.arch.alloc_smem(cutlass.Float32, 128, alignment=16),
                          cute.make_layout(128))
    if tidx == 0:
        cute.arch.mbarrier_init(mbar, 128)
    cute.arch.mbarrier_init_fence()
    cute.arch.sync_threads()
    sA[tidx] = gA[bidx * 128 + tidx]
    cute.arch.mbarrier_arrive(mbar)
    cute.arch.mbarrier_wait(mbar, 0)
    gC[bidx * 128 + tidx] = sA[127 - tidx] * 2.0


@cute.jit
def reverse(mA: cute.Tensor, mC: cute.Tensor):
    reverse_kernel(mA, mC).launch(grid=(2, 1, 1), block=(128, 1, 1))


def reverse_args():
    return tuple(make_fake_compact_tensor(cutlass.Float32, (256,)) for _ in range(2))


TMEM_COLS = 32  # the demo's allocation (the PTX minimum)
TMEM_LANE = 1 << 16  # a tensor-memory address holds the lane in its upper half


def _thread_sync():
    """bar.sync between the tcgen05 fences, as the demo's tile.barrier (docs/fences.md)."""
    nvvm.tcgen05_fence(nvvm.Tcgen05FenceKind.BEFORE_THREAD_SYNC)
    cute.arch.sync_threads()
    nvvm.tcgen05_fence(nvvm.Tcgen05FenceKind.AFTER_THREAD_SYNC)


@cute.kernel
def tmem_copy_kernel(gA: cute.Tensor, gOut: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    warp = tidx // 32  # as the demo computes it (cute.arch.warp_idx adds a shfl.sync)
    sA = cute.make_tensor(cute.arch.alloc_smem(cutlass.Int32, 32 * 4, alignment=1024),
                          cute.make_layout((32, 4), stride=(4, 1)))
    slot = cute.arch.alloc_smem(cutlass.Int32, 1, alignment=16)
    bar = cute.arch.alloc_smem(cutlass.Int64, 1, alignment=16)
    if warp == 0:
        cute.arch.alloc_tmem(TMEM_COLS, slot)
    if tidx == 0:
        cute.arch.mbarrier_init(bar, 1)
        cute.arch.mbarrier_init_fence()
    if tidx < 32:
        cute.autovec_copy(gA[tidx, None], sA[tidx, None])
    cute.arch.fence_view_async_shared()  # the stores above, before the async proxy reads them
    _thread_sync()

    # 128 lanes x 4 columns: the 32 rows of the tile, multicast to each lane quarter by warpx4
    tmem = cute.arch.retrieve_tmem_ptr(cutlass.Int32, 16, slot)
    tT = cute.make_tensor(tmem, cute.make_layout((128, 4), stride=(TMEM_LANE, 1)))
    cp = tcgen05.Cp4x32x128bOp(tcgen05.CtaGroup.ONE)
    s2t = tcgen05.make_s2t_copy(cute.make_copy_atom(cp, cutlass.Int32), tT)
    # the shared side as one (rows, words) matrix, with the broadcast mode cp's TMEM side carries
    sMat = cute.make_tensor(sA.iterator, cute.make_layout(((32, 4), 1), stride=((4, 1), 0)))
    s2t_thr = s2t.get_slice(0)
    src = tcgen05.get_s2t_smem_desc_tensor(s2t, s2t_thr.partition_S(tcgen05.append_s2t_broadcast_mode(cp, sMat)))
    dst = s2t_thr.partition_D(tT)
    if warp == 0:
        cute.copy(s2t, src, dst)  # the DSL elects the issuing thread
        with cute.arch.elect_one():
            tcgen05.commit(bar)
    cute.arch.mbarrier_wait(bar, 0)
    nvvm.tcgen05_fence(nvvm.Tcgen05FenceKind.AFTER_THREAD_SYNC)

    ld = cute.make_copy_atom(tcgen05.Ld32x32bOp(tcgen05.Repetition.x4), cutlass.Int32)
    t2r = tcgen05.make_tmem_copy(ld, tT).get_slice(tidx)
    gD = t2r.partition_D(gOut)
    regs = cute.make_fragment_like(gD)
    cute.copy(ld, t2r.partition_S(tT), regs)
    cute.arch.fence_view_async_tmem_load()  # tcgen05.wait::ld
    cute.autovec_copy(regs, gD)
    _thread_sync()
    if warp == 0:
        cute.arch.relinquish_tmem_alloc_permit()
        cute.arch.dealloc_tmem(tmem, TMEM_COLS)


@cute.jit
def tmem_copy(mA: cute.Tensor, mOut: cute.Tensor):
    tmem_copy_kernel(mA, mOut).launch(grid=(1, 1, 1), block=(128, 1, 1))


def tmem_copy_args():
    """The demo's A (32 x 16 bytes) and out (128 x 16 bytes), row-major and 16-byte aligned."""
    return tuple(make_fake_compact_tensor(cutlass.Int32, (rows, 4), stride_order=(1, 0), assumed_align=16)
                 for rows in (32, 128))
