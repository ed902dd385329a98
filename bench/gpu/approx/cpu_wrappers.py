"""The non-.ftz f32 forms on the inputs where ptxas's scaling acts (subnormal inputs; |x| > 2^126 for
rcp; x < -126 for ex2), exhaustively on the CPU: the models (f64 arithmetic, rounded once, so that
cupy's flushed f32 subnormals cannot touch them) against the IEEE f32 composition of ptxas's SASS
(FMUL/FADD round to nearest, subnormals kept: numpy) around the MUFU model.

    python3 cpu_wrappers.py
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))
from tile_mlir.sim import approx_math as A  # noqa: E402

np.seterr(all="ignore")
F32 = np.float32


def f32(a):
    return a.view(np.float32)


def ieee_ex2(a):     # FSETP x >= -126; @!p FMUL x, 0.5; MUFU.EX2; @!p FMUL y, y, y
    x = f32(a)
    lo = x < F32(-126)
    y = f32(A.mufu_ex2(np.where(lo, x * F32(0.5), x).astype(F32).view(np.uint32)))
    return np.where(lo, y * y, y).astype(F32).view(np.uint32)


def ieee_scaled(mufu, post, add=False):   # |x| < FLT_MIN: FMUL x, 2^24; MUFU; FMUL / FADD post
    def f(a):
        x = f32(a)
        lo = np.abs(x) < F32(2.0 ** -126)
        y = f32(mufu(np.where(lo, x * F32(2.0 ** 24), x).astype(F32).view(np.uint32)))
        z = (y + F32(post)) if add else (y * F32(post))
        return np.where(lo, z, y).astype(F32).view(np.uint32)
    return f


def ieee_rcp(a):     # s = 2^24 (subnormal), 1/4 (|x| > 2^126) or 1; MUFU.RCP(x * s) * s
    x = f32(a)
    ax = np.abs(x)
    sc = np.where(ax < F32(2.0 ** -126), F32(2.0 ** 24), F32(1))
    sc = np.where(ax > F32(2.0 ** 126), F32(0.25), sc).astype(F32)
    y = f32(A.mufu_rcp((x * sc).astype(F32).view(np.uint32)))
    return (sc * y).astype(F32).view(np.uint32)


def span(lo, hi, step=1):
    return np.arange(lo, hi, step, dtype=np.uint32)


SUB = np.concatenate([span(0, 1 << 23), span(0x80000000, 0x80800000)])
BIG = np.concatenate([span(0x7E800000, 0x7F800001), span(0xFE800000, 0xFF800001)])
CASES = [
    ("ex2.approx.f32", lambda a: A.ex2_f32(a, False), ieee_ex2,
     [span(0xC2FC0000, 0xC3200000), SUB, span(0xC3200000, 0xFF800001, 4099)]),
    ("lg2.approx.f32", lambda a: A.lg2_f32(a, False), ieee_scaled(A.mufu_lg2, -24.0, True), [SUB]),
    ("rsqrt.approx.f32", lambda a: A.rsqrt_f32(a, False), ieee_scaled(A.mufu_rsq, 4096.0), [SUB]),
    ("sqrt.approx.f32", lambda a: A.sqrt_f32(a, False), ieee_scaled(A.mufu_sqrt, 2.0 ** -12), [SUB]),
    ("rcp.approx.f32", lambda a: A.rcp_f32(a, False), ieee_rcp, [SUB, BIG]),
]

for name, model, ieee, sets in CASES:
    n = bad = 0
    for s in sets:
        for c in range(0, s.size, 1 << 22):
            a = s[c:c + (1 << 22)]
            bad += int((model(a) != ieee(a)).sum())
            n += a.size
    print(f"{name}: {n} inputs on the scaled paths, model vs IEEE-f32 composition: {bad} differ", flush=True)
