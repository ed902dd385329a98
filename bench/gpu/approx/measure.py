"""Measure the .approx instructions on the GPU over each function's reduced domain (the data that
tile-sim's models in python/tile_mlir/sim/approx_*.py are built from). Writes to $OUT (or argv[1]):
lzma-compressed first differences of each table, random samples of every form, 16-bit tables.

Re-runnable: python3 measure.py OUTDIR
"""
import lzma
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import cupy as cp
import numpy as np

import kernels

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")
R = kernels.Runner(cp)
t0 = time.time()
log = open(os.path.join(OUT, "measure-log.txt"), "w")


def say(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True)
    log.write(s + "\n")
    log.flush()


def enc(bits):
    """uint32 array -> (lzma int8 first differences, escape indices, escape values)."""
    d = np.diff(bits.astype(np.int64), prepend=np.int64(0))
    small = (d >= -127) & (d <= 127)
    d8 = np.where(small, d, -128).astype(np.int8)
    idx = np.nonzero(~small)[0].astype(np.int64)
    return lzma.compress(d8.tobytes(), preset=6), idx, d[idx]


tables = {}  # name -> (form, base bits, count, dtype)
def sweep(name, form, base, n, dtype=cp.uint32):
    tables[name] = cp.asnumpy(R.sweep(form, base, n, dtype))

# f32 cores over their reduced domains (bit patterns base .. base+n-1)
sweep("rcp_1_2", "rcp.approx.ftz.f32", 0x3f800000, 1 << 23)
sweep("rsq_1_4", "rsqrt.approx.ftz.f32", 0x3f800000, 1 << 24)
sweep("sqrt_1_4", "sqrt.approx.ftz.f32", 0x3f800000, 1 << 24)
sweep("lg2_1_2", "lg2.approx.ftz.f32", 0x3f800000, 1 << 23)
sweep("lg2_h_1", "lg2.approx.ftz.f32", 0x3f000000, 1 << 23)
sweep("lg2_2_4", "lg2.approx.ftz.f32", 0x40000000, 1 << 23)
# ex2 at every multiple of 2^-24 in [0, 1) and (-1, 0]
k = cp.arange(1 << 24, dtype=cp.float32) * cp.float32(2.0 ** -24)
tables["ex2_pos"] = cp.asnumpy(R.apply("ex2.approx.ftz.f32", k.view(cp.uint32)))
tables["ex2_neg"] = cp.asnumpy(R.apply("ex2.approx.ftz.f32", (-k).view(cp.uint32)))
del k
# sin/cos: every float of [1, 2) as x, and every r of [0.5, 1) in revolutions
sweep("sin_x_1_2", "sin.approx.ftz.f32", 0x3f800000, 1 << 23)
sweep("cos_x_1_2", "cos.approx.ftz.f32", 0x3f800000, 1 << 23)
sweep("tanh_1_2", "tanh.approx.f32", 0x3f800000, 1 << 23)
sweep("tanh_s", "tanh.approx.f32", 0x3d800000, 1 << 23)
n = 1 << 23
xo, so, co = (cp.empty(n, dtype=cp.uint32) for _ in range(3))
R.mod.get_function("k_sincos_rev")(((n + 255) // 256,), (256,), (xo, so, co, cp.uint64(n)))
tables["rev_x"], tables["rev_sin"], tables["rev_cos"] = cp.asnumpy(xo), cp.asnumpy(so), cp.asnumpy(co)
say("rev: r of [0.5,1) without an x:", int((xo == 0).sum()))
del xo, so, co
# f64 cores: upper words of [1, 2) / [1, 4) (lower word 0)
t = R.sweep("rcp.approx.ftz.f64", 0x3ff00000, 1 << 20, cp.uint64)
say("rcp64 lower words nonzero:", int(((t & 0xffffffff) != 0).sum()))
tables["rcp64_1_2"] = cp.asnumpy((t >> 32).astype(cp.uint32))
t = R.sweep("rsqrt.approx.ftz.f64", 0x3ff00000, 1 << 21, cp.uint64)
say("rsq64 lower words nonzero:", int(((t & 0xffffffff) != 0).sum()))
tables["rsq64_1_4"] = cp.asnumpy((t >> 32).astype(cp.uint32))
say("sweeps done", round(time.time() - t0, 1), "s")

# 16-bit forms: all 2^16 inputs; the x2 forms checked lane by lane against them over all 2^32
h16 = {}
for form in kernels.H16:
    h16[form] = R.sweep(form, 0, 1 << 16, cp.uint16)
for form, scalar in kernels.X2.items():
    T = h16[scalar].astype(cp.uint32)
    bad, first = 0, []
    for c in range(16):
        base = c << 28
        y = R.sweep(form, base, 1 << 28, cp.uint32)
        a = cp.arange(1 << 28, dtype=cp.uint32) + cp.uint32(base)
        p = T[a & 0xffff] | (T[a >> 16] << 16)
        m = y != p
        nb = int(m.sum())
        if nb and len(first) < 8:
            w = cp.nonzero(m)[0][:8]
            first += [(hex(int(a[j])), hex(int(y[j])), hex(int(p[j]))) for j in w]
        bad += nb
        del y, a, p, m
    say(f"{form}: all 2^32 inputs vs the scalar form per lane: {bad} mismatches", first[:8])

# tanh.f32: sign symmetry over all 2^31, and the change points of the output over +0 .. +inf
cps, vals, asym, ncp, prev = [], [], 0, 0, None
for c in range(8):
    base = c << 28
    y = R.sweep("tanh.approx.f32", base, 1 << 28, cp.uint32)
    yn = R.sweep("tanh.approx.f32", base | 0x80000000, 1 << 28, cp.uint32)
    a = cp.arange(1 << 28, dtype=cp.uint32) + cp.uint32(base)
    asym += int(((yn != (y ^ cp.uint32(0x80000000))) & (a <= 0x7f800000)).sum())
    ch = cp.nonzero(y[1:] != y[:-1])[0] + 1
    if prev is not None and int(y[0]) != prev:
        ch = cp.concatenate([cp.zeros(1, dtype=ch.dtype), ch])
    ncp += int(ch.size)
    if ncp < (1 << 24):
        cps.append(cp.asnumpy((ch + base).astype(cp.uint32)))
        vals.append(cp.asnumpy(y[ch]))
    prev = int(y[-1])
    del y, yn, a, ch
say("tanh.f32: -x != -tanh(x) over finite/inf x:", asym, "; change points over [+0, 2^31):", ncp)
tanh0 = int(R.sweep("tanh.approx.f32", 0, 1, cp.uint32)[0])
say("tanh(+0) =", hex(tanh0))

# random samples of every form: inputs (i * 0x9E3779B1 + 0x7F4A7C15) mod 2^32
NS = 1 << 18
xs = (cp.arange(NS, dtype=cp.uint64) * 0x9E3779B1 + 0x7F4A7C15).astype(cp.uint32)
rnd = {}
for form in kernels.F32:
    rnd[form] = cp.asnumpy(R.apply(form, xs))
xs64 = (xs.astype(cp.uint64) << 32) | ((cp.arange(NS, dtype=cp.uint64) * 0x2545F491 + 12345) & 0xffffffff)
for form in kernels.F64:
    rnd[form] = cp.asnumpy(R.apply(form, xs64))
    if form != "rsqrt.approx.f64":  # does the lower input word matter?
        y0 = R.apply(form, xs64 & ~cp.uint64(0xffffffff))
        say(form, "outputs changed by the lower input word:", int((y0 != R.apply(form, xs64)).sum()), "of", NS)
say("samples done", round(time.time() - t0, 1), "s")

# write: compressed tables in parallel (lzma releases the GIL)
with ThreadPoolExecutor(12) as ex:
    encs = dict(zip(tables, ex.map(enc, tables.values())))
groups = {"t_rcp_rsq.npz": ["rcp_1_2", "rsq_1_4", "rcp64_1_2", "rsq64_1_4"],
          "t_sqrt_lg2.npz": ["sqrt_1_4", "lg2_1_2", "lg2_h_1", "lg2_2_4"],
          "t_ex2.npz": ["ex2_pos", "ex2_neg"],
          "t_sin.npz": ["sin_x_1_2", "cos_x_1_2", "rev_x", "rev_sin", "rev_cos", "tanh_1_2", "tanh_s"]}
for fn, names in groups.items():
    arrs = {}
    for nm in names:
        z, idx, val = encs[nm]
        arrs[nm + "__z"] = np.frombuffer(z, dtype=np.uint8)
        arrs[nm + "__ei"], arrs[nm + "__ev"] = idx, val
    np.savez(os.path.join(OUT, fn), **arrs)
    say(fn, os.path.getsize(os.path.join(OUT, fn)) >> 10, "KiB")
misc = {"h16__" + f: cp.asnumpy(v) for f, v in h16.items()}
misc["tanh_cp"] = np.concatenate(cps) if cps else np.zeros(0, np.uint32)
misc["tanh_val"] = np.concatenate(vals) if vals else np.zeros(0, np.uint32)
misc["tanh0"] = np.array([tanh0], dtype=np.uint32)
np.savez_compressed(os.path.join(OUT, "t_misc.npz"), **misc)
np.savez_compressed(os.path.join(OUT, "rand.npz"), **{f.replace(".", "_"): v for f, v in rnd.items() if f in kernels.F32})
np.savez_compressed(os.path.join(OUT, "rand64.npz"), xs64=cp.asnumpy(xs64),
                    **{f.replace(".", "_"): v for f, v in rnd.items() if f in kernels.F64})
for fn in ("t_misc.npz", "rand.npz", "rand64.npz"):
    say(fn, os.path.getsize(os.path.join(OUT, fn)) >> 10, "KiB")
say("total", round(time.time() - t0, 1), "s")
