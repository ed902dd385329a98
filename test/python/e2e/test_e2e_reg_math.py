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
import tiers  # noqa: E402
from tile_mlir import builders as tb  # noqa: E402
from tile_mlir.mlir import nvvm_f32_ops  # noqa: E402

ARCHS = ("sm_100a", "sm_90a")
KINDS = ("rows", "wgmma")


def _ptxas(ptx: str, arch: str, tmp_path) -> None:
    from e2e_kernels import find_ptxas, ptxas

    exe = find_ptxas()
    if exe is not None:
        ptxas(ptx, exe, arch)


def _elementwise_kernel(kind: str, n: int, body, *, load_rows: bool = True, row_layout: str | None = None):
    """k(A, B, R, OUT): a, b tiles of A, B; r the row values of R ([rows, 1], loaded when `load_rows`);
    body(a, b, r, out) builds the ops; OUT <- out."""
    rows, lay, row_lay = rk.layouts(kind, n)
    row_lay = row_layout or row_lay
    with tb.module() as m:
        params = {"A": rk.glob_t((rows, n)), "B": rk.glob_t((rows, n)), "R": rk.glob_t((rows, 1)),
                  "OUT": rk.glob_t((rows, n))}
        with tb.kernel(m, "k", params, block=(128, 1, 1)) as (_, (A, B, R, OUT)):
            a, b, out = (tb.alloc_reg(rk.reg_t((rows, n), lay)) for _ in range(3))
            r = tb.alloc_reg(rk.reg_t((rows, 1), row_lay))
            for t, g in ((a, A), (b, B)):
                tb.copy(t, g, scope="warpgroup")
            if load_rows:
                tb.copy(r, R, scope="warpgroup")
            body(a, b, r, out)
            tb.copy(OUT, out, scope="warpgroup")
            tb.ret()
    return m.module, rows


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
    "lg2": (lambda a, b, r, o: tb.reg_lg2(o, a), lambda a, b, r: rk.lg2(a)),
    "rcp_approx": (lambda a, b, r, o: tb.reg_rcp(o, a, mode="approx"), lambda a, b, r: rk.rcp_approx(a)),
    "rcp_rn": (lambda a, b, r, o: tb.reg_rcp(o, a, mode="rn"), lambda a, b, r: (np.float32(1) / a).astype(np.float32)),
    "in_place": (lambda a, b, r, o: (tb.reg_mul(a, a, b), tb.reg_add(o, a, r)),
                 lambda a, b, r: rk.add((a * b).astype(np.float32), np.broadcast_to(r, a.shape))),
}


# every operation in the fast tier on one target, and each target once; the rest in the slow tier
@pytest.mark.parametrize("name, arch", tiers.cover(
    [pytest.param(name, arch) for arch in ARCHS for name in CASES],
    lambda name, arch: name, lambda name, arch: arch))
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
    """sm_100a takes add / mul / fma.rn.f32x2 for adjacent slots where the provider translates them (not LLVM
    22: mlir.nvvm_f32_ops); sm_90a has none."""
    module, _ = _elementwise_kernel("rows", 16, lambda a, b, r, o: (tb.reg_add(o, a, b), tb.reg_fma(o, o, r, b)))
    ptx100 = rk.compile_ptx(module, "sm_100a")
    assert ("add.rn.f32x2" in ptx100 and "fma.rn.f32x2" in ptx100) is nvvm_f32_ops
    module, _ = _elementwise_kernel("rows", 16, lambda a, b, r, o: (tb.reg_add(o, a, b), tb.reg_fma(o, o, r, b)))
    ptx90 = rk.compile_ptx(module, "sm_90a")
    assert "f32x2" not in ptx90 and "add.rn.f32" in ptx90 and "fma.rn.f32" in ptx90


def _runtime_index(value: int):
    """An index value LLVM cannot fold: block_id.x (0 here) + value."""
    from tile_mlir.mlir import arith, ir

    bid = arith.index_cast(ir.IndexType.get(), tb.block_id(dim="x"))
    return arith.addi(bid, tb.const(value, "index"))


def _logical(rows, n):
    return np.arange(rows)[:, None], np.arange(n)[None, :]


# make test: every mask and bound, each layout and target once (tiers.cover); the rest in the slow tier
@pytest.mark.parametrize("mask, bound, kind, arch", tiers.cover(
    [pytest.param(mask, bound, kind, arch) for arch in ARCHS for kind in KINDS
     for mask, bound in (("causal", 5), ("causal", -3), ("residual", 11), ("residual", 0))],
    lambda mask, bound, kind, arch: (mask, bound), lambda mask, bound, kind, arch: kind,
    lambda mask, bound, kind, arch: arch))
def test_mask_from_logical_coordinates(mask, bound, kind, arch, tmp_path):
    n = 16
    module, rows = _elementwise_kernel(kind, n, lambda a, b, r, o: tb.reg_mask(o, a, _runtime_index(bound), kind=mask),
                                       load_rows=False)
    ptx = rk.compile_ptx(module, arch)
    _ptxas(ptx, arch, tmp_path)
    a, b, r = _data(rows, n)
    out = np.zeros_like(a)
    rk.run(ptx, [a, b, r, out])
    row, col = _logical(rows, n)
    masked = col > row + bound if mask == "causal" else col >= bound
    want = np.where(masked, np.float32(-np.inf), a)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


def _reduce_kernel(kind: str, n: int, op: str, row_layout: str | None = None):
    """k(A, B, R, OUT): r = reduce(a) along the columns; OUT = b + r broadcast (every row value reaches
    every column: a replicated r is checked in each lane that holds it)."""
    def body(a, b, r, o):
        tb.reg_reduce(r, a, kind=op, axis=1)
        tb.reg_add(o, b, r)
    return _elementwise_kernel(kind, n, body, load_rows=False, row_layout=row_layout)


def _reduce_model(a, op: str, kind: str):
    """The plan's order: rows layout, a thread's 16 columns folded in halves; wgmma, a thread's columns
    8j + 2q + {0, 1} (lane q = l % 4) in ascending order folded in halves, then lanes q ^ 1, then q ^ 2."""
    f = rk.add if op == "sum" else np.fmax
    if kind == "rows":
        return rk.halving_fold(a, f)[:, None]
    rows, n = a.shape
    per_lane = a.reshape(rows, n // 8, 4, 2).transpose(0, 2, 1, 3).reshape(rows, 4, n // 4)
    p = rk.halving_fold(per_lane, f)  # (rows, 4): lane q's partial
    p = f(p, p[:, [1, 0, 3, 2]])  # shfl.bfly 1
    p = f(p, p[:, [2, 3, 0, 1]])  # shfl.bfly 2
    assert (p.view(np.uint32) == p[:, :1].view(np.uint32)).all()  # every lane of the row holds the same bits
    return p[:, :1]


# make test: each reduction, layout and target once (tiers.cover); the rest in the slow tier
@pytest.mark.parametrize("op, kind, arch", tiers.cover(
    [pytest.param(op, kind, arch) for arch in ARCHS for kind in KINDS for op in ("max", "sum")],
    lambda op, kind, arch: op, lambda op, kind, arch: kind, lambda op, kind, arch: arch))
def test_reduce_along_columns(op, kind, arch, tmp_path):
    n = 32
    module, rows = _reduce_kernel(kind, n, op)
    ptx = rk.compile_ptx(module, arch)
    _ptxas(ptx, arch, tmp_path)
    if kind == "wgmma":
        assert "shfl.sync.bfly.b32" in ptx
    a, b, r = _data(rows, n, seed=1)
    out = np.zeros_like(a)
    rk.run(ptx, [a, b, r, out])
    want = rk.add(b, np.broadcast_to(_reduce_model(a, op, kind), b.shape))
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("op, warp0", [("max", 0), ("sum", 0), ("sum", 4)])
def test_reduce_across_warps_through_shared_memory(op, warp0, tmp_path):
    """128 x 64 over 8 warps: warps w and w + 4 hold the two column halves of rows 32w..: each thread folds
    its 32 columns, then the two warps' partials meet in shared memory (scratch[row * 2 + k]) between two
    bar.sync 1, 256; every thread folds k = 0, 1 in order. With warp0 = 4 the tile lies in warps 4..11 of
    a 384-thread CTA, whose first warpgroup stays out of the barriers."""
    at = f" + O[{warp0}@warpid]" if warp0 else ""
    src_l = "S[(4, 32, 2, 32) : (1@warpid, 1@laneid, 4@warpid, 1@reg)]" + at
    row_l = "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)] + R[2 : 4@warpid]" + at
    out_l = src_l
    block = 256 + 32 * warp0
    with tb.module() as m:
        with tb.kernel(m, "k", {"A": rk.glob_t((128, 64)), "OUT": rk.glob_t((128, 64))},
                       block=(block, 1, 1)) as (_, (A, OUT)):
            a = tb.alloc_reg(rk.reg_t((128, 64), src_l))
            o = tb.alloc_reg(rk.reg_t((128, 64), out_l))
            r = tb.alloc_reg(rk.reg_t((128, 1), row_l))
            scratch = tb.alloc_shared(tb.buffer_t("shared", (256,), "f32"))
            tb.copy(a, A, scope="cta")
            tb.reg_reduce(r, a, scratch, kind=op, axis=1, barrier_id=1)
            tb.reg_sub(o, a, r)
            tb.copy(OUT, o, scope="cta")
            tb.ret()
    ptx = rk.compile_ptx(m.module, "sm_100a")
    _ptxas(ptx, "sm_100a", tmp_path)
    assert "bar.sync" in ptx
    a = np.random.default_rng(2).standard_normal((128, 64)).astype(np.float32)
    out = np.zeros_like(a)
    rk.run(ptx, [a, out], block=block)
    f = rk.add if op == "sum" else np.fmax
    halves = [rk.halving_fold(a[:, 32 * k:32 * k + 32], f) for k in range(2)]
    want = (a - f(halves[0], halves[1])[:, None]).astype(np.float32)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("arch", ARCHS)
def test_named_barriers_order_two_warpgroups(arch, tmp_path):
    """Warpgroup 1 writes a shared tile, then bar.arrive 3, 256; warpgroup 0 bar.sync 3, 256, then reads it:
    the data crosses between the warpgroups in order (tile-sim fails a read racing the write)."""
    from tile_mlir.mlir import arith

    with tb.module() as m:
        with tb.kernel(m, "k", {"A": rk.glob_t((128, 8)), "OUT": rk.glob_t((128, 8))},
                       block=(256, 1, 1)) as (_, (A, OUT)):
            smem = tb.alloc_shared(tb.buffer_t("shared", (128, 8), "f32"))
            producer = tb.ge(tb.warp_id(), tb.const(4))
            with tb.when(producer):
                tb.copy(smem, A, scope="warpgroup")
                tb.named_barrier_arrive(id=3, count=256)
            with tb.when(arith.xori(producer, tb.const(True))):
                tb.named_barrier_sync(tb.const(1), id=2, count=256)
                tb.copy(OUT, smem, scope="warpgroup")
            tb.ret()
    ptx = rk.compile_ptx(m.module, arch)
    _ptxas(ptx, arch, tmp_path)
    assert "bar.arrive" in ptx and "bar.sync" in ptx
    a = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)
    out = np.zeros_like(a)
    rk.run(ptx, [a, out], block=256)
    assert np.array_equal(out, a)


def test_second_warpgroup_masks_and_reduces_its_rows(tmp_path):
    """FlashAttention-4's second softmax warpgroup: the rows layout in warps 4..7 of a 256-thread CTA (thread
    128 + 32w + l holds row 32w + l): the mask's coordinates and the reductions are relative to the tile's
    first thread; warps 0..3 hold nothing of it."""
    lay = rk.ROWS.format(n=16) + " + O[4@warpid]"
    row = rk.ROW_VALUE + " + O[4@warpid]"
    with tb.module() as m:
        with tb.kernel(m, "k", {"A": rk.glob_t((128, 16)), "OUT": rk.glob_t((128, 16)), "R": rk.glob_t((128, 1))},
                       block=(256, 1, 1)) as (_, (A, OUT, R)):
            a = tb.alloc_reg(rk.reg_t((128, 16), lay))
            r = tb.alloc_reg(rk.reg_t((128, 1), row))
            tb.copy(a, A, scope="cta")
            tb.reg_mask(a, a, _runtime_index(2), kind="causal")
            tb.reg_mask(a, a, _runtime_index(13), kind="residual")
            tb.reg_reduce(r, a, kind="max", axis=1)
            tb.reg_exp2(a, a, tb.const(0.5), r)
            tb.copy(OUT, a, scope="cta")
            tb.copy(R, r, scope="cta")
            tb.ret()
    ptx = rk.compile_ptx(m.module, "sm_100a")
    _ptxas(ptx, "sm_100a", tmp_path)
    a = np.random.default_rng(5).standard_normal((128, 16)).astype(np.float32)
    out, r = np.zeros_like(a), np.zeros((128, 1), np.float32)
    rk.run(ptx, [a, out, r], block=256)
    row_i, col = _logical(128, 16)
    s = np.where((col > row_i + 2) | (col >= 13), np.float32(-np.inf), a)
    mx = rk.halving_fold(s, np.fmax)[:, None]
    assert np.array_equal(r, mx)
    want = rk.ex2(rk.fma_rn(s, np.float32(0.5), np.broadcast_to(-mx, s.shape)))
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
