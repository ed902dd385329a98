"""GEMM TFLOP/s on the GPU: our Hopper twin (examples/gemm_blockscaled.py, target sm_90a) beside cuBLAS in
the same run, as a ratio.

    PYTHONPATH=python python3 bench/gemm.py [--sizes 2048 4096 8192] [--dtypes bf16 e4m3]
                                            [--artifacts bench/gpu/gemm] [--reps 20] [--warmup 5]

Runs on a GPU machine with torch (no MLIR there): our kernels are the Artifacts that
bench/gpu/make_gemm_artifacts.py compiled on the development machine (gemm_<dtype>_<M>x<N>x<K>.json),
launched through tile_mlir.jit(artifact, backend="gpu") on torch CUDA tensors. cuBLAS is torch.matmul
(bf16 x bf16 -> bf16) and torch._scaled_mm (e4m3 x e4m3 -> bf16, unit scales). Both compute the "TN"
product D[M, N] = A[M, K] . B[N, K]^T with bf16 D.

Method: each kernel is first checked against cuBLAS's D (relative Frobenius error, printed), then timed
with CUDA events: --warmup launches, then --reps launches each between its own pair of events, median.
TFLOP/s = 2 M N K / median time. Random inputs U(-1, 1) in the operand type.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
DEFAULT_ARTIFACTS = os.path.join(HERE, "gpu", "gemm")


def _cublas(dtype: str, a, b):
    import torch
    if dtype == "bf16":
        return lambda: torch.matmul(a, b.t())
    one = torch.ones((), device="cuda", dtype=torch.float32)
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


def _ours(dtype: str, size: int, artifacts: str, a, b):
    """(launch callable, D tensor) for our kernel, or (None, reason)."""
    import torch
    path = os.path.join(artifacts, f"gemm_{dtype}_{size}x{size}x{size}.json")
    if not os.path.exists(path):
        return None, f"no artifact {os.path.relpath(path)}"
    from tile_mlir.artifact import Artifact
    from tile_mlir.runtime import jit
    kernel = jit(Artifact.load(path), backend="gpu")
    d = torch.zeros((size, size), device="cuda", dtype=torch.bfloat16)
    bits = torch.uint16 if dtype == "bf16" else torch.uint8  # (bit patterns: DLPack has no fp8, numpy no bf16)
    args = {"A": a.view(bits), "B": b.view(bits), "D": d.view(torch.uint16)}
    ordered = [args[p.name] for p in kernel.artifact.params]
    return (lambda: kernel.launch(*ordered)), d


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096, 8192])
    p.add_argument("--dtypes", nargs="+", default=["bf16", "e4m3"], choices=["bf16", "e4m3"])
    p.add_argument("--artifacts", default=DEFAULT_ARTIFACTS)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    args = p.parse_args(argv)

    import torch
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'dtype':<6}{'M=N=K':>7}{'cuBLAS TF/s':>13}{'ours TF/s':>11}{'ours/cuBLAS':>13}{'rel err':>10}")
    failed = False
    for dtype in args.dtypes:
        tdtype = torch.bfloat16 if dtype == "bf16" else torch.float8_e4m3fn
        for size in args.sizes:
            gen = torch.Generator(device="cuda").manual_seed(size)
            a = (torch.rand((size, size), device="cuda", generator=gen) * 2 - 1).to(tdtype)
            b = (torch.rand((size, size), device="cuda", generator=gen) * 2 - 1).to(tdtype)
            flop = 2.0 * size ** 3
            cublas = _cublas(dtype, a, b)
            ref = cublas().float()
            t_ref = _time(cublas, args.warmup, args.reps)
            launch, d = _ours(dtype, size, args.artifacts, a, b)
            if launch is None:
                print(f"{dtype:<6}{size:>7}{flop / t_ref * 1e-12:>13.1f}{'-':>11}{'-':>13}{'-':>10}   ({d})")
                continue
            launch()
            torch.cuda.synchronize()
            err = (torch.linalg.norm(d.float() - ref) / torch.linalg.norm(ref)).item()
            ok = err < 1e-2
            failed |= not ok
            t_ours = _time(launch, args.warmup, args.reps)
            print(f"{dtype:<6}{size:>7}{flop / t_ref * 1e-12:>13.1f}{flop / t_ours * 1e-12:>11.1f}"
                  f"{t_ref / t_ours:>13.2f}{err:>10.1e}{'' if ok else '   WRONG'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
