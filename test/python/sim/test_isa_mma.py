"""mma.sync on tile-sim: every row of the ISA coverage table registered to this test (every shape and
type of sm_80 and later that tile-sim decodes), with test_mma_sync's kernel and fragment maps:
float kinds bit for bit against MMA-Sim (Ampere's model; Hopper's for the f64 shapes of sm_90),
integer kinds against the exact product (.satfinite clamping to s32), .b1 against the popcount of
and / xor.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tiers
from isa_harness import isa_rows
from test_mma_sync import _a, _b, _c, _fragments, _run, _unpack_d, int_ref, kernel, mmasim_ref, \
    pack, random_bits
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_mma.py::"
FORM = re.compile(r"mma\.sync\.aligned\.m(\d+)n(\d+)k(\d+)\.row\.col(\.satfinite)?"
                  r"\.(\w+)\.(\w+)\.(\w+)\.(\w+)(\.(and|xor)\.popc)?")


class _Capture:
    """An assemble stand-in that records the kernel, to check it runs the row's form."""

    def __init__(self, assemble):
        self.assemble, self.ptx = assemble, []

    def __call__(self, ptx, arch="sm_100a"):
        self.ptx.append(ptx)
        self.assemble(ptx, arch)


# make test: every shape, every type combination and .satfinite once (tiers.cover); all in the slow tier
@pytest.mark.parametrize("row", tiers.cover(
    isa_rows(T + "test_mma_rows"), lambda r: r["form"].split(".")[3],
    lambda r: ".".join(p for p in r["form"].split(".")[6:] if p != "satfinite"),
    lambda r: "satfinite" in r["form"]), ids=lambda r: r["form"])
def test_mma_rows(row, assemble):
    form = row["form"]
    m, n, k, sat, dtype, atype, btype, ctype, _, bitop = FORM.match(form).groups()
    shape = (int(m), int(n), int(k))
    rng = np.random.default_rng(sum(map(ord, form)))
    cap = _Capture(assemble)
    if atype == "b1":
        a, b = random_bits(rng, "b1", shape[::2]), random_bits(rng, "b1", shape[2:0:-1])
        c = rng.integers(0, 1000, shape[:2]).astype(np.uint64)
        nel_a, nel_b, nel_c, na, nb, nc, nd = _fragments(shape, "b1", "b1", 32, 32)
        ptx = kernel("sm_80", shape, "s32", "b1", "b1", "s32", na, nb, nc, nd).replace(
            ".s32.b1.b1.s32", f".s32.b1.b1.s32.{bitop}.popc")
        cap(ptx, "sm_80")
        fa = pack(a, lambda g, t, i: _a(shape, "b1", g, t, i), nel_a, 1)
        fb = pack(b, lambda g, t, i: _b(shape, "b1", g, t, i), nel_b, 1)
        fc = pack(c, lambda g, t, i: _c(shape, g, t, i), nel_c, 32)
        out = np.zeros((32, nd), np.uint32)
        run_ptx(ptx, "k", [fa.astype(np.uint32), fb.astype(np.uint32), fc.astype(np.uint32), out],
                block=(32, 1, 1))
        got, want = (_unpack_d(out.astype(np.uint64), shape, nel_c, 32),
                     int_ref("b1", "b1", a, b, c, False, bitop))
    elif dtype == "s32":
        a, b = random_bits(rng, atype, shape[::2]), random_bits(rng, btype, shape[2:0:-1])
        c = rng.integers(0, 1 << 32, shape[:2]).astype(np.uint64)
        c[0, 0], c[1, 1] = 0x7FFFFFF0, 0x80000005  # near the s32 range: .satfinite clamps
        out, nel_c, db = _run("sm_80", shape, "s32", atype, btype, "s32", a, b, c, cap, sat or "")
        got, want = _unpack_d(out, shape, nel_c, db), int_ref(atype, btype, a, b, c, bool(sat))
    else:
        target, arch = ("sm_90a", "Hopper") if atype == "f64" and shape != (8, 8, 4) else \
            ("sm_80", "Ampere")
        a, b = random_bits(rng, atype, shape[::2]), random_bits(rng, atype, shape[2:0:-1])
        c = random_bits(rng, "f16" if dtype == "f16" else ("f64" if dtype == "f64" else "tf32"),
                        shape[:2])
        out, nel_c, db = _run(target, shape, dtype, atype, btype, ctype, a, b, c, cap)
        got, want = _unpack_d(out, shape, nel_c, db), \
            mmasim_ref(arch, shape, dtype, atype, btype, a, b, c)
        assert (got != c).any()  # a result, not C passed through
    assert any(f"\t{form} " in p for p in cap.ptx), "the kernel does not run the row's form"
    np.testing.assert_array_equal(got, want)
