#!/usr/bin/env python3
"""The seed's demonstration program built with tile_mlir's public Python builders (the program of demo.mlir).

    python examples/demo_builder.py            # print the tile IR
    python examples/demo_builder.py --ptx      # compile it and print the PTX
    python examples/demo_builder.py --run      # run it (the GPU when it can, else tile-sim) and check `out`

A 32x16 uint8 tile goes from global to shared memory (tile.copy), to all 128 lanes of tensor memory (one
tcgen05.cp.32x128b.warpx4, issued by thread 0 and committed to an mbarrier), and back to global memory
through tcgen05.ld. No fence is written: the compiler adds those the PTX memory model asks for, the one
after mbarrier.init too (docs/fences.md), as it does for demo.mlir, so both compile to the same PTX.
"""
import argparse

import numpy as np

import tile_mlir
from tile_mlir import builders as tb

TMEM_LAYOUT = "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"


def build_demo(ctx=None, fill=None):
    """The demo as an MLIR module (in ``ctx``, default a fresh context). fill(smem, a), if given, emits the ops
    that fill shared memory from A instead of tile.copy (the test of cp.async into tcgen05.cp uses copy_async)."""
    with tb.module(ctx, file=__file__) as m:
        a_t = tb.buffer_t("global", (32, 16), "ui8")
        out_t = tb.buffer_t("global", (128, 16), "ui8")
        smem_t = tb.buffer_t("shared", (32, 16), "ui8", "S[(32, 16) : (16, 1)]", align=1024)
        tmem_t = tb.buffer_t("tmem", (32, 16), "ui8", TMEM_LAYOUT)
        slot_t = tb.buffer_t("shared", (1,), "i32")
        bar_t = tb.buffer_t("shared", (1,), "i64")
        with tb.kernel(m.module, "demo", {"A": a_t, "out": out_t}, block=(128, 1, 1)) as (_, (a, out)):
            smem = tb.alloc_shared(smem_t)
            slot = tb.alloc_shared(slot_t)
            bar = tb.alloc_shared(bar_t)
            is_warp0 = tb.eq(tb.warp_id(), 0)
            is_thread0 = tb.eq(tb.thread_id(), 0)
            with tb.when(is_warp0):
                tb.tmem_alloc(slot, 32)
            with tb.when(is_thread0):
                tb.mbarrier_init(bar, 1)
            if fill is None:
                tb.copy(smem, a)
            else:
                fill(smem, a)
            tb.barrier()
            tmem = tb.tmem_buffer(slot, tmem_t)
            with tb.when(is_thread0):
                tb.copy_async(tmem, smem)
                tb.commit(bar)
            tb.mbarrier_wait(bar, 0)
            tb.tmem_load(out, tmem, num_cols=4)
            tb.barrier()
            with tb.when(is_warp0):
                tb.tmem_relinquish()
                tb.tmem_dealloc(slot, 32)
            tb.ret()
    return m.module


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX")
    p.add_argument("--run", action="store_true", help="run it and check out against A")
    args = p.parse_args()
    module = build_demo()
    if args.run:
        a = np.arange(512, dtype=np.uint8).reshape(32, 16)
        out = np.zeros((128, 16), np.uint8)
        result = tile_mlir.jit(module)(A=a, out=out)
        ok = np.array_equal(out, np.tile(a, (4, 1)))
        print(f"demo ran on {result.backend}: out {'==' if ok else '!='} A repeated in the 4 lane quarters")
        return 0 if ok else 1
    print(tile_mlir.compile(module).ptx if args.ptx else module)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
