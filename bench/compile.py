#!/usr/bin/env python3
"""Compile latency and lowering throughput, in process (run: .venv/bin/python bench/compile.py).

1. Median warm compile latency (tile IR text -> Artifact with PTX and cubin) of the demo and of a copy
   filling 128 lanes x 512 columns, and the median of each stage: our Python work (context + parse, our
   passes: verify, dispatch, lower) and upstream's (conversions to LLVM, gpu-module-to-binary: LLVM NVPTX
   + embedded ptxas). Goal: demo <= 40 ms.
2. tile-lower-copy-async throughput on modules of 10 .. 10,000 copy_async ops: ops/s must stay flat
   (time linear in the op count). Goal: >= 20,000 ops/s. Each size runs 3 times: median and best.

The development VM's speed drifts by up to 2x from minute to minute, so the script times a fixed
pure-Python loop before and after ("VM speed"): compare runs only at like calibration figures.
"""
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))
sys.path.insert(0, HERE)

from kernels import smem_to_tmem_kernel  # noqa: E402

from tile_mlir.compiler import compile  # noqa: E402
from tile_mlir.context import make_context, parse_source  # noqa: E402
from tile_mlir.diagnostics import DiagnosticEngine  # noqa: E402
from tile_mlir.passes import build_pass_manager  # noqa: E402


def times_ms(fn, n=31, warm=3):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return [x * 1e3 for x in ts]


def median_ms(fn, n=31, warm=3):
    return statistics.median(times_ms(fn, n, warm))


def calibrate_ms() -> float:
    """Best of 3 runs of a fixed pure-Python loop (~0.2 s when the VM runs at full speed)."""
    def loop():
        s = 0
        for k in range(1_500_000):
            s += k
        return s
    return min(times_ms(loop, n=3, warm=0))


def run_passes(text, pipeline):
    ctx = make_context()
    m = parse_source(text, "bench.mlir", ctx)
    eng = DiagnosticEngine()
    with eng:
        pm = build_pass_manager(pipeline, ctx)
        with ctx:
            pm.run(m)
    assert not eng.has_errors(), eng.diagnostics
    return m


OURS = "tile-verify,tile-lower-copy-async,convert-tile-to-nvvm"
STAGES = (("context+parse", None), ("our passes", OURS),
          ("conversions", "gpu.module(convert-scf-to-cf,convert-to-llvm),reconcile-unrealized-casts"),
          ("to-binary", "gpu-module-to-binary{format=bin}"))


def stage_ms(text, n=31, warm=3) -> dict:
    """Median ms of each stage of compile(emit=("cubin",)), timed one compile at a time."""
    ts = {name: [] for name, _ in STAGES}
    for i in range(warm + n):
        t = time.perf_counter()
        ctx = make_context()
        m = parse_source(text, "bench.mlir", ctx)
        lap = {"context+parse": time.perf_counter() - t}
        eng = DiagnosticEngine()
        with eng:
            for name, pipeline in STAGES[1:]:
                pm = build_pass_manager(pipeline, ctx)
                t = time.perf_counter()
                with ctx:
                    pm.run(m)
                lap[name] = time.perf_counter() - t
        assert not eng.has_errors(), eng.diagnostics
        if i >= warm:
            for name, dt in lap.items():
                ts[name].append(dt * 1e3)
    return {name: statistics.median(v) for name, v in ts.items()}


def main():
    demo = open(os.path.join(HERE, os.pardir, "examples", "demo.mlir")).read()
    fill = str(smem_to_tmem_kernel("fill_tmem", cols_bytes=2048, swizzle="128B"))  # (text: parsed like a user's)
    print(f"VM speed: calibration loop {calibrate_ms():.0f} ms (lower is faster)\n")
    print("1. compile latency, median (min) of 31 warm runs, ms; then the median of each stage")
    print(f"{'kernel':32s} {'-> cubin':>15s} {'-> ptx+cubin':>13s} | "
          + " ".join(f"{name:>13s}" for name, _ in STAGES))
    for name, text in (("demo (1 cp)", demo), ("128 lanes x 512 cols (128 cps)", fill)):
        ts = times_ms(lambda: compile(text, filename="bench.mlir", emit=("cubin",)))
        both = median_ms(lambda: compile(text, filename="bench.mlir"))
        st = stage_ms(text)
        print(f"{name:32s} {statistics.median(ts):7.1f} ({min(ts):5.1f}) {both:13.1f} | "
              + " ".join(f"{st[n]:13.1f}" for n, _ in STAGES))
    print("   goal: demo tile IR -> cubin <= 40 ms; context+parse and our passes are our Python work, the "
          "rest upstream\n   (conversions to LLVM; to-binary = LLVM NVPTX + embedded ptxas)")

    print("\n2. tile-lower-copy-async throughput")
    print(f"{'copy_async ops':>15s} {'ms':>10s} {'ops/s':>10s} {'best ops/s':>11s} {'ms/op':>8s}")
    for n in (10, 100, 1000, 10000):
        text = _many_copies(n)
        ts = sorted(_lower_once(text) for _ in range(3))
        dt = ts[1]
        print(f"{n:15d} {dt * 1e3:10.1f} {n / dt:10.0f} {n / ts[0]:11.0f} {dt * 1e3 / n:8.3f}")
    print("   goal: >= 20,000 ops/s, flat in n (median of 3 fresh modules; best beside it)")
    print(f"\nVM speed: calibration loop {calibrate_ms():.0f} ms")


def _lower_once(text: str) -> float:
    """Seconds of one tile-lower-copy-async run over a freshly parsed module."""
    ctx = make_context()
    m = parse_source(text, "bench.mlir", ctx)
    eng = DiagnosticEngine()
    with eng:
        pm = build_pass_manager("tile-lower-copy-async", ctx)
        t = time.perf_counter()
        with ctx:
            pm.run(m)
        dt = time.perf_counter() - t
    assert not eng.has_errors(), eng.diagnostics[:3]
    return dt


def _many_copies(n: int) -> str:
    """One kernel with n copy_async ops, each a 32x16 uint8 tile to its own 4 tmem columns (mod 512)."""
    s_t = '!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>'
    t_t = '!tile.buffer<tmem, 32x2048xui8, "S[(32, 2048) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">'
    lines = ['"tile.kernel"() ({',
             f'  %s = "tile.alloc_shared"() : () -> {s_t}',
             '  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>',
             '  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()',
             f'  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> {t_t}']
    for i in range(n):
        c = (i % 128) * 16
        lines.append(f'  "tile.copy_async"(%t, %s) {{dst_offsets = array<i64: 0, {c}>, dst_sizes = array<i64: 32, 16>}}'
                     f' : ({t_t}, {s_t}) -> ()')
    lines += ['  "tile.return"() : () -> ()', '}) {sym_name = "many", block = array<i32: 128, 1, 1>} : () -> ()']
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
