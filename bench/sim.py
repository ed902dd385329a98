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
4. the GEMMs of examples/gemm_blockscaled.py (MXFP8, NVFP4 on sm_100a, the bf16 and e4m3 Hopper twins):
   the emulator's speed in MMA-flops per second against numpy's float32 matmul of the same shape, each D
   bit for bit the model of its MMA chain (tile-sim's fast path, itself checked against MMA-Sim on 4 tiles).

    python bench/sim.py --diff 1000000      the fast MMA path against MMA-Sim, 1M D elements per kind
    python bench/sim.py --scaling           MXFP8 over M, N, K and CTAs
    python bench/sim.py --targets           MXFP8 / NVFP4 2048^3 and the bf16 twin 1024^3
    python bench/sim.py --baseline TREE     MXFP8 512x512x1024 here and at another worktree (its own PYTHONPATH)
    python bench/sim.py --baseline TREE --gemm sm_90a,bf16,1024,1024,1024    another GEMM of the two trees

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
    gemm_rows(GEMMS, "4. GEMMs per kind")


# 4. the GEMMs of examples/gemm_blockscaled.py on tile-sim: MMA-flops (2 M N K) per second of emulation,
#    against a same-run anchor (numpy's float32 matmul of the same shape); D checked bit for bit against the
#    model of the kernel's MMA chain computed by tile-sim's exact fast path, which is itself checked against
#    MMA-Sim on 4 tiles (all of D for small shapes)
GEMMS = [("sm_100a", "mxfp8", 128, 128, 512, {}), ("sm_100a", "nvfp4", 128, 128, 1024, {}),
         ("sm_90a", "bf16", 128, 128, 512, {"tile_n": 128}), ("sm_90a", "e4m3", 128, 128, 512, {"tile_n": 128})]
SCALING = [("sm_100a", "mxfp8", m, n, k, {}) for m, n, k in
           ((128, 128, 256), (128, 128, 1024), (128, 128, 4096), (128, 256, 1024), (256, 128, 1024),
            (256, 256, 1024), (512, 512, 1024))]
TARGETS = [("sm_100a", "mxfp8", 2048, 2048, 2048, {}), ("sm_100a", "nvfp4", 2048, 2048, 2048, {}),
           ("sm_90a", "bf16", 1024, 1024, 1024, {})]


def _gemm_module():
    sys.path.insert(0, os.path.join(HERE, os.pardir, "examples"))
    import gemm_blockscaled as gemm
    return gemm


def model(cfg, logical, tiles=None):
    """D (fp32) of cfg's MMA chain through tile_mlir.sim.mma_numerics (the fast path, or MMA-Sim under
    TILE_MLIR_SIM_MMA=mmasim): per tile of 128 (tcgen05) / 64 (wgmma) rows and N <= 256, one MMA per K
    step in order, as examples/gemm_reference.py's MMA-Sim model; ``tiles``: only these (m0, n0)."""
    from gemm_reference import FORMATS
    from tile_mlir.sim import mma_numerics as mn

    if cfg.target == "sm_90a":
        a, b = logical
        name = {"bfloat16": "bf16", "float8_e4m3fn": "e4m3"}[a.dtype.name]
        ab = (lambda x: x.view(np.uint16)) if name == "bf16" else (lambda x: x.view(np.uint8))
        A, B, rows, kstep = ab(a).astype(np.uint32), ab(b).astype(np.uint32).T, 64, 16 if name == "bf16" else 32
        step = lambda c, m0, n0, nn, k0: mn.wgmma("f32", name, name, A[m0:m0 + 64, k0:k0 + kstep],  # noqa: E731
                                                   B[k0:k0 + kstep, n0:n0 + nn], c, n=nn, k=kstep)
    else:
        a, sfa, b, sfb = logical
        fmt = FORMATS[cfg.dtype]
        bits = lambda x: x.view(np.uint8).astype(np.uint32) & (0xF if fmt.elem_ptx == "e2m1" else 0xFF)  # noqa: E731
        A, B, SA, SB = bits(a), bits(b).T, sfa.view(np.uint8).astype(np.uint32), sfb.view(np.uint8).astype(np.uint32).T
        at = "e2m1x2" if fmt.elem_ptx == "e2m1" else fmt.elem_ptx
        rows, kstep, spv = 128, fmt.mma_k, fmt.mma_k // fmt.vec
        step = lambda c, m0, n0, nn, k0: mn.tcgen05(  # noqa: E731
            fmt.kind, "f32", at, at, A[m0:m0 + 128, k0:k0 + kstep], B[k0:k0 + kstep, n0:n0 + nn], c, m=128,
            n=nn, k=kstep, sfa=SA[m0:m0 + 128, k0 // fmt.vec:k0 // fmt.vec + spv],
            sfb=SB[k0 // fmt.vec:k0 // fmt.vec + spv, n0:n0 + nn], block=fmt.vec, stype=fmt.scale_ptx)
    m, k = A.shape
    n = B.shape[1]
    d = np.zeros((m, n), np.uint32)
    for n0 in range(0, n, 256):
        nn = min(256, n - n0)
        for m0 in range(0, m, rows):
            if tiles is not None and (m0, n0) not in tiles:
                continue
            c = np.zeros((rows, nn), np.uint32)
            for k0 in range(0, k, kstep):
                c = step(c, m0, n0, nn, k0)
            d[m0:m0 + rows, n0:n0 + nn] = c
    return d.view(np.float32)


def _check(gemm, cfg, d, logical, ntiles=4):
    """(D == the fast model, fast model == MMA-Sim on ntiles tiles (or everything when that is smaller))."""
    from gemm_reference import to_bf16
    fast = model(cfg, logical)
    same = np.array_equal(d.view(np.uint16), to_bf16(fast).view(np.uint16))
    rows = 64 if cfg.target == "sm_90a" else 128
    all_tiles = [(m0, n0) for n0 in range(0, cfg.n, 256) for m0 in range(0, cfg.m, rows)]
    pick = [all_tiles[i * len(all_tiles) // ntiles] for i in range(min(ntiles, len(all_tiles)))]
    os.environ["TILE_MLIR_SIM_MMA"] = "mmasim"
    try:
        ref = model(cfg, logical, tiles=set(pick))
    finally:
        del os.environ["TILE_MLIR_SIM_MMA"]
    ok = all(np.array_equal(ref[m0:m0 + rows, n0:n0 + 256].view(np.uint32),
                            fast[m0:m0 + rows, n0:n0 + 256].view(np.uint32)) for m0, n0 in pick)
    return same, ok, len(pick)


def _anchor(m, n, k):
    """Seconds of numpy's float32 matmul of the GEMM's shape (best of 3), in the same run."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32)
    return timed(lambda: a @ b)[0]


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its live worker processes (the sim's pool
    keeps them between launches, so they are read from /proc, not reaped)."""
    import multiprocessing
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    for ch in multiprocessing.active_children():
        try:
            f = open(f"/proc/{ch.pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(f[11]) + int(f[12])) / tick
    return total


def gemm_rows(rows, title, workers=None):
    gemm = _gemm_module()
    import ml_dtypes
    import tile_mlir
    print(f"\n{title}")
    print(f"{'GEMM (compile excluded)':<36}{'CTAs':>5}{'time [s]':>10}{'cpu [s]':>9}{'MMA-flop/s':>12}"
          f"{'anchor':>11}{'ratio':>8}{'load':>6}  D == model, model == MMA-Sim (tiles)")
    for target, dtype, m, n, k, tiling in rows:
        cfg = gemm.GemmConfig(target, dtype, m, n, k, **tiling)
        args = gemm.operands(cfg, seed=1)
        kern = tile_mlir.jit(gemm.build(cfg), arch=target, backend="sim", workers=workers)
        ins = [args[p] for p in ("A", "B", "SFA", "SFB") if p in args]
        d = np.zeros((m, n), ml_dtypes.bfloat16)
        c0, t0 = _cpu_seconds(), time.perf_counter()
        res = kern(*ins, d)
        t = time.perf_counter() - t0
        cpu, load = _cpu_seconds() - c0, os.getloadavg()[0]
        same, ok, nt = _check(gemm, cfg, d, args["logical"])
        ctas = cfg.grid[0] * cfg.grid[1] * cfg.grid[2]
        fl = 2 * m * n * k / t
        anchor = 2 * m * n * k / _anchor(m, n, k)
        print(f"{cfg.name + ' (' + target + ')':<36}{ctas:>5}{t:>10.2f}{cpu:>9.2f}{fl:>12.3g}{anchor:>11.3g}"
              f"{anchor / fl:>8.0f}{load:>6.1f}  {'yes' if same else 'NO'}, {'yes' if ok else 'NO'} ({nt})",
              flush=True)
        print(f"  # {res.sim.schedule}", flush=True)


def diff(per_kind, kinds=None):
    """The differential test of the fast MMA path against MMA-Sim: per_kind D elements per kind."""
    import mma_diff as md
    rng = np.random.default_rng(2026)
    print(f"\n{'kind':<34}{'D elements':>12}{'mismatches':>12}{'fast [s]':>10}{'MMA-Sim [s]':>12}")
    for name in kinds or md.KINDS:
        total = bad = 0
        k = 0
        times = [0.0, 0.0]
        while total < per_kind:
            narrow, rate = ((False, 0.002), (True, 0.0), (True, 0.02), (False, 0.05))[k % 4]
            b, fast, _, _, _ = md.compare(name, rng, 128, 128, special_rate=rate, narrow=narrow,
                                          times=times)
            total += fast.size
            bad += len(b)
            k += 1
        print(f"{name:<34}{total:>12}{bad:>12}{times[0]:>10.2f}{times[1]:>12.2f}", flush=True)


_BASELINE_CODE = """
import os, sys, time, multiprocessing
sys.path.insert(0, 'examples')
os.environ['TILE_MLIR_SIM_MAX_SECONDS'] = os.environ['TILE_SIM_MAX_SECONDS'] = '3000'  # (trees before the rename read the old name)
import numpy as np, ml_dtypes, tile_mlir
import gemm_blockscaled as g
cfg = g.GemmConfig(*{cfg!r})
args = g.operands(cfg, seed=1)
t = time.perf_counter()
kern = tile_mlir.jit(g.build(cfg), arch=cfg.target, backend='sim')
compile_s = time.perf_counter() - t
d = np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16)
c, t = time.process_time(), time.perf_counter()
kern(*[args[n] for n in ('A', 'B', 'SFA', 'SFB') if n in args], d)
wall, cpu = time.perf_counter() - t, time.process_time() - c
tick = os.sysconf('SC_CLK_TCK')
for ch in multiprocessing.active_children():  # a pool's workers, still alive
    f = open('/proc/%d/stat' % ch.pid).read().rsplit(')', 1)[1].split()
    cpu += (int(f[11]) + int(f[12])) / tick
np.save({out!r}, d.view(np.uint16))
print(compile_s, wall, cpu, os.getloadavg()[0])
"""


def baseline(path, cfg_args=("sm_100a", "mxfp8", 512, 512, 1024)):
    """One launch of the same GEMM on tile-sim at another checkout (``path``: a git worktree) and
    here, each in a fresh process on its own tree (its PYTHONPATH), compile excluded (jit() compiles;
    the kernel call is timed: emulation, the old tree's torch / MMA-Sim import included); D must be
    bit-identical between the two."""
    import subprocess
    import tempfile
    out, ds = {}, []
    print(f"GEMM {cfg_args}, one launch per tree, compile excluded")
    print(f"{'tree':<44}{'wall [s]':>10}{'cpu [s]':>9}{'compile [s]':>12}{'load':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, root in (("baseline " + path, path), ("this tree", os.path.join(HERE, os.pardir))):
            npy = os.path.join(tmp, f"d{len(ds)}.npy")
            env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"), TILE_MLIR_SIM_PROGRESS="0")
            r = subprocess.run([sys.executable, "-c", _BASELINE_CODE.format(cfg=cfg_args, out=npy)],
                               cwd=root, env=env, capture_output=True, text=True)
            if r.returncode:
                raise SystemExit(r.stderr[-2000:])
            comp, wall, cpu, load = map(float, r.stdout.split()[-4:])
            out[label] = (wall, cpu)
            ds.append(np.load(npy))
            print(f"{label:<44}{wall:>10.2f}{cpu:>9.2f}{comp:>12.2f}{load:>6.1f}", flush=True)
    (aw, ac), (bw, bc) = out.values()
    print(f"speed-up: {aw / bw:.1f}x wall, {ac / bc:.1f}x cpu; D bit-identical between the trees: "
          f"{'yes' if np.array_equal(*ds) else 'NO'}")


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
    import argparse
    p = argparse.ArgumentParser(description="tile-sim emulation time")
    p.add_argument("--diff", type=int, metavar="N", help="only the differential test: N D elements per kind")
    p.add_argument("--kinds", help="the kinds of --diff, comma-separated (default: all of mma_diff.KINDS)")
    p.add_argument("--scaling", action="store_true", help="only the MXFP8 scaling over M, N, K and CTAs")
    p.add_argument("--targets", action="store_true", help="only the 2048^3 / 1024^3 GEMMs of issue 19")
    p.add_argument("--baseline", metavar="TREE", help="only MXFP8 512x512x1024 here and at TREE")
    p.add_argument("--gemm", metavar="TARGET,DTYPE,M,N,K", help="the GEMM of --baseline (default "
                   "sm_100a,mxfp8,512,512,1024)")
    p.add_argument("--workers", type=int, help="tile-sim workers (default: every core)")
    ns = p.parse_args()
    if ns.diff:
        diff(ns.diff, ns.kinds.split(",") if ns.kinds else None)
    elif ns.scaling:
        gemm_rows(SCALING, "MXFP8 scaling", ns.workers)
    elif ns.targets:
        gemm_rows(TARGETS, "issue 19 targets", ns.workers)
    elif ns.baseline:
        g = ns.gemm.split(",") if ns.gemm else None
        baseline(ns.baseline, *([(g[0], g[1], *map(int, g[2:]))] if g else []))
    else:
        main()
