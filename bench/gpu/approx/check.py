"""Check tile-sim's approximate-math models against the GPU over EVERY input: all 2^32 bit patterns of
each f32 form (all 2^32 upper words of each f64 form), all 2^16 of each 16-bit form and all 2^32 of each
packed x2 form. The model (python/tile_mlir/sim/approx_*.py) runs under cupy on the GPU, the hardware
by inline PTX (kernels.py); per form it prints the count of mismatches and the first differing inputs.

    python3 check.py [FORM_SUBSTRING ...] [--sim DIR]
"""
import importlib
import os
import sys
import time
import types
from pathlib import Path

import cupy as cp
import numpy as np

import kernels

args = sys.argv[1:]
sim = Path(__file__).resolve().parents[3] / "python" / "tile_mlir" / "sim"
if "--sim" in args:
    i = args.index("--sim")
    sim = Path(args[i + 1])
    del args[i:i + 2]
tables = None
if "--tables" in args:   # npz files of a measurement run (measure_trig.py) searched first
    i = args.index("--tables")
    tables = Path(args[i + 1])
    del args[i:i + 2]
pkg = types.ModuleType("simapprox")   # the model modules alone, without tile_mlir.sim's package
pkg.__path__ = [str(sim)]
sys.modules["simapprox"] = pkg
Tb = importlib.import_module("simapprox.approx_tables")
if tables is not None:
    Tb.SOURCES[:0] = sorted(tables.glob("trig_*.npz"))
A = importlib.import_module("simapprox.approx_math")
B = importlib.import_module("simapprox.approx_f64")
try:
    H = importlib.import_module("simapprox.approx_half")
except ImportError:
    H = None
try:
    S = importlib.import_module("simapprox.approx_trig")
except ImportError:
    S = None

R = kernels.Runner(cp)
CH = 1 << 27
NCH = int(os.environ.get("CHECK_CHUNKS", (1 << 32) // CH))   # fewer: a quick partial check


def f32_models():
    m = {}
    for nm, fn in [("ex2", A.ex2_f32), ("lg2", A.lg2_f32), ("rcp", A.rcp_f32), ("rsqrt", A.rsqrt_f32),
                   ("sqrt", A.sqrt_f32)]:
        for ftz in (False, True):
            m[f"{nm}.approx.{'ftz.' if ftz else ''}f32"] = (lambda f, z: lambda a: f(a, z, cp))(fn, ftz)
    if S is not None:
        for ftz in (False, True):
            m[f"sin.approx.{'ftz.' if ftz else ''}f32"] = (lambda z: lambda a: S.sin_f32(a, z, cp))(ftz)
            m[f"cos.approx.{'ftz.' if ftz else ''}f32"] = (lambda z: lambda a: S.cos_f32(a, z, cp))(ftz)
        m["tanh.approx.f32"] = lambda a: S.tanh_f32(a, cp)
    return m


def report(form, n, bad, first, t):
    ex = ", ".join(f"{x}: gpu {h} model {y}" for x, h, y in first[:6])
    print(f"{form:24s} inputs {n:>11d}  mismatches {bad:>10d}  ({t:.1f} s){'  first: ' + ex if ex else ''}",
          flush=True)


def sweep32(form, model, dtype=cp.uint32, shift=0):
    t0, bad, first = time.time(), 0, []
    for c in range(NCH):
        base = c * CH
        hw = R.sweep(form, base, CH, dtype)
        a = cp.arange(CH, dtype=cp.uint32) + cp.uint32(base)
        if shift:   # f64: the upper word swept, a lower word that varies
            a = (a.astype(cp.uint64) << 32) | ((a.astype(cp.uint64) * 0x9E3779B1) & 0xFFFFFFFF)
            hw = R.apply(form, a)
        y = model(a)
        m = hw != y
        nb = int(m.sum())
        if nb and len(first) < 6:
            for j in cp.asnumpy(cp.nonzero(m)[0][:6]):
                first.append((hex(int(a[j])), hex(int(hw[j])), hex(int(y[j]))))
        bad += nb
    report(form, NCH * CH, bad, first, time.time() - t0)
    return bad


want = args
def chosen(form):
    return not want or any(w in form for w in want)


total = {}
print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
for form, model in f32_models().items():
    if chosen(form):
        total[form] = sweep32(form, model)
for form, model in [("rcp.approx.ftz.f64", B.mufu_rcp64h), ("rsqrt.approx.ftz.f64", B.mufu_rsq64h),
                    ("rsqrt.approx.f64", B.rsqrt_f64)]:
    if chosen(form):
        total[form] = sweep32(form, lambda a, f=model: f(a, cp), cp.uint64, shift=32)
if H is not None:
    for form in kernels.H16:
        if chosen(form):
            t0 = time.time()
            a = cp.arange(1 << 16, dtype=cp.uint32).astype(cp.uint16)
            hw, y = R.sweep(form, 0, 1 << 16, cp.uint16), H.MODELS[form](a, cp)
            bad = int((hw != y).sum())
            first = [(hex(int(a[j])), hex(int(hw[j])), hex(int(y[j]))) for j in cp.asnumpy(cp.nonzero(hw != y)[0][:6])]
            report(form, 1 << 16, bad, first, time.time() - t0)
            total[form] = bad
    for form in kernels.X2:
        if chosen(form):
            total[form] = sweep32(form, lambda a, f=form: H.MODELS[f](a, cp))
print("forms checked:", len(total), " with mismatches:", sum(1 for v in total.values() if v))
