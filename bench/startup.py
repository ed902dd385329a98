#!/usr/bin/env python3
"""Tool cold start: median of 10 runs of `tile-opt` parsing a small tile file (round trip, no passes),
of `tile-opt --tile-verify`, `--help` and `--tile-to-ptx`, beside `python -c "import cutlass"` (what
importing the CuTe DSL costs), in the same run. Goals: tile-opt parse at most 0.45 s; `tile-opt --help` at
most 0.2x `import cutlass` (issue 23: it imports nothing it does not use)."""
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL = os.path.join(ROOT, "test", "Dialect", "tile", "invalid.mlir")
DEMO = os.path.join(ROOT, "examples", "demo.mlir")
TILE_OPT = [os.path.join(os.path.dirname(sys.executable), "tile-opt")]
GOAL = 0.45
HELP_GOAL = 0.2  # tile-opt --help / import cutlass


def median_time(cmd, n=10):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="0")
    subprocess.run(cmd, capture_output=True, env=env)  # warm the page cache and .pyc files
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, env=env)
        ts.append(time.perf_counter() - t)
        if r.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr.decode()}")
    return statistics.median(ts)


def main():
    rows = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ('python -c "import cutlass"', [sys.executable, "-c", "import cutlass"]),
        ("python -c \"import tile_mlir.mlir\"", [sys.executable, "-c", "import tile_mlir.mlir"]),
        ("tile-opt demo.mlir (parse, print)", TILE_OPT + [DEMO]),
        ("tile-opt demo.mlir --tile-verify", TILE_OPT + [DEMO, "--tile-verify"]),
        ("tile-opt --help", TILE_OPT + ["--help"]),
        ("tile-opt demo.mlir --tile-to-ptx", TILE_OPT + [DEMO, "--tile-to-ptx"]),
    ]
    base = None
    print(f"{'command':44s} {'median s':>9s} {'vs import cutlass':>18s}")
    results = {}
    for name, cmd in rows:
        t = median_time(cmd)
        results[name] = t
        if "import cutlass" in name:
            base = t
        ratio = f"{t / base:.2f}x" if base else ""
        print(f"{name:44s} {t:9.3f} {ratio:>18s}")
    parse = results["tile-opt demo.mlir (parse, print)"]
    print(f"goal: tile-opt parse <= {GOAL:.2f} s: {'met' if parse <= GOAL else 'NOT met'} ({parse:.3f} s)")
    help_ratio = results["tile-opt --help"] / base
    print(f"goal: tile-opt --help <= {HELP_GOAL:.2f}x import cutlass: "
          f"{'met' if help_ratio <= HELP_GOAL else 'NOT met'} ({help_ratio:.2f}x)")


if __name__ == "__main__":
    main()
