"""Measure sin/cos/tanh .approx.f32 over all 2^32 inputs (second measurement, after measure.py):

* sin, cos: x is first multiplied by the f32 1/(2 pi) rounding towards zero (ptxas's FMUL.RZ), r;
  hypothesis: the unit uses |r| in fixed point with 25 fraction bits (truncated), so the output is a
  function of (sign of r, k = that fixed point mod 2^25). Tables over k are built from every input
  (separately for r >= 0 and r < 0), and every input whose output differs from the value already in
  its cell is counted (0 = the hypothesis holds over all 2^32 inputs).
* tanh: the change points of the output over the positive inputs >= 2^-8 (below, tanh(x) = x is
  counted over all of them); odd symmetry was counted by measure.py.

    python3 measure_trig.py OUTDIR
"""
import lzma
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import cupy as cp
import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")
SRC = r'''
typedef unsigned long long u64;
__device__ __forceinline__ unsigned phase(unsigned xb, unsigned* neg) {
  float r = __fmul_rz(__uint_as_float(xb), __uint_as_float(0x3e22f983u));
  unsigned rb = __float_as_uint(r); *neg = rb >> 31;
  int ex = (int)((rb >> 23) & 0xff);
  if (ex == 0) return 0;
  u64 mant = (rb & 0x7fffffu) | 0x800000u;
  int sh = ex - 127 + 2;
  u64 fx = sh >= 0 ? (sh < 40 ? mant << sh : 0ull) : (-sh < 64 ? mant >> -sh : 0ull);
  return (unsigned)(fx & 0x1ffffffu);
}
__device__ __forceinline__ void sc(unsigned xb, unsigned* s, unsigned* c) {
  float x = __uint_as_float(xb), ys, yc;
  asm volatile("sin.approx.ftz.f32 %0, %1;" : "=f"(ys) : "f"(x));
  asm volatile("cos.approx.ftz.f32 %0, %1;" : "=f"(yc) : "f"(x));
  *s = __float_as_uint(ys); *c = __float_as_uint(yc);
}
extern "C" __global__ void build(unsigned base, u64 n, unsigned* tab, u64* conf) {
  // tab: 4 tables of 2^25 words: sin r>=0, cos r>=0, sin r<0, cos r<0
  u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; if (i >= n) return;
  unsigned xb = base + (unsigned)i; if (((xb >> 23) & 0xff) == 0xff) return;
  unsigned neg, s, c; unsigned k = phase(xb, &neg); sc(xb, &s, &c);
  unsigned* ts = tab + (neg ? 2u : 0u) * (1u << 25); unsigned* tc = ts + (1u << 25);
  unsigned o = atomicCAS(ts + k, 0xffffffffu, s); if (o != 0xffffffffu && o != s) atomicAdd(conf + 2 * neg, 1ull);
  o = atomicCAS(tc + k, 0xffffffffu, c); if (o != 0xffffffffu && o != c) atomicAdd(conf + 2 * neg + 1, 1ull);
}
extern "C" __global__ void specials(unsigned* in, unsigned* out, int n) {
  int i = threadIdx.x; if (i < n) sc(in[i], out + 2 * i, out + 2 * i + 1);
}
extern "C" __global__ void tanh_sweep(unsigned base, u64 n, unsigned* out) {
  u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; if (i >= n) return;
  float y; asm volatile("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(__uint_as_float(base + (unsigned)i)));
  out[i] = __float_as_uint(y);
}
'''
mod = cp.RawModule(code=SRC)
t0 = time.time()
log = open(os.path.join(OUT, "measure-trig-log.txt"), "w")


def say(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True)
    log.write(s + "\n")
    log.flush()


tab = cp.full(4 << 25, 0xFFFFFFFF, dtype=cp.uint32)
conf = cp.zeros(4, dtype=cp.uint64)
CH = 1 << 30
for c in range(4):
    mod.get_function("build")(((CH + 255) // 256,), (256,), (cp.uint32(c * CH), cp.uint64(CH), tab, conf))
cp.cuda.Device().synchronize()
say("sin/cos: inputs whose output differs from their cell's (sin+, cos+, sin-, cos-):", cp.asnumpy(conf).tolist())
T = tab.reshape(4, 1 << 25)
valid = T != 0xFFFFFFFF
say("cells reached (sin+, cos+, sin-, cos-):", [int(v.sum()) for v in valid])
both = valid[0] & valid[2]
say("sin-(k) == sin+(k) ^ sign:", int(((T[2] == (T[0] ^ cp.uint32(0x80000000))) & both).sum()), "of", int(both.sum()))
say("cos-(k) == cos+(k):", int(((T[3] == T[1]) & both).sum()), "of", int(both.sum()))
sp = cp.asarray(np.array([0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001], np.uint32))
so = cp.zeros(10, dtype=cp.uint32)
mod.get_function("specials")((1,), (32,), (sp, so, cp.int32(5)))
say("sin, cos of +inf -inf +qnan -qnan snan:", [hex(int(v)) for v in cp.asnumpy(so)])
say("sin/cos done", round(time.time() - t0, 1), "s")

# tanh: identity below 2^-8, change points above
ident_bad, cps, vals, prev = 0, [], [], None
TB = 0x3B800000
CH = 1 << 28
out = cp.empty(CH, dtype=cp.uint32)
for c in range(8):
    base = c * CH
    mod.get_function("tanh_sweep")(((CH + 255) // 256,), (256,), (cp.uint32(base), cp.uint64(CH), out))
    a = cp.arange(CH, dtype=cp.uint32) + cp.uint32(base)
    ident_bad += int(((out != a) & (a < TB)).sum())
    sel = (a >= TB) & (a <= 0x7F800000)
    ch = cp.nonzero(sel[1:] & (out[1:] != out[:-1]))[0] + 1
    if base <= TB < base + CH:
        ch = cp.concatenate([cp.array([TB - base], dtype=ch.dtype), ch])
    if prev is not None and base <= 0x7F800000 and int(out[0]) != prev:
        ch = cp.concatenate([cp.zeros(1, dtype=ch.dtype), ch])
    cps.append(cp.asnumpy((ch + base).astype(cp.uint32)))
    vals.append(cp.asnumpy(out[ch]))
    prev = int(out[-1])
cps, vals = np.concatenate(cps), np.concatenate(vals)
say("tanh: x < 2^-8 with tanh(x) != x:", ident_bad, "; change points over [2^-8, inf]:", cps.size)


def enc(v):
    d = np.diff(v.astype(np.int64), prepend=np.int64(0))
    small = (d >= -127) & (d <= 127)
    idx = np.nonzero(~small)[0]
    return (lzma.compress(np.where(small, d, -128).astype(np.int8).tobytes()),
            lzma.compress(np.diff(idx, prepend=0).astype(np.int32).tobytes()),
            lzma.compress(d[idx].astype(np.int64).tobytes()))


Th = cp.asnumpy(T)
Vh = cp.asnumpy(valid)
jobs = {}
TN = ["sin_pos", "cos_pos", "sin_neg", "cos_neg"]
for j, nm in enumerate(TN):
    idx = np.where(Vh[j], np.arange(1 << 25), 0)
    idx = np.maximum.accumulate(idx)
    jobs[nm] = Th[j][idx]
jobs["tanh_cp"], jobs["tanh_val"] = cps, vals.astype(np.uint32)
with ThreadPoolExecutor(8) as ex:
    encs = dict(zip(jobs, ex.map(enc, jobs.values())))
masks = {nm: np.frombuffer(lzma.compress(np.packbits(Vh[j]).tobytes()), np.uint8)
         for j, nm in enumerate(TN)}
for fn, names in {"trig_sinp.npz": ["sin_pos"], "trig_cosp.npz": ["cos_pos"], "trig_sinn.npz": ["sin_neg"],
                  "trig_cosn.npz": ["cos_neg"], "trig_tanh.npz": ["tanh_cp", "tanh_val"]}.items():
    arrs = {}
    for nm in names:
        for part, b in zip("div", encs[nm]):
            arrs[f"{nm}.{part}"] = np.frombuffer(b, np.uint8)
        arrs[f"{nm}.dtype"] = np.frombuffer(np.dtype(np.uint32).str.encode(), np.uint8)
        if nm in masks:
            arrs[f"{nm}.mask"] = masks[nm]
    p = os.path.join(OUT, fn)
    np.savez(p, **arrs)
    say(fn, os.path.getsize(p) >> 10, "KiB")
say("total", round(time.time() - t0, 1), "s")
