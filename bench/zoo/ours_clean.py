"""No false reports on our kernels: explore each example kernel (examples/: the demo, the two
tensor-memory fills, the Hopper persistent GEMM (cooperative and ping-pong), the block-scaled GEMM
on both targets, the persistent Blackwell GEMM, the dense Blackwell GEMM (one CTA; a CTA pair with
split-K), the library GEMM (in-kernel split-K, stream-K), the Blackwell and Hopper attention
kernels) at a small size through ``jit(...).explore(N)`` (a library call: its launch's run_ptx)
and print the schedules run, the rate and whether any failed (tile-sim).

    PYTHONPATH=python python bench/zoo/ours_clean.py [--n N] [--seconds S] [--seed S]
                                                     [--only NAME..] [--export DIR]

``--export DIR`` explores nothing: it writes each kernel's launch as tile-sim runs it (PTX,
kernel, arguments with their tensor maps, launch shape) to DIR/NAME.pkl, for bench/zoo/farm.py's
``ours/NAME`` jobs on a machine without the MLIR bindings.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import tile_mlir  # noqa: E402


def _demo():
    a = (np.arange(512, dtype=np.uint32) * 37 % 251).astype(np.uint8).reshape(32, 16)
    return tile_mlir.jit(os.path.join(ROOT, "examples", "demo.mlir"), backend="sim"), \
        (a, np.zeros((128, 16), np.uint8))


def _hopper_persistent(schedule):
    def make():
        from gemm_persistent import DENSE, PersistentConfig, build
        from gemm_reference import random_dense
        tile_n = 128 if schedule == "pingpong" else 256
        cfg = PersistentConfig("bf16", 128, 512, 128, ctas=1, schedule=schedule, tile_n=tile_n)
        a, bt = random_dense(DENSE["bf16"][2], cfg.m, cfg.n, cfg.k, seed=0)
        k = tile_mlir.jit(build(cfg), arch="sm_90a", backend="sim")
        return k, (a, bt, np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16))
    return make


def _blockscaled(target, dtype):
    def make():
        from gemm_blockscaled import GemmConfig, build, operands
        cfg = GemmConfig(target, dtype, 128, 256 if target == "sm_90a" else 128, 128, stages=2)
        ops = operands(cfg, 0)
        k = tile_mlir.jit(build(cfg), arch=cfg.target, backend="sim")
        return k, tuple(ops[n] for n in ("A", "B", "SFA", "SFB") if n in ops) + \
            (np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16),)
    return make


def _bw_persistent():
    from gemm_persistent_blackwell import PersistentBlackwellConfig, build, operands
    cfg = PersistentBlackwellConfig("mxfp8", 128, 384, 128, ctas=1, stages=2, tile_n=128)
    ops = operands(cfg, 0)
    k = tile_mlir.jit(build(cfg), arch="sm_100a", backend="sim")
    return k, tuple(ops[n] for n in ("A", "B", "SFA", "SFB")) + \
        (np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16),)


def _fill_tmem(name, shape_in, shape_out):
    def make():
        rng = np.random.default_rng(0)
        a = rng.integers(0, 256, shape_in, dtype=np.uint8)
        k = tile_mlir.jit(os.path.join(ROOT, "examples", f"{name}.mlir"), arch="sm_100a",
                          backend="sim")
        return k, (a, np.zeros(shape_out, np.uint8))
    return make


def _dense_blackwell(cta_group, split_k):
    def make():
        import dataclasses

        import gemm_dense_blackwell as gdb
        from tile_mlir.runtime.jit import JitKernel
        cfg = gdb.BlackwellConfig("bf16", cta_group=cta_group, stages=2, split_k=split_k)
        pb = gdb.DenseProblem(cfg, 128 * cta_group, 384 if split_k == 1 else 136, 160,
                              ctas=cta_group * split_k)
        art = tile_mlir.compile(gdb.build(cfg), arch="sm_100a")
        k = JitKernel(dataclasses.replace(art, grid=(pb.grid[0], 1, 1)), "sim")
        a, b = gdb.operands(pb, 0)
        out = np.zeros((pb.m, pb.n), np.float32 if split_k > 1 else ml_dtypes.bfloat16)
        return k, (a, b, out, pb.m, pb.n, pb.k)
    return make


def _attention_sm100():
    """Two units (query tiles) walked by one CTA, causal, the per-tile barriers' phases running on
    across them (as test_attention_sm100's exploration)."""
    import attention_sm100 as att
    cfg = att.AttentionConfig("bf16", heads=1, seq_q=256, seq_k=256, head_dim=64, causal=True,
                              ctas=1)
    args = att.operands(cfg)
    o = np.zeros((1, cfg.seq_q, cfg.head_dim), args["Q"].dtype)
    k = tile_mlir.jit(att.build(cfg), arch="sm_100a", backend="sim")
    return k, (args["Q"], args["K"], args["V"], o)


def _attention_sm90():
    """The Hopper twin at d 64 with three consumer warpgroups (192 query rows), causal: one CTA
    walking both query tiles."""
    import attention_sm90 as att
    cfg = att.AttnConfig("bf16", 1, 1, 384, 384, 64, causal=True, consumers=3, ctas=1)
    q, kk, v = att.random_inputs(cfg, 0)
    k = tile_mlir.jit(att.build(cfg), arch="sm_90a", backend="sim")
    return k, (q, kk, v, np.zeros(q.shape, q.dtype))


def _gemm_library(split_k, stream_k):
    """tile_mlir.gemm (the library examples/gemm.py calls) at 70 x 72 x 300 bf16 on 3 SMs, its K
    split in the kernel (the fix-up's flags and partial tiles) or walked stream-K: returns the call
    (its launch is explored through run_ptx, which the library's runner calls)."""
    def make():
        import dataclasses

        from gemm_reference import random_dense
        from tile_mlir.gemm import GemmConfig
        cfg = tile_mlir.gemm.choose(70, 72, 300, "bf16", 3)
        cfg = GemmConfig(**{**dataclasses.asdict(cfg), "split_k": 1 if stream_k else split_k,
                            "stages": 0, "stream_k": stream_k, "cluster_m": 1})
        a, b = random_dense(ml_dtypes.bfloat16, 70, 72, 300, seed=0)
        return lambda: tile_mlir.gemm(a, b, config=cfg, backend="sim", sms=3)
    return make


KERNELS = {
    "fill_tmem": _fill_tmem("fill_tmem", (32, 2048), (128, 2048)),
    "demo": _demo,
    "gemm_persistent-cooperative": _hopper_persistent("cooperative"),
    "gemm_persistent-pingpong": _hopper_persistent("pingpong"),
    "gemm_blockscaled-sm_90a-bf16": _blockscaled("sm_90a", "bf16"),
    "gemm_blockscaled-sm_100a-mxfp8": _blockscaled("sm_100a", "mxfp8"),
    "gemm_persistent_blackwell-mxfp8": _bw_persistent,
    "gemm_dense_blackwell-cg1": _dense_blackwell(1, 1),
    "gemm_dense_blackwell-cg2-split2": _dense_blackwell(2, 2),
    "attention_sm100-bf16-d64-causal": _attention_sm100,
    "attention_sm90-bf16-d64-causal-3wg": _attention_sm90,
    "fp6_to_tmem": _fill_tmem("fp6_to_tmem", (32, 96), (128, 128)),
    "gemm_library-split-k-2": _gemm_library(2, False),
    "gemm_library-stream-k": _gemm_library(1, True),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=None, help="per kernel")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--export")
    o = ap.parse_args()
    if o.export:
        return export(o)
    for name, make in KERNELS.items():
        if o.only and name not in o.only:
            continue
        try:
            made = make()
            t = time.perf_counter()
            if callable(made):  # a library call: its launch's run_ptx explores
                r = _explored(made, explore=o.n, seed=o.seed, explore_seconds=o.seconds)
            else:
                k, args = made
                r = k.explore(o.n, seed=o.seed, seconds=o.seconds)(*args).sim
        except Exception as e:  # the kernel cannot be built or its default schedule fails
            print(f"{name}: ERROR {str(e).splitlines()[0][:200]}", flush=True)
            continue
        dt = time.perf_counter() - t
        verdict = "clean" if not r.found else f"FAILS at {r.schedules}: {r.failure}"
        print(f"{name}: {r.schedules} schedules, {r.counts}, {dt:.1f} s "
              f"({r.schedules / dt:.2f}/s): {verdict}", flush=True)


class _Captured(Exception):
    pass


@contextlib.contextmanager
def _run_ptx_as(fn):
    """tile_mlir.sim.run_ptx replaced by ``fn(real_run_ptx, *args, **kw)`` (the library and the
    jit runner call it through the module) for the block's duration."""
    import tile_mlir.sim as sim
    real = sim.run_ptx
    sim.run_ptx = lambda *a, **kw: fn(real, *a, **kw)
    try:
        yield
    finally:
        sim.run_ptx = real


def _explored(call, **explore):
    """The ExploreResult of the one launch ``call()`` makes through tile_mlir.sim.run_ptx."""
    out = []

    def run(real, *a, **kw):
        out.append(real(*a, **{**kw, **explore}))
        return out[-1]
    with _run_ptx_as(run):
        try:
            call()
        except Exception:  # (the library reads a SimResult back; the ExploreResult is the answer)
            if not out:
                raise
    return out[0]


def export(o):
    """Each kernel's run_ptx call, pickled (one pickle: a tensor map keeps the very array of its
    argument, which tile-sim binds it to) instead of run."""
    import pickle

    def capture(real, ptx, kernel, args, **kw):
        for k in ("explore", "seed", "check", "workers", "explore_seconds", "progress"):
            kw.pop(k, None)
        raise _Captured((ptx, kernel, args, kw))
    os.makedirs(o.export, exist_ok=True)
    with _run_ptx_as(capture):
        for name, make in KERNELS.items():
            if o.only and name not in o.only:
                continue
            made = make()
            try:
                made() if callable(made) else made[0].explore(1)(*made[1])
            except _Captured as c:
                with open(os.path.join(o.export, f"{name}.pkl"), "wb") as f:
                    pickle.dump(c.args[0], f)
                print(f"{name}: {c.args[0][1]} -> {o.export}/{name}.pkl", flush=True)


if __name__ == "__main__":
    main()
