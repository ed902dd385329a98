"""Tutorial step 2 with the Python builders (docs/tutorial.md; the same kernel as step2_tmem.mlir): global ->
shared -> tensor memory (one tcgen05.cp, committed to an mbarrier) -> registers (tcgen05.ld) -> global.
No fence: the compiler adds them, the one after mbarrier.init too."""
import numpy as np

from tile_mlir import builders as tb


def build():
    with tb.module(file=__file__) as m:
        g = tb.buffer_t("global", (128, 4), "f32")
        s = tb.buffer_t("shared", (128, 4), "f32", "S[(128, 4) : (4, 1)]", align=1024)
        t = tb.buffer_t("tmem", (128, 4), "f32", "S[(128, 4) : (1@TLane, 1@TCol)]")
        r = tb.buffer_t("reg", (128, 4), "f32", "S[(4, 32, 4) : (1@warpid, 1@laneid, 1@reg)]")
        slot_t, bar_t = tb.buffer_t("shared", (1,), "i32"), tb.buffer_t("shared", (1,), "i64")
        with tb.kernel(m.module, "step2_tmem", {"A": g, "out": g}, block=(128, 1, 1)) as (_, (a, out)):
            smem, slot, bar = tb.alloc_shared(s), tb.alloc_shared(slot_t), tb.alloc_shared(bar_t)
            is_warp0, is_thread0 = tb.eq(tb.warp_id(), 0), tb.eq(tb.thread_id(), 0)
            with tb.when(is_warp0):
                tb.tmem_alloc(slot, 32)
            with tb.when(is_thread0):
                tb.mbarrier_init(bar, 1)
            tb.copy(smem, a, scope="cta")
            tb.barrier()
            tmem = tb.tmem_buffer(slot, t)
            with tb.when(is_thread0):
                tb.copy_async(tmem, smem, scope="thread")
                tb.commit(bar)
            tb.mbarrier_wait(bar, 0)
            regs = tb.alloc_reg(r)
            tb.copy_async(regs, tmem, scope="warpgroup")
            tb.copy(out, regs, scope="warpgroup")
            tb.barrier()
            with tb.when(is_warp0):
                tb.tmem_relinquish()
                tb.tmem_dealloc(slot, 32)
            tb.ret()
    return m.module


def inputs():
    a = np.random.default_rng(2).standard_normal((128, 4)).astype(np.float32)
    return {"A": a, "out": np.zeros_like(a)}, lambda args: np.array_equal(args["out"], a)


if __name__ == "__main__":
    from _run import main
    raise SystemExit(main(build, inputs))
