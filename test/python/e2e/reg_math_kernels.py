"""Kernels of the tile.reg ops for the tile-sim tests (test_e2e_reg_math.py, test_e2e_softmax_block.py): a
global tile loaded into a register tile, the ops applied, the results stored back; and the numpy models
they are checked against, written from the PTX ISA's definition of each instruction (tile-sim's ex2
model from the sim package)."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from tile_mlir import builders as tb

# thread 32w + l holds row 32w + l, column c in register c: what tcgen05.ld.32x32b gives a warpgroup
ROWS = "S[(4, 32, {n}) : (1@warpid, 1@laneid, 1@reg)]"
ROW_VALUE = "S[(4, 32, 1) : (1@warpid, 1@laneid, 1@reg)]"
# the wgmma m64nNk16 f32 accumulator (docs/registers.md §1) and its row values, replicated over the 4 lanes
# of a row; the unreplicated form puts each row in lane l % 4 == 0 only
WGMMA = "S[(4, 2, 8, {j}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"
WGMMA_ROW = "S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)] + R[4 : 1@laneid]"
WGMMA_ROW_ONE = "S[(4, 2, 8, 1) : (1@warpid, 1@reg, 4@laneid, 1@reg)]"


def layouts(kind: str, n: int):
    """(rows, tile layout, row-value layout) of a 128 x n (rows) or 64 x n (wgmma) f32 tile."""
    if kind == "rows":
        return 128, ROWS.format(n=n), ROW_VALUE
    return 64, WGMMA.format(j=n // 8), WGMMA_ROW


def reg_t(shape, layout, elem="f32"):
    return tb.buffer_t("reg", shape, elem, layout)


def glob_t(shape, elem="f32"):
    return tb.buffer_t("global", shape, elem)


def compile_ptx(module, arch: str) -> str:
    import tile_mlir

    return tile_mlir.compile(module, arch=arch).ptx


def run(ptx: str, args: list, block: int = 128):
    from tile_mlir.sim import run_ptx

    run_ptx(ptx, "k", args, block=(block, 1, 1), strict=True)
    return args


# -- numpy models (bit patterns where it matters) ---------------------------------------------------------
def f32(x):
    return np.asarray(x, dtype=np.float32)


def fma_rn(a, b, c):
    """fma.rn.f32: a * b exact in f64, the sum rounded to odd in f64, then to nearest f32 (one rounding:
    f64 carries more than f32's 24 + 2 bits)."""
    a, b, c = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    with np.errstate(invalid="ignore"):  # (an infinite sum is exact: its error term is NaN, ignored)
        bp = s - p  # two-sum error of s = p + c
        err = (p - (s - bp)) + (c - bp)
    inexact = (err != 0) & np.isfinite(s)
    toward_zero = np.where(inexact & (np.sign(err) != np.sign(s)), np.nextafter(s, 0.0), s)
    bits = toward_zero.view(np.uint64) | inexact.astype(np.uint64)
    return bits.view(np.float64).astype(np.float32)


def ex2(x):
    """ex2.approx.ftz.f32, tile-sim's model (bit exact, from the GPU's measured tables)."""
    from tile_mlir.sim import ex2_approx_f32

    return ex2_approx_f32(f32(x).view(np.uint32), ftz=True).view(np.float32)


def lg2(x):
    """lg2.approx.ftz.f32, tile-sim's model."""
    from tile_mlir.sim import lg2_approx_f32

    return lg2_approx_f32(f32(x).view(np.uint32), ftz=True).view(np.float32)


def rcp_approx(x):
    """rcp.approx.ftz.f32, tile-sim's model."""
    from tile_mlir.sim import rcp_approx_f32

    return rcp_approx_f32(f32(x).view(np.uint32), ftz=True).view(np.float32)


def halving_fold(v, op):
    """reduce_plan's stage A over the last axis: v[i] op= v[i + h], h = ceil(n / 2), until one is left."""
    v = [v[..., i] for i in range(v.shape[-1])]
    while len(v) > 1:
        h = (len(v) + 1) // 2
        v = [op(v[i], v[i + h]) for i in range(len(v) - h)] + v[len(v) - h:h]
    return v[0]


def add(a, b):
    return (f32(a) + f32(b)).astype(np.float32)


def to_bf16(x):
    return f32(x).astype(ml_dtypes.bfloat16)
