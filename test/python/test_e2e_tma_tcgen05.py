"""End to end on tile-sim, sm_100a: the seed's swizzled smem -> tmem cases (test_e2e_tcgen05_cp.py) with the
shared tile written by TMA instead of by ordinary stores. Each K-atom of the tile (rows x one swizzle span)
is one TMA box, completing on the mbarrier that also receives the tcgen05.commit of the copies; then
tcgen05.cp, commit, wait, and the tcgen05.ld readback of all 128 lanes. Expected: e2e_kernels.expected,
numpy on logical coordinates (the global tensor's rows `row0` on) and the tmem layout's apply()."""

import os
import sys

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

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


def _arr(v):
    return f"array<i64: {', '.join(map(str, v))}>"


def kernel_text(case: Case, swizzle: str, row0: int) -> str:
    """case's kernel (e2e_kernels.kernel_text, cta_group 1) with the shared tile loaded by TMA: one box of
    rows x (span / element bytes) per K-atom."""
    rows, cols = case.smem_shape
    e, eb = case.elem, case.bits // 8
    atom = SPAN[swizzle] // eb
    ncols = alloc_cols(case)
    g_t = f"!tile.buffer<global, {rows + row0}x{cols}x{e}>"
    s_t = f'!tile.buffer<shared, {rows}x{cols}x{e}, "{case.smem_layout}", align {ALIGN[swizzle]}>'
    t_t = f'!tile.buffer<tmem, {"x".join(map(str, case.tmem_shape))}x{e}, "{case.tmem_layout}">'
    o_t = f"!tile.buffer<global, 128x{ncols * 32 // case.bits}x{e}>"
    slot_t, bar_t = "!tile.buffer<shared, 1xi32>", "!tile.buffer<shared, 1xi64>"
    L = ['"tile.kernel"() ({', f"^bb0(%A: {g_t}, %out: {o_t}):",
         f'  %map = "tile.tensor_map"(%A) {{box = {_arr((rows, atom))}, swizzle = "{swizzle}"}} : ({g_t}) -> '
         "!tile.tensormap",
         f'  %smem = "tile.alloc_shared"() : () -> {s_t}',
         f'  %slot = "tile.alloc_shared"() : () -> {slot_t}',
         f'  %full = "tile.alloc_shared"() : () -> {bar_t}',
         f'  %done = "tile.alloc_shared"() : () -> {bar_t}',
         '  %tid = "tile.thread_id"() : () -> i32', '  %warp = "tile.warp_id"() : () -> i32',
         '  %c0 = arith.constant 0 : i32', '  %w0 = arith.cmpi eq, %warp, %c0 : i32',
         '  %t0 = arith.cmpi eq, %tid, %c0 : i32',
         '  scf.if %w0 {', f'    "tile.tmem.alloc"(%slot) {{num_cols = {ncols}}} : ({slot_t}) -> ()', '  }',
         '  scf.if %t0 {',
         '    "tile.tensor_map.prefetch"(%map) : (!tile.tensormap) -> ()',
         f'    "tile.mbarrier.init"(%full) {{count = 1}} : ({bar_t}) -> ()',
         f'    "tile.mbarrier.init"(%done) {{count = 1}} : ({bar_t}) -> ()',
         '    "tile.fence"() {kind = "mbarrier_init"} : () -> ()',
         f'    "tile.mbarrier.arrive_expect_tx"(%full) {{bytes = {rows * cols * eb}}} : ({bar_t}) -> ()']
    for k in range(cols // atom):
        reg = (f"dst_offsets = {_arr((0, k * atom))}, dst_sizes = {_arr((rows, atom))}, "
               f"src_offsets = {_arr((row0, k * atom))}, src_sizes = {_arr((rows, atom))}")
        L.append(f'    "tile.copy_async"(%smem, %A, %full) {{{reg}}} : ({s_t}, {g_t}, {bar_t}) -> ()')
    region = []
    if case.src_region:
        offs, sizes = case.src_region
        region = [f"src_offsets = {_arr(offs)}", f"src_sizes = {_arr(sizes)}"]
    L += ['  }',
          f'  "tile.mbarrier.wait"(%full) {{phase = 0}} : ({bar_t}) -> ()',  # TMA's bytes are in shared memory
          '  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()', '  "tile.barrier"() : () -> ()',
          '  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
          f'  %tmem = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {t_t}',
          '  scf.if %t0 {',
          f'    "tile.copy_async"(%tmem, %smem) {{{", ".join(region + ["cta_group = 1"])}}} : ({t_t}, {s_t}) -> ()',
          f'    "tile.commit"(%done) {{cta_group = 1}} : ({bar_t}) -> ()', '  }',
          f'  "tile.mbarrier.wait"(%done) {{phase = 0}} : ({bar_t}) -> ()',
          '  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
          f'  "tile.tmem.load"(%out, %tmem) {{col_offset = 0, num_cols = {ncols}, scope = "warpgroup"}} : '
          f"({o_t}, {t_t}) -> ()",
          '  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()', '  "tile.barrier"() : () -> ()',
          '  scf.if %w0 {', '    "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
          '    "tile.tmem.relinquish"() : () -> ()',
          f'    "tile.tmem.dealloc"(%slot) {{num_cols = {ncols}}} : ({slot_t}) -> ()', '  }',
          '  "tile.return"() : () -> ()',
          f'}}) {{sym_name = "{case.name}", block = array<i32: 128, 1, 1>}} : () -> ()']
    return "\n".join(L) + "\n"


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
