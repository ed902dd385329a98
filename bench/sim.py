"""tile-sim emulation time.

    python bench/sim.py

1. a kernel like the pipeline's toy sample, made correct (128 threads fill 4 KiB of shared memory,
   fence, alloc 32 columns, one tcgen05.cp.32x128b.warpx4, commit, mbarrier wait, 4-warp
   tcgen05.ld readback, dealloc); goal <= 1 s.
2. full TMEM: 128 x tcgen05.cp.32x128b.warpx4 fill 128 lanes x 512 columns, then 4 warps read
   everything back with tcgen05.ld.32x32b.x128 (4 per warp); goal <= 10 s.

3. the same two programs as the pipeline emits them: examples/demo.mlir (the seed's demonstration
   program) and examples/fill_tmem.mlir (128 lanes x 512 columns from a 128B-swizzled tile), compiled
   here to PTX and emulated; their readbacks are checked against numpy.
4. the GEMMs of examples/gemm_blockscaled.py (MXFP8, NVFP4 on sm_100a, the bf16 Hopper twin): the
   emulator's speed in MMA-flops per second, each D bit for bit MMA-Sim's.

Ratios are printed against the parse+decode-only time of kernel 1 (anchor in the same process).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "python", "sim"))

from ptxgen import cp_kernel  # noqa: E402

from tile_mlir.sim import run_ptx  # noqa: E402
from tile_mlir.sim.machine import Machine  # noqa: E402
from tile_mlir.sim.ptx_parser import parse  # noqa: E402


def desc(start, lbo, sbo, mode=0):
    return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | 1 << 46 | mode << 61


def timed(fn, reps=3):
    best = 1e9
    for _ in range(reps):
        t0 = time.perf_counter()
        r = fn()
        best = min(best, time.perf_counter() - t0)
    return best, r


def main():
    small = cp_kernel([("32x128b.warpx4", 0, 0, desc(1024, 0, 128))], ncols=32, smem_bytes=4096)
    src = np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8)

    def decode_only():
        mod = parse(small)
        Machine(mod, mod.entry("k"), grid=(1, 1, 1), block=(128, 1, 1), cluster=(1, 1, 1),
                dynamic_smem=0, strict=True, trace=False, max_steps=10**7)

    t_anchor, _ = timed(decode_only)
    t_small, res = timed(lambda: run_ptx(small, "k", [src, np.zeros((128, 32), np.uint32)]))

    cps = [("32x128b.warpx4", 4 * i, 0, desc(1024 + (i % 32) * 512, 0, 128)) for i in range(128)]
    big = cp_kernel(cps, ncols=512, smem_bytes=16384, read_cols=512)
    src2 = np.random.default_rng(1).integers(0, 256, 16384, dtype=np.uint8)
    out = np.zeros((128, 512), np.uint32)
    t_big, res2 = timed(lambda: run_ptx(big, "k", [src2, out]), reps=1)
    assert (res2.tmem[0] == out).all()

    print(f"{'kernel':<44}{'time [s]':>10}{'goal [s]':>10}{'x anchor':>10}{'steps':>9}")
    print(f"{'anchor: parse + decode of kernel 1':<44}{t_anchor:>10.4f}{'':>10}{1.0:>10.1f}{'':>9}")
    print(f"{'1: toy-like cp 32x128b.warpx4, 32 cols':<44}{t_small:>10.4f}{1.0:>10.1f}"
          f"{t_small / t_anchor:>10.1f}{res.steps:>9}")
    print(f"{'2: 128 cps fill 128x512, 4-warp readback':<44}{t_big:>10.4f}{10.0:>10.1f}"
          f"{t_big / t_anchor:>10.1f}{res2.steps:>9}")
    for label, goal, path in (("3a: demo.mlir as compiled", 1.0, "demo.mlir"),
                              ("3b: fill_tmem.mlir as compiled (128 cps)", 10.0, "fill_tmem.mlir")):
        t, steps = _pipeline_kernel(os.path.join(HERE, os.pardir, "examples", path))
        print(f"{label:<44}{t:>10.4f}{goal:>10.1f}{t / t_anchor:>10.1f}{steps:>9}")
    _gemm_rows()


# 4. the GEMMs of examples/gemm_blockscaled.py on tile-sim: MMA-flops (2 M N K) per second of emulation, the
#    result checked bit for bit against MMA-Sim's model of the kernel's MMA chain
GEMMS = [("sm_100a", "mxfp8", 128, 128, 512, {}), ("sm_100a", "nvfp4", 128, 128, 1024, {}),
         ("sm_90a", "bf16", 128, 128, 512, {"tile_n": 128})]


def _gemm_rows():
    sys.path.insert(0, os.path.join(HERE, os.pardir, "examples"))
    os.environ.setdefault("TILE_MLIR_SIM_MAX_SECONDS", "900")
    import gemm_blockscaled as gemm

    print(f"\n{'GEMM on tile-sim (compile excluded)':<44}{'time [s]':>10}{'MMA-flop/s':>12}  bit-exact vs MMA-Sim")
    for target, dtype, m, n, k, tiling in GEMMS:
        cfg = gemm.GemmConfig(target, dtype, m, n, k, **tiling)
        gemm.run(cfg)  # (compiles once: the compile cache keeps it for the timed run)
        t, (d, logical) = timed(lambda: gemm.run(cfg, seed=1), reps=1)
        same = (d.view(np.uint16) == gemm.expected(cfg, logical).view(np.uint16)).all()
        print(f"{cfg.name + ' (' + target + ')':<44}{t:>10.2f}{2 * m * n * k / t:>12.3g}  {'yes' if same else 'NO'}")


def _pipeline_kernel(path):
    """Compile with the pipeline (needs the MLIR bindings), emulate, check the readback."""
    sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))
    import tile_mlir

    art = tile_mlir.compile(open(path).read(), filename=path, emit=("ptx",))
    (a_shape, out_shape) = (p.shape for p in art.params)
    a = np.random.default_rng(2).integers(0, 256, a_shape, dtype=np.uint8)
    out = np.zeros(out_shape, np.uint8)
    t, res = timed(lambda: run_ptx(art.ptx, art.kernel_name, [a, out], block=art.block,
                                   dynamic_smem=art.dynamic_smem), reps=1)
    lanes = res.tmem[0][:, : out_shape[1] // 4].copy().view(np.uint8)
    assert (out == lanes).all(), "readback differs from tensor memory"
    assert (out[:32] == out[32:64]).all() and (out[:32] == out[96:]).all(), "warpx4 replicas differ"
    assert (out[:32] == a).all(), "tensor memory does not hold the input tile"  # both: lane r, byte c = A[r, c]
    return t, res.steps


if __name__ == "__main__":
    main()
