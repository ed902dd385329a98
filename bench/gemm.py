"""GEMM TFLOP/s on the GPU over suites of shapes: tile_mlir.gemm (its heuristic's configuration for each
shape, no flags; sm_90a cubins compiled on the development machine, one per configuration), cuBLAS and a
persistent TMA Triton kernel, in the same process on the same inputs.

    PYTHONPATH=python TILE_MLIR_CACHE_DIR=<dir> python3 bench/gemm.py [--suites suite decode odd]
        [--kernels NAME=DIR ...] [--dtypes bf16 e4m3] [--passes 2] [--shapes MxNxK ...] [--reps 10] ...
    python bench/gemm.py --precompile <dir>     # (development machine) every configuration the suites need

Suites: `suite` (the developers' 26 rows: square, LLM projections, edge tiles), `decode` (M = 1, 16, 64, 128
at LLM N x K: 4096 x 14336, 14336 x 4096, 4096 x 4096) and `odd` (no dimension a multiple of 128; e4m3 K 7000
and 4100, whose rows TMA cannot stride, padded by tile_mlir.gemm). "ours" is tile_mlir.gemm.plan(a, b, out=d)
called again per launch (the configuration chosen and its kernel bound once, as a model's layer would; a
K padding copy, where there is one, is made once at plan time and is not timed; split-K and stream-K reduced by
the kernel's fix-up are one launch; TMA-reduced split-K's workspace zeroing and conversion are timed). --kernels adds folders of fixed-shape artifacts as further columns.

Every kernel computes the "TN" product D[M, N] = A[M, K] . B[N, K]^T with bf16 D. cuBLAS is torch.matmul
(bf16) and torch._scaled_mm (e4m3, unit scales); Triton is bench/gpu/persistent/triton_gemm.py (one program
per multiprocessor, grouped raster, TMA descriptors), the faster of its two configs at each shape.
Ours: for each --kernels NAME=DIR, the Artifact `*_<dtype>_<M>x<N>x<K>.json` in DIR (bench/gpu/persistent/
make_*.py write them), launched through tile_mlir.jit(artifact, backend="gpu"); the last NAME is "ours" in the
ratios, the others get a TF/s column.

Method: the clocks are warmed by a second of cuBLAS first. Each pass visits every shape and dtype; there each
kernel is checked against cuBLAS's D (relative Frobenius error; "=" when every bit is cuBLAS's), then timed
with CUDA events: --warmup launches each, then --reps rounds, each timing --calls back-to-back launches of every
kernel between one pair of events (the round's first kernel rotating), median per kernel of the per-call time.
Interleaved, because the H200 runs at its 700 W cap under these kernels: timed one after another, the first
kernel of a shape ran on the headroom the idle gap left and the last on the capped clock (measured: ~1500 vs
~1455 MHz), a bias against whichever came last (ours, before 2026-12-02). Back to back, so that the host's
launch work (torch's dispatch is tens of microseconds) overlaps the GPU's, as in any real loop.
TFLOP/s = 2 M N K / median time; a row shows the median over passes (of two: the mean) and ours/cuBLAS of
each pass. The last lines: `odd: ...`, `suite: N shapes (K non-square), min ours/cuBLAS R, geomean G` and
`decode: N shapes, min ours/cuBLAS R, geomean G`, N counting each (shape, dtype), over the median ratios, and
before them the cubins that served every row (one per configuration). Random inputs U(-1, 1) in the operand
type.
"""
from __future__ import annotations

import argparse
import glob
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "gpu", "persistent"))


# (M, N, K): the square cases, then projections and MLPs as LLMs shape them (whole 128 x 256 tiles and K a
# multiple of 128, so the one-CTA-per-tile twin runs them too), then shapes with edge tiles.
SQUARE = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)]
NON_SQUARE = [
    (8192, 28672, 8192),   # wide N: an MLP up-projection
    (4096, 14336, 4096),   # wide N, fewer rows
    (1024, 8192, 8192),    # short M (a small batch of tokens)
    (16384, 1024, 8192),   # tall M, narrow N: a K/V projection
    (8192, 4096, 14336),   # deep K: an MLP down-projection
    (4096, 4096, 16384),   # deep K
    (16384, 8192, 1024),   # short K
    (8192, 8192, 512),     # very short K
]
# partial tiles in M, N and K (TMA's zero fill and clipped stores): the one-CTA-per-tile twin does not take them
PARTIAL = [
    (8000, 8000, 8000),
    (3000, 11008, 4000),   # M and K edges
]
SUITE = SQUARE + NON_SQUARE + PARTIAL
# LLM decode: a batch of M tokens through projections of N x K
DECODE = [(m, n, k) for (n, k) in [(4096, 14336), (14336, 4096), (4096, 4096)] for m in (1, 16, 64, 128)]
# no dimension a multiple of 128 (K 7000 / 4100 e4m3: rows of a non-16-byte multiple, padded)
ODD = [(1000, 1000, 1000), (3000, 5000, 3000), (777, 4000, 7000), (300, 200, 4100), (8, 4000, 4100),
       (2000, 6000, 1500)]
SUITES = {"suite": SUITE, "decode": DECODE, "odd": ODD}


def _cublas(dtype: str, a, b):
    """cuBLAS's D through torch (a callable). torch._scaled_mm takes K and N of multiples of 16 only: other
    shapes run on zero-padded copies made here, untimed (as tile_mlir.gemm pads K once at plan time), the
    callable returning D's first N columns of the padded product."""
    import torch
    if dtype == "bf16":
        return lambda: torch.matmul(a, b.t())
    one = torch.ones((), device="cuda", dtype=torch.float32)
    (m, k), n = a.shape, b.shape[0]
    kp, np_ = -(-k // 16) * 16, -(-n // 16) * 16
    if (kp, np_) != (k, n):
        pa = torch.zeros((m, kp), dtype=torch.uint8, device="cuda")
        pb = torch.zeros((np_, kp), dtype=torch.uint8, device="cuda")
        pa[:, :k], pb[:n, :k] = a.view(torch.uint8), b.view(torch.uint8)
        pa, pb = pa.view(a.dtype), pb.view(b.dtype)
        return lambda: torch._scaled_mm(pa, pb.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)[:, :n]
    return lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def _time(fn, warmup: int, reps: int) -> float:
    """Median seconds of one call, CUDA events around each call."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
    return statistics.median(times)


class _Ours:
    """Our kernels of one artifact folder, loaded once."""

    def __init__(self, name: str, folder: str):
        self.name, self.folder, self.kernels = name, folder, {}

    def launcher(self, dtype, shape, a, b, d):
        """A callable writing D, or a string saying why there is none."""
        import torch
        m, n, k = shape
        key = (dtype, shape)
        if key not in self.kernels:
            found = glob.glob(os.path.join(self.folder, f"*_{dtype}_{m}x{n}x{k}.json"))
            if not found:
                self.kernels[key] = None
            else:
                from tile_mlir.artifact import Artifact
                from tile_mlir.runtime import jit
                self.kernels[key] = jit(Artifact.load(found[0]), backend="gpu")
        kernel = self.kernels[key]
        if kernel is None:
            return f"no {self.name} artifact"
        bits = torch.uint16 if dtype == "bf16" else torch.uint8  # (bit patterns: DLPack has no fp8)
        args = {"A": a.view(bits), "B": b.view(bits), "D": d.view(torch.uint16)}
        ordered = [args[p.name] for p in kernel.artifact.params]
        return lambda: kernel.launch(*ordered)


class _Library:
    """tile_mlir.gemm with its heuristic: one GemmCall per (dtype, shape), planned on the shape's arrays."""

    name = "ours"

    def __init__(self):
        self.used = {}  # configuration name -> [(dtype, shape)]

    def launcher(self, dtype, shape, a, b, d):
        import tile_mlir
        call = tile_mlir.gemm.plan(a, b, out=d)
        self.used.setdefault(call.config.name, []).append((dtype, shape))
        return lambda: call()


def _check(run, d, ref) -> tuple[float, bool]:
    import torch
    d.zero_()
    run()
    torch.cuda.synchronize()
    err = (torch.linalg.norm(d.float() - ref.float()) / torch.linalg.norm(ref.float())).item()
    return err, bool(torch.equal(d.view(torch.int16), ref.view(torch.int16)))


def _time_interleaved(fns: dict, warmup: int, reps: int, calls: int) -> dict:
    """{name: median seconds of one call}: `reps` rounds, each timing `calls` back-to-back calls of every fn
    with CUDA events, the round's first fn rotating, so that each meets the same clocks and power state."""
    import torch
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    names, times = list(fns), {name: [] for name in fns}
    for r in range(reps):
        for name in names[r % len(names):] + names[:r % len(names)]:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                fns[name]()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) * 1e-3 / calls)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _triton(a, b, d, warmup, reps, cache, key):
    """The Triton kernel's launcher, its config picked on the first pass (the faster alone; the timing that
    counts is _time_interleaved's)."""
    import triton_gemm
    if key not in cache:
        best = None
        for cfg in triton_gemm.CONFIGS[a.element_size()]:
            run = triton_gemm.launcher(a, b, d, cfg)
            t = _time(run, warmup, reps)
            if best is None or t < best[0]:
                best = (t, cfg)
        cache[key] = best[1]
    return triton_gemm.launcher(a, b, d, cache[key])


def _one(dtype, shape, ours, args, triton_cfg):
    """{column: seconds or error} for one shape in one pass."""
    import torch
    m, n, k = shape
    tdtype = torch.bfloat16 if dtype == "bf16" else torch.float8_e4m3fn
    gen = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
    a = (torch.rand((m, k), device="cuda", generator=gen) * 2 - 1).to(tdtype)
    b = (torch.rand((n, k), device="cuda", generator=gen) * 2 - 1).to(tdtype)
    d = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
    cublas = _cublas(dtype, a, b)
    ref = cublas().contiguous()
    row, fns = {}, {"cuBLAS": cublas}
    try:
        run = _triton(a, b, d, args.warmup, args.reps, triton_cfg, (dtype, shape))
        row["Triton err"] = _check(run, d, ref)
        fns["Triton"] = run
    except Exception as e:  # (TMA descriptors of K rows TMA cannot stride: no Triton column)
        row["Triton"] = f"Triton: {type(e).__name__}"
    for o in ours:
        run = o.launcher(dtype, shape, a, b, d)
        if isinstance(run, str):
            row[o.name] = run
            continue
        row[o.name + " err"] = _check(run, d, ref)
        fns[o.name] = run
    row.update(_time_interleaved(fns, args.warmup, args.reps, args.calls))
    return row


def _shape(text: str):
    m, n, k = (int(x) for x in text.lower().split("x"))
    return m, n, k


def precompile(directory: str, sms: int = 132) -> int:
    """Compile every configuration tile_mlir.gemm's heuristic picks for the suites' shapes on `sms` SMs into
    `directory`/gemm/sm_90a (the GPU machine's TILE_MLIR_CACHE_DIR)."""
    from tile_mlir.gemm import choose, kernels
    cfgs = {choose(m, n, k, dt, sms) for shapes in SUITES.values() for (m, n, k) in shapes for dt in ("bf16", "e4m3")}
    paths = kernels.precompile(sorted(cfgs, key=lambda c: c.name), os.path.join(directory, "gemm", kernels.ARCH))
    print(f"{len(paths)} configurations compiled into {directory}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", nargs="*", default=[], metavar="NAME=DIR")
    p.add_argument("--suites", nargs="+", default=list(SUITES), choices=list(SUITES))
    p.add_argument("--dtypes", nargs="+", default=["bf16", "e4m3"], choices=["bf16", "e4m3"])
    p.add_argument("--shapes", type=_shape, nargs="+", default=None, metavar="MxNxK", help="instead of the suites")
    p.add_argument("--precompile", metavar="DIR", help="compile the suites' configurations into DIR and stop")
    p.add_argument("--passes", type=int, default=2)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--calls", type=int, default=5, help="back-to-back launches per timed block")
    args = p.parse_args(argv)
    if args.precompile:
        return precompile(args.precompile)
    ours = [_Ours(*spec.split("=", 1)) for spec in args.kernels] + [_Library()]
    groups = {"shapes": args.shapes} if args.shapes else {name: SUITES[name] for name in args.suites}

    import torch
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{torch.cuda.get_device_properties(0).multi_processor_count} SMs; ours = {ours[-1].name if ours else '-'}")
    warm = torch.randn((8192, 8192), device="cuda", dtype=torch.bfloat16)
    for _ in range(100):  # (about a second: clocks up before the first timing)
        warm @ warm
    del warm
    torch.cuda.synchronize()
    triton_cfg, rows = {}, {}
    for pas in range(args.passes):
        for group, shapes in groups.items():
            for dtype in args.dtypes:
                for shape in shapes:
                    rows.setdefault(group, {}).setdefault((dtype, shape), []).append(
                        _one(dtype, shape, ours, args, triton_cfg))
                    torch.cuda.empty_cache()
        print(f"pass {pas + 1} done", flush=True)
    lines, failed = [], False
    for group, grows in rows.items():
        print(f"# {group}")
        line, bad = _report(grows, ours, triton_cfg, group)
        lines.append(line)
        failed |= bad
    lib = ours[-1]
    print(f"# Triton configs (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, stages, warps): "
          + ", ".join(f"{d} {'x'.join(map(str, s))}: {c}" for (d, s), c in triton_cfg.items()))
    print(f"cubins: {len(lib.used)} (one per configuration; each served the rows listed)")
    for name, served in sorted(lib.used.items()):
        shown = sorted({f"{d} {m}x{n}x{k}" for d, (m, n, k) in served})
        print(f"  {name}: {', '.join(shown)}")
    order = {"odd": 0, "shapes": 1, "suite": 2, "decode": 3}
    for _, line in sorted(zip(rows, lines), key=lambda gl: order[gl[0]]):
        if line:
            print(line)
    return 1 if failed else 0


def _report(rows, ours, triton_cfg, group):
    names = [o.name for o in ours]
    last = names[-1] if names else None
    width = {n: max(9, len(n) + 2) for n in names}
    head = f"{'dtype':<5}{'M x N x K':>20}{'cuBLAS':>8}{'Triton':>8}" + "".join(f"{n:>{width[n]}}" for n in names)
    print(head + f"{'ours/cuBLAS (passes)':>22}{'ours/Tri':>9}{'err':>9}{'Tri err':>9}  TF/s, median of passes")
    ratios, non_square, failed = [], 0, False
    for (dtype, shape), passes in rows.items():
        m, n, k = shape
        flop = 2.0 * m * n * k
        tf = {c: flop / statistics.median(p[c] for p in passes) * 1e-12
              for c in ["cuBLAS", "Triton"] + names if c in passes[0] and not isinstance(passes[0][c], str)}
        tri = f"{tf['Triton']:>8.1f}" if "Triton" in tf else f"{'-':>8}"
        line = f"{dtype:<5}{f'{m} x {n} x {k}':>20}{tf['cuBLAS']:>8.1f}{tri}"
        line += "".join(f"{tf[n]:>{width[n]}.1f}" if n in tf else f"{'-':>{width[n]}}" for n in names)
        tri_err, tri_same = passes[0].get("Triton err", (float("nan"), False))
        if last in tf:
            per_pass = [p["cuBLAS"] / p[last] for p in passes]
            err, same = passes[0][last + " err"]
            ok = err < 1e-2
            failed |= not ok
            ratio = tf[last] / tf["cuBLAS"]
            ratios.append(ratio)
            non_square += not (m == n == k)
            line += f"{ratio:>8.2f} ({'/'.join(f'{r:.2f}' for r in per_pass)})".ljust(22)
            vs_tri = f"{tf[last] / tf['Triton']:>9.2f}" if "Triton" in tf else f"{'-':>9}"
            line += f"{vs_tri}{('=' if same else f'{err:.1e}'):>9}"
            line += "" if ok else " WRONG"
        else:
            line += f"{'-':>22}{'-':>9}{'-':>9}"
        line += f"{('=' if tri_same else f'{tri_err:.1e}'):>9}"
        print(line)
    if not ratios:
        return "", failed
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    if group == "suite":
        return (f"suite: {len(ratios)} shapes ({non_square} non-square), min ours/cuBLAS {min(ratios):.2f}, "
                f"geomean {geo:.2f}", failed)
    return f"{group}: {len(ratios)} shapes, min ours/cuBLAS {min(ratios):.2f}, geomean {geo:.2f}", failed


if __name__ == "__main__":
    sys.exit(main())
