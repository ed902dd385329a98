"""The differential check of sim/mma_fast.py against MMA-Sim: random operands with specials, per
kind; used by test_mma_fast.py (small) and bench/sim.py --diff (at least 1M D elements per kind)."""

from __future__ import annotations

import numpy as np

from tile_mlir.sim import mma_numerics as mn

#: name -> (instruction, dtype, atype, btype, k, block-scale (block, stype) or None)
KINDS = {
    "wgmma.f32.bf16": ("wgmma", "f32", "bf16", "bf16", 16, None),
    "wgmma.f32.f16": ("wgmma", "f32", "f16", "f16", 16, None),
    "wgmma.f16.f16": ("wgmma", "f16", "f16", "f16", 16, None),
    "wgmma.f32.tf32": ("wgmma", "f32", "tf32", "tf32", 8, None),
    "wgmma.f32.e4m3": ("wgmma", "f32", "e4m3", "e4m3", 32, None),
    "wgmma.f32.e5m2.e4m3": ("wgmma", "f32", "e5m2", "e4m3", 32, None),
    "wgmma.f16.e4m3": ("wgmma", "f16", "e4m3", "e4m3", 32, None),
    "tcgen05.tf32": ("tcgen05", "f32", "tf32", "tf32", 8, None),
    "tcgen05.f16.f32.bf16": ("tcgen05", "f32", "bf16", "bf16", 16, None),
    "tcgen05.f16.f16.f16": ("tcgen05", "f16", "f16", "f16", 16, None),
    "tcgen05.f8f6f4.e4m3": ("tcgen05", "f32", "e4m3", "e4m3", 32, None),
    "tcgen05.f8f6f4.e2m3.e3m2": ("tcgen05", "f32", "e2m3", "e3m2", 32, None),
    "tcgen05.f8f6f4.f16.e2m1.e5m2": ("tcgen05", "f16", "e2m1", "e5m2", 32, None),
    "tcgen05.mxf8f6f4.e4m3": ("tcgen05", "f32", "e4m3", "e4m3", 32, (32, "ue8m0")),
    "tcgen05.mxf8f6f4.e5m2.e2m1": ("tcgen05", "f32", "e5m2", "e2m1", 32, (32, "ue8m0")),
    "tcgen05.mxf4": ("tcgen05", "f32", "e2m1x2", "e2m1x2", 64, (32, "ue8m0")),
    "tcgen05.mxf4nvf4.ue4m3": ("tcgen05", "f32", "e2m1x2", "e2m1x2", 64, (16, "ue4m3")),
    "tcgen05.mxf4nvf4.ue8m0": ("tcgen05", "f32", "e2m1x2", "e2m1x2", 64, (16, "ue8m0")),
}

_BITS = {"f32": 32, "tf32": 32, "f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "e2m1x2": 4}
#: specials per type: NaN, infinities, zeros, extremes and subnormals
_SPECIAL = {
    "f32": [0x7FC00000, 0x7F800000, 0xFF800000, 0, 0x80000000, 1, 0x807FFFFF, 0x7F7FFFFF,
            0x00800000],
    "f16": [0x7E00, 0x7C00, 0xFC00, 0, 0x8000, 1, 0x83FF, 0x7BFF, 0x0400],
    "bf16": [0x7FC0, 0x7F80, 0xFF80, 0, 0x8000, 1, 0x807F, 0x7F7F, 0x0080],
    "e4m3": [0x7F, 0xFF, 0, 0x80, 1, 0x87, 0x7E, 0xFE],
    "e5m2": [0x7E, 0x7C, 0xFC, 0, 0x80, 1, 0x83, 0x7B],
    "e2m1x2": [0, 8, 1, 7, 15],
}
_SPECIAL["tf32"] = _SPECIAL["f32"]


def _operand(rng, etype, shape, special_rate, narrow):
    if etype in ("e2m3", "e3m2"):
        return rng.integers(0, 64, shape).astype(np.uint32)
    if etype == "e2m1":
        return (rng.integers(0, 16, shape) << 2).astype(np.uint32)
    nb = _BITS[etype]
    if narrow and nb >= 16:  # values near 1, so that sums cancel and carry: exponents in a band
        sign = rng.integers(0, 2, shape).astype(np.uint32) << (nb - 1)
        E, M = (8, 23) if nb == 32 else ((5, 10) if etype == "f16" else (8, 7))
        bias = (1 << (E - 1)) - 1
        e = rng.integers(bias - 6, bias + 6, shape).astype(np.uint32)
        x = sign | (e << M) | rng.integers(0, 1 << M, shape).astype(np.uint32)
    else:
        x = rng.integers(0, 1 << nb, shape, dtype=np.uint64).astype(np.uint32)
    sp = rng.random(shape) < special_rate
    pool = np.array(_SPECIAL[etype], np.uint32)
    x[sp] = pool[rng.integers(0, len(pool), int(sp.sum()))]
    return x


def case(rng, name, m=64, n=64, special_rate=0.002, narrow=False):
    """Random operands of kind ``name``: (args, kwargs) of mma_numerics' function."""
    inst, dtype, atype, btype, k, bs = KINDS[name]
    a = _operand(rng, atype, (m, k), special_rate, narrow)
    b = _operand(rng, btype, (k, n), special_rate, narrow)
    c = _operand(rng, dtype, (m, n), special_rate * 4, narrow)
    kw = {}
    if bs is not None:
        block, stype = bs
        if stype == "ue8m0":  # mostly near 2^0, some extremes (0, 2^-127, 2^127, NaN 0xFF)
            sfa = rng.integers(117, 138, (m, k // block)).astype(np.uint32)
            sfb = rng.integers(117, 138, (k // block, n)).astype(np.uint32)
            for s in (sfa, sfb):
                e = rng.random(s.shape) < special_rate * 4
                s[e] = np.array([0, 1, 254, 255, 127], np.uint32)[rng.integers(0, 5, int(e.sum()))]
        else:
            sfa = rng.integers(0, 256, (m, k // block)).astype(np.uint32)
            sfb = rng.integers(0, 256, (k // block, n)).astype(np.uint32)
        kw = dict(sfa=sfa, sfb=sfb, block=block, stype=stype)
    return inst, (dtype, atype, btype, a, b, c), dict(n=n, k=k, **kw), m


def run(inst, args, kw, m):
    if inst == "wgmma":
        return mn.wgmma(*args, n=kw["n"], k=kw["k"])
    dtype, atype, btype, a, b, c = args
    return mn.tcgen05(_kind(atype, kw), dtype, atype, btype, a, b, c, m=128 if m > 64 else 64,
                      **kw)


def _kind(atype, kw):
    if "sfa" not in kw:
        return {"tf32": "tf32", "f16": "f16", "bf16": "f16"}.get(atype, "f8f6f4")
    if atype == "e2m1x2":
        return "mxf4" if kw["block"] == 32 else "mxf4nvf4"
    return "mxf8f6f4"


def compare(name, rng, m=64, n=64, special_rate=0.002, narrow=False, times=None):
    """(positions where the fast path and MMA-Sim differ, fast D, MMA-Sim's D, args, kwargs) of
    one random case."""
    import os
    inst, args, kw, m = case(rng, name, m, n, special_rate, narrow)
    old = os.environ.get("TILE_MLIR_SIM_MMA")
    try:
        import time
        t0 = time.perf_counter()
        os.environ["TILE_MLIR_SIM_MMA"] = ""
        fast = run(inst, args, kw, m)
        t1 = time.perf_counter()
        os.environ["TILE_MLIR_SIM_MMA"] = "mmasim"
        ref = run(inst, args, kw, m)
        if times is not None:
            times[0] += t1 - t0
            times[1] += time.perf_counter() - t1
    finally:
        if old is None:
            os.environ.pop("TILE_MLIR_SIM_MMA", None)
        else:
            os.environ["TILE_MLIR_SIM_MMA"] = old
    bad = np.argwhere(fast != ref)
    return bad, fast, ref, args, kw
