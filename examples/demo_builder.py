#!/usr/bin/env python3
"""The seed's demonstration program built with tile_mlir's Python builders (same program as demo.mlir).

    python examples/demo_builder.py            # print the tile IR
    python examples/demo_builder.py --ptx      # compile it and print the PTX
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))

from tile_mlir.context import make_context  # noqa: E402
from tile_mlir.dialect import builders as tb  # noqa: E402
from tile_mlir.mlir import arith, ir  # noqa: E402

TMEM_LAYOUT = "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"


def build_demo(ctx, fill=None):
    """The demo as a module in ctx. fill(smem, a), if given, emits the ops that fill shared memory from A
    and make it visible to the async proxy instead of tile.copy + fence.proxy.async (the test of cp.async
    into tcgen05.cp uses copy_async here)."""
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        a_t = tb.buffer_t("global", (32, 16), "ui8")
        out_t = tb.buffer_t("global", (128, 16), "ui8")
        smem_t = tb.buffer_t("shared", (32, 16), "ui8", "S[(32, 16) : (16, 1)]", align=1024)
        tmem_t = tb.buffer_t("tmem", (32, 16), "ui8", TMEM_LAYOUT)
        slot_t = tb.buffer_t("shared", (1,), "i32")
        bar_t = tb.buffer_t("shared", (1,), "i64")
        with tb.kernel(module, "demo", {"A": a_t, "out": out_t}, block=(128, 1, 1)) as (_, (a, out)):
            smem = tb.alloc_shared(smem_t)
            slot = tb.alloc_shared(slot_t)
            bar = tb.alloc_shared(bar_t)
            tid, warp = tb.thread_id(), tb.warp_id()
            zero = arith.constant(ir.IntegerType.get_signless(32), 0)
            is_warp0 = arith.cmpi(arith.CmpIPredicate.eq, warp, zero)
            is_thread0 = arith.cmpi(arith.CmpIPredicate.eq, tid, zero)
            with tb.when(is_warp0):
                tb.tmem_alloc(slot, 32)
            with tb.when(is_thread0):
                tb.mbarrier_init(bar, 1)
                tb.fence("mbarrier_init")
            if fill is None:
                tb.copy(smem, a)
                tb.fence("proxy_async")  # ordinary stores -> async proxy (tcgen05.cp reads through it)
            else:
                fill(smem, a)
            tb.fence("tcgen05_before_sync")
            tb.barrier()
            tb.fence("tcgen05_after_sync")
            tmem = tb.tmem_buffer(slot, tmem_t)
            with tb.when(is_thread0):
                tb.copy_async(tmem, smem)
                tb.commit(bar)
            tb.mbarrier_wait(bar, 0)
            tb.fence("tcgen05_after_sync")
            tb.tmem_load(out, tmem, num_cols=4)
            tb.fence("tcgen05_before_sync")
            tb.barrier()
            with tb.when(is_warp0):
                tb.tmem_relinquish()
                tb.tmem_dealloc(slot, 32)
            tb.ret()
    return module


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX")
    args = p.parse_args()
    module = build_demo(make_context())
    if args.ptx:
        from tile_mlir.compiler import compile

        print(compile(module, filename="demo_builder").ptx)
    else:
        print(module)


if __name__ == "__main__":
    main()
