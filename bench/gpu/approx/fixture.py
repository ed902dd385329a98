"""Literal test table for tile-sim's approximate-math models: for every .approx form, ~300 inputs
(special values, the boundaries of each model's ranges, one input per exponent) and the GPU's outputs.
Writes OUTDIR/approx_gpu_outputs.json (test/fixtures/approx/ in the repository).

    python3 fixture.py OUTDIR
"""
import json
import os
import sys

import cupy as cp
import numpy as np

import kernels

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")
R = kernels.Runner(cp)
rng = np.random.default_rng(31)


def f32b(v):
    return int(np.float32(v).view(np.uint32))


SPEC32 = [0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF,
          0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF]
SPEC32 += [f32b(v) for v in (1, -1, 2, -2, 0.5, -0.5, 0.25, 3, 0.75, 1.5, 127.99, 128, 129, -126,
                             -126.5, -127, -149, -150, -160, 1e-7, -1e-7, 2.0 ** 126, 2.0 ** 127,
                             3 * 2.0 ** 126, 2.0 ** -127, 0.1, 3.14159265, -3.14159265, 6.2831853,
                             1e5, 1e6, 8.0, 9.0, 10.0, 0.00390625, 0.0039, 0.004, 20.0)]
SPEC32 += [0x3F800001, 0x3F7FFFFF, 0x3EFFFFFF, 0x3F000001, 0x3FFFFFFF, 0x407FFFFF]
SPEC16 = [0, 0x8000, 1, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x4000, 0x3800, 0x7BFF, 0xFBFF,
          0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFFFF, 0x4C00, 0x4BFF, 0xCC00, 0xCE00, 0x0080, 0x3F80,
          0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0x4300, 0xC300, 0x42FF, 0x3B80, 0x2000]


def per_exponent32():
    e = np.arange(256, dtype=np.uint32)
    s = rng.integers(0, 2, 256, dtype=np.uint32)
    m = rng.integers(0, 1 << 23, 256, dtype=np.uint32)
    return ((s << 31) | (e << 23) | m).tolist()


out = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "forms": {}}
for form in kernels.F32:
    xs = sorted(set(SPEC32 + per_exponent32()))
    y = R.apply(form, cp.asarray(np.array(xs, np.uint32)))
    out["forms"][form] = [[x, int(v)] for x, v in zip(xs, cp.asnumpy(y).tolist())]
for form in kernels.F64:
    hi = sorted(set(SPEC32 + per_exponent32()))
    xs = [((h << 32) | int(rng.integers(0, 1 << 32))) if i % 2 else (h << 32) for i, h in enumerate(hi)]
    y = R.apply(form, cp.asarray(np.array(xs, np.uint64)))
    out["forms"][form] = [[x, int(v)] for x, v in zip(xs, cp.asnumpy(y).tolist())]
for form in kernels.H16:
    xs = sorted(set(SPEC16 + rng.integers(0, 1 << 16, 280).tolist()))
    y = R.apply(form, cp.asarray(np.array(xs, np.uint16)))
    out["forms"][form] = [[x, int(v)] for x, v in zip(xs, cp.asnumpy(y).tolist())]
for form in kernels.X2:
    lo = rng.choice(SPEC16 + rng.integers(0, 1 << 16, 200).tolist(), 200)
    hi = rng.integers(0, 1 << 16, 200)
    xs = sorted(set(((hi.astype(np.int64) << 16) | lo).tolist()))
    y = R.apply(form, cp.asarray(np.array(xs, np.uint32)))
    out["forms"][form] = [[x, int(v)] for x, v in zip(xs, cp.asnumpy(y).tolist())]
with open(os.path.join(OUT, "approx_gpu_outputs.json"), "w") as f:
    json.dump(out, f, separators=(",", ":"))
print("fixture:", {k: len(v) for k, v in out["forms"].items()})
