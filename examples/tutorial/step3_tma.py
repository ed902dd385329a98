"""Tutorial step 3 with the Python builders (docs/tutorial.md; the same kernel as step3_tma.mlir): TMA. Thread 0
loads one 64x64 box (rows 64-127 of A) into 128B-swizzled shared memory, completing on an mbarrier armed with
the box's bytes, then stores the tile to `out` through out's own tensor map and waits for the store."""
import ml_dtypes
import numpy as np

from tile_mlir import builders as tb


def build():
    with tb.module(file=__file__) as m:
        g_a, g_out = tb.buffer_t("global", (128, 64), "bf16"), tb.buffer_t("global", (64, 64), "bf16")
        s = tb.buffer_t("shared", (64, 64), "bf16", "Swizzle<128B> o S[(64, 64) : (64, 1)]", align=1024)
        bar_t = tb.buffer_t("shared", (1,), "i64")
        with tb.kernel(m.module, "step3_tma", {"A": g_a, "out": g_out}, block=(128, 1, 1)) as (_, (a, out)):
            tb.tensor_map(a, box=[64, 64], swizzle="128B")
            tb.tensor_map(out, box=[64, 64], swizzle="128B")
            smem, bar = tb.alloc_shared(s), tb.alloc_shared(bar_t)
            is_thread0 = tb.eq(tb.thread_id(), 0)
            with tb.when(is_thread0):
                tb.mbarrier_init(bar, 1)
            tb.barrier()
            with tb.when(is_thread0):
                tb.mbarrier_arrive_expect_tx(bar, 64 * 64 * 2)  # the box's bytes: tile-verify checks them
                tb.copy_async(smem, a, bar, src_region=[(64, 128), (0, 64)], scope="thread")
            tb.mbarrier_wait(bar, 0)
            with tb.when(is_thread0):
                tb.copy_async(out, smem, scope="thread")
                tb.bulk_wait(0)
            tb.ret()
    return m.module


def inputs():
    a = np.random.default_rng(3).standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    out = np.zeros((64, 64), ml_dtypes.bfloat16)
    return {"A": a, "out": out}, lambda args: np.array_equal(args["out"], a[64:])


if __name__ == "__main__":
    from _run import main
    raise SystemExit(main(build, inputs))
