"""Tutorial step 1 with the Python builders (docs/tutorial.md; the same kernel as step1_copy.mlir): a 32x16
tile from global memory to shared memory and back, copied by all 128 threads, a barrier between.

    python examples/tutorial/step1_copy.py          # print the tile IR
    python examples/tutorial/step1_copy.py --run    # run it (GPU or tile-sim) and check out == A
"""
import numpy as np

from tile_mlir import builders as tb


def build():
    with tb.module(file=__file__) as m:
        g = tb.buffer_t("global", (32, 16), "ui8")
        s = tb.buffer_t("shared", (32, 16), "ui8", "S[(32, 16) : (16, 1)]")
        with tb.kernel(m.module, "step1_copy", {"A": g, "out": g}, block=(128, 1, 1)) as (_, (a, out)):
            smem = tb.alloc_shared(s)
            tb.copy(smem, a, scope="cta")
            tb.barrier()
            tb.copy(out, smem, scope="cta")
            tb.ret()
    return m.module


def inputs():
    a = np.arange(512, dtype=np.uint8).reshape(32, 16)
    return {"A": a, "out": np.zeros_like(a)}, lambda args: np.array_equal(args["out"], a)


if __name__ == "__main__":
    from _run import main
    raise SystemExit(main(build, inputs))
