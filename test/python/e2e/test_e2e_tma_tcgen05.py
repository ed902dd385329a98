"""End to end on tile-sim, sm_100a: the seed's swizzled smem -> tmem cases (test_e2e_tcgen05_cp.py) with the
shared tile written by TMA instead of by ordinary stores. Each K-atom of the tile (rows x one swizzle span)
is one TMA box, completing on the mbarrier that also receives the tcgen05.commit of the copies; then
tcgen05.cp, commit, wait, and the tcgen05.ld readback of all 128 lanes. Expected: e2e_kernels.expected,
numpy on logical coordinates (the global tensor's rows `row0` on) and the tmem layout's apply()."""

import os

import ml_dtypes
import numpy as np
import pytest


import tile_mlir  # noqa: E402
from e2e_kernels import CARRIER, Case, alloc_cols, expected, find_ptxas, ptxas  # noqa: E402
from tile_mlir.layout import SwizzleMode, kmajor_layout  # noqa: E402

PTXAS = find_ptxas()
T_BASIC = "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"
SPAN = {"32B": 32, "64B": 64, "128B": 128}
ALIGN = {"32B": 256, "64B": 512, "128B": 1024}
ELEMENTS = {"ui8": np.uint8, "bf16": ml_dtypes.bfloat16, "f32": np.float32}


def t2d(rows, cols):
    return f"S[({rows}, {cols}) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"


def km(shape, bits, mode):
    return str(kmajor_layout(shape, bits, SwizzleMode(mode)))


# (case, swizzle, row0: the tile's first row in the global tensor)
CASES = [
    (Case("sw1_32B_atom", "ui8", (32, 32), "Swizzle<32B> o S[(32, 32) : (32, 1)]", (32, 16), T_BASIC,
          src_region=((0, 0), (32, 16))), "32B", 0),
    (Case("sw2_64B_atom", "ui8", (32, 64), "Swizzle<64B> o S[(32, 64) : (64, 1)]", (32, 16), T_BASIC,
          src_region=((0, 0), (32, 16))), "64B", 16),
    (Case("sw3_128B_atom", "ui8", (32, 128), "Swizzle<128B> o S[(32, 128) : (128, 1)]", (32, 16), T_BASIC,
          src_region=((0, 0), (32, 16))), "128B", 0),
    (Case("sw3_64x128_corner", "ui8", (64, 128), "Swizzle<128B> o S[(64, 128) : (128, 1)]", (32, 16), T_BASIC,
          src_region=((0, 0), (32, 16))), "128B", 32),
    (Case("sw3_64x128_atom_row_8", "ui8", (64, 128), "Swizzle<128B> o S[(64, 128) : (128, 1)]", (32, 16), T_BASIC,
          src_region=((8, 0), (32, 16))), "128B", 0),
    (Case("sw2_32x256_col_64", "ui8", (32, 256), "Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]", (32, 16),
          T_BASIC, src_region=((0, 64), (32, 16))), "64B", 8),
    (Case("bf16_sw128_k_steps", "bf16", (32, 64), "Swizzle<128B> o S[(32, 64) : (64, 1)]", (32, 64), t2d(32, 64)),
     "128B", 0),
    (Case("f32_sw32_two_atoms", "f32", (32, 16), km([32, 16], 32, "32B"), (32, 16), t2d(32, 16)), "32B", 0),
    (Case("bf16_sw128_64rows_rows_32_64", "bf16", (64, 128), km([64, 128], 16, "128B"), (32, 128), t2d(32, 128),
          src_region=((32, 0), (32, 128))), "128B", 64),
    (Case("ui8_sw64_8_cps_256_cols", "ui8", (32, 512), km([32, 512], 8, "64B"), (32, 512), t2d(32, 512)), "64B", 0),
]


def kernel_text(case: Case, swizzle: str, row0: int):
    """case's kernel (e2e_kernels.kernel_text, cta_group 1) with the shared tile loaded by TMA: one box of
    rows x (span / element bytes) per K-atom; a module built with the op builders."""
    from e2e_kernels import _module, _region, cmpi, i32, kernel_end
    from tile_mlir.dialect import builders as tb

    rows, cols = case.smem_shape
    e, eb = case.elem, case.bits // 8
    atom = SPAN[swizzle] // eb
    ncols = alloc_cols(case)
    stack, module = _module()
    with stack:
        g_t = tb.buffer_t("global", (rows + row0, cols), e)
        o_t = tb.buffer_t("global", (128, ncols * 32 // case.bits), e)
        bar_t = tb.buffer_t("shared", (1,), "i64")
        with tb.kernel(module, case.name, {"A": g_t, "out": o_t}, block=(128, 1, 1)) as (_, (A, out)):
            tmap = tb.tensor_map(A, (rows, atom), swizzle)
            smem = tb.alloc_shared(tb.buffer_t("shared", (rows, cols), e, case.smem_layout, align=ALIGN[swizzle]))
            slot = tb.alloc_shared(tb.buffer_t("shared", (1,), "i32"))
            full, done = tb.alloc_shared(bar_t), tb.alloc_shared(bar_t)
            tid, warp = tb.thread_id(), tb.warp_id()
            c0 = i32(0)
            w0, t0 = cmpi("eq", warp, c0), cmpi("eq", tid, c0)
            with tb.when(w0):
                tb.tmem_alloc(slot, ncols)
            with tb.when(t0):
                tb.tensor_map_prefetch(tmap)
                tb.mbarrier_init(full, 1)
                tb.mbarrier_init(done, 1)
                tb.fence("mbarrier_init")
                tb.mbarrier_arrive_expect_tx(full, rows * cols * eb)
                for k in range(cols // atom):
                    tb.copy_async(smem, A, full, dst_region=[(0, rows), (k * atom, (k + 1) * atom)],
                                  src_region=[(row0, row0 + rows), (k * atom, (k + 1) * atom)])
            tb.mbarrier_wait(full, 0)  # TMA's bytes are in shared memory
            tb.fence("tcgen05_before_sync")
            tb.barrier()
            tb.fence("tcgen05_after_sync")
            tmem = tb.tmem_buffer(slot, tb.buffer_t("tmem", case.tmem_shape, e, case.tmem_layout))
            with tb.when(t0):
                tb.copy_async(tmem, smem, cta_group=1, src_region=_region(case.src_region))
                tb.commit(done, 1)
            tb.mbarrier_wait(done, 0)
            tb.fence("tcgen05_after_sync")
            tb.tmem_load(out, tmem, ncols, 0, "warpgroup")
            kernel_end(1, ncols, slot, w0)
    return module


@pytest.mark.parametrize("case, swizzle, row0", CASES, ids=[c[0].name for c in CASES])
def test_tma_fed_smem_to_tmem(case, swizzle, row0):
    art = tile_mlir.compile(kernel_text(case, swizzle, row0), arch="sm_100a")
    if PTXAS:
        ptxas(art.ptx, PTXAS, "sm_100a")
    assert "cp.async.bulk.tensor.2d.shared::cta.global" in art.ptx and "tcgen05.cp" in art.ptx
    raw = CARRIER[case.bits]
    rng = np.random.default_rng(len(case.name))
    rows, cols = case.smem_shape
    A = rng.integers(0, 1 << case.bits, size=(rows + row0, cols), dtype=np.uint64).astype(raw)
    ncols = alloc_cols(case)
    out = np.zeros((128, ncols * 32 // case.bits), raw)
    view = ELEMENTS[case.elem]  # the arguments' dtype; the bits are what is compared
    res = tile_mlir.jit(art, backend="sim")(A.view(view), out.view(view))
    want = expected(case, A[row0:row0 + rows].astype(np.uint64))
    np.testing.assert_array_equal(res.sim.tmem[0][:, :ncols], want)  # all 128 lanes of tensor memory
    np.testing.assert_array_equal(out.view(np.uint32), want)  # and the tcgen05.ld readback
