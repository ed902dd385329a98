"""The non-.ftz f32 forms on the inputs where ptxas's scaling acts (subnormal inputs; |x| > 2^126 for
rcp; x < -126 for ex2), exhaustively on the CPU: the models (f64 arithmetic, rounded once, so that
cupy's flushed f32 subnormals cannot touch them) against the IEEE f32 composition of ptxas's SASS
(FMUL/FADD round to nearest, subnormals kept; numpy) around the MUFU model.

    python3 cpu_wrappers.py
"""
import sys; from pathlib import Path; sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))
import numpy as np
from tile_mlir.sim import approx_math as A
np.seterr(all="ignore")
def f32(a): return a.view(np.float32)
def old_ex2(a):
    x = f32(a); lo = x < np.float32(-126)
    y = f32(A.mufu_ex2(np.where(lo, x * np.float32(0.5), x).astype(np.float32).view(np.uint32)))
    return np.where(lo, y * y, y).astype(np.float32).view(np.uint32)
def old_lo(mufu, post, add=False):
    def f(a):
        x = f32(a); lo = np.abs(x) < np.float32(2.0**-126)
        y = f32(mufu(np.where(lo, x * np.float32(2.0**24), x).astype(np.float32).view(np.uint32)))
        z = (y + np.float32(post)) if add else (y * np.float32(post))
        return np.where(lo, z, y).astype(np.float32).view(np.uint32)
    return f
def old_rcp(a):
    x = f32(a); ax = np.abs(x)
    sc = np.where(ax < np.float32(2.0**-126), np.float32(2.0**24), np.float32(1))
    sc = np.where(ax > np.float32(2.0**126), np.float32(0.25), sc).astype(np.float32)
    y = f32(A.mufu_rcp((x * sc).astype(np.float32).view(np.uint32)))
    return (sc * y).astype(np.float32).view(np.uint32)
den = np.concatenate([np.arange(0, 1 << 23, dtype=np.uint32), np.arange(0x80000000, 0x80800000, dtype=np.uint32)])
big = np.concatenate([np.arange(0x7E800000, 0x7F800001, dtype=np.uint32), np.arange(0xFE800000, 0xFF800001, dtype=np.uint32)])
neg = np.arange(0xC2FC0000, 0xC3200000, dtype=np.uint32)
cases = [("ex2.approx.f32", lambda a: A.ex2_f32(a, False), old_ex2, [neg, den, np.arange(0xC3200000, 0xFF800001, 4099, dtype=np.uint32)]),
         ("lg2.approx.f32", lambda a: A.lg2_f32(a, False), old_lo(A.mufu_lg2, -24.0, True), [den]),
         ("rsqrt.approx.f32", lambda a: A.rsqrt_f32(a, False), old_lo(A.mufu_rsq, 4096.0), [den]),
         ("sqrt.approx.f32", lambda a: A.sqrt_f32(a, False), old_lo(A.mufu_sqrt, 2.0**-12), [den]),
         ("rcp.approx.f32", lambda a: A.rcp_f32(a, False), old_rcp, [den, big])]
for name, new, old, sets in cases:
    n = bad = 0
    for s in sets:
        for c in range(0, s.size, 1 << 22):
            a = s[c:c + (1 << 22)]
            y0, y1 = new(a), old(a)
            nanboth = np.isnan(f32(y0)) & np.isnan(f32(y1)) & (y0 == y1)
            bad += int((y0 != y1).sum()); n += a.size
    print(f"{name}: {n} inputs on the scaled paths, new vs IEEE-f32 composition: {bad} differ", flush=True)
