"""Tutorial step 4 with the Python builders (docs/tutorial.md; the same kernel as step4_gemm.mlir): D = A . B^T,
A 128x64 and B 64x64 bf16 brought by TMA, one tile.gemm_async (tcgen05.mma, K = 64 in four MMAs) into a
tensor-memory accumulator committed to an mbarrier, read back by the warpgroup (tcgen05.ld) and stored."""
import ml_dtypes
import numpy as np

from tile_mlir import builders as tb


def build():
    with tb.module(file=__file__) as m:
        g_a, g_b = tb.buffer_t("global", (128, 64), "bf16"), tb.buffer_t("global", (64, 64), "bf16")
        g_d = tb.buffer_t("global", (128, 64), "f32")
        s_a = tb.buffer_t("shared", (128, 64), "bf16", "Swizzle<128B> o S[(128, 64) : (64, 1)]", align=1024)
        s_b = tb.buffer_t("shared", (64, 64), "bf16", "Swizzle<128B> o S[(64, 64) : (64, 1)]", align=1024)
        t_d = tb.buffer_t("tmem", (128, 64), "f32", "S[(128, 64) : (1@TLane, 1@TCol)]")
        r_d = tb.buffer_t("reg", (128, 64), "f32", "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]")
        slot_t, bar_t = tb.buffer_t("shared", (1,), "i32"), tb.buffer_t("shared", (1,), "i64")
        with tb.kernel(m.module, "step4_gemm", {"A": g_a, "B": g_b, "D": g_d}, block=(128, 1, 1)) as (_, (a, b, d)):
            tb.tensor_map(a, box=[128, 64], swizzle="128B")
            tb.tensor_map(b, box=[64, 64], swizzle="128B")
            sa, sb = tb.alloc_shared(s_a), tb.alloc_shared(s_b)
            slot, loaded, done = tb.alloc_shared(slot_t), tb.alloc_shared(bar_t), tb.alloc_shared(bar_t)
            is_warp0, is_thread0 = tb.eq(tb.warp_id(), 0), tb.eq(tb.thread_id(), 0)
            with tb.when(is_warp0):
                tb.tmem_alloc(slot, 64)
            with tb.when(is_thread0):
                tb.mbarrier_init(loaded, 1)
                tb.mbarrier_init(done, 1)
            tb.barrier()
            acc = tb.tmem_buffer(slot, t_d)
            with tb.when(is_thread0):
                tb.mbarrier_arrive_expect_tx(loaded, (128 + 64) * 64 * 2)
                tb.copy_async(sa, a, loaded, scope="thread")
                tb.copy_async(sb, b, loaded, scope="thread")
                tb.mbarrier_wait(loaded, 0)
                tb.gemm_async(acc, sa, sb, tb.const(False))  # accumulate = false: D = A . B^T
                tb.commit(done)
            tb.mbarrier_wait(done, 0)
            regs = tb.alloc_reg(r_d)
            tb.copy_async(regs, acc, scope="warpgroup")
            tb.copy(d, regs, scope="warpgroup")
            tb.barrier()
            with tb.when(is_warp0):
                tb.tmem_relinquish()
                tb.tmem_dealloc(slot, 64)
            tb.ret()
    return m.module


def inputs():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((64, 64)).astype(ml_dtypes.bfloat16)
    exact = a.astype(np.float64) @ b.astype(np.float64).T
    mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)).T
    bound = 64 * np.spacing(mag.astype(np.float32)).astype(np.float64)  # f32 sums of 64 exact products
    return ({"A": a, "B": b, "D": np.zeros((128, 64), np.float32)},
            lambda args: bool(np.all(np.abs(args["D"] - exact) <= bound)))


if __name__ == "__main__":
    from _run import main
    raise SystemExit(main(build, inputs))
