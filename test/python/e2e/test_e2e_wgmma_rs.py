"""End to end: gemm_async with A from registers (wgmma's RS form, sm_90a) -> ptxas -> tile-sim.

* A loaded from global into a register tile, D (+)= A . B^T: D must be, bit for bit, MMA-Sim's Hopper model of
  the logical matrices (one call per K-step);
* FlashAttention-3's chain: S = Q . K^T (A and B in shared memory), P = convert(S) to bf16 / f16 (rn) in the
  registers that hold S, O = P . V^T with P from registers and V MN-major (the [kv, d] tile TMA writes); O
  bit for bit the model of S, then ml_dtypes' rn conversion, then the model of P . V;
* the plan's declines: A held by other threads than wgmma reads it from, a register split across words.
"""

import ml_dtypes
import numpy as np
import pytest

from e2e_gemm_kernels import mma_reference, random_bits, wg_acc_layout
from e2e_kernels import find_ptxas

PTXAS = find_ptxas()
NP16 = {"bf16": ml_dtypes.bfloat16, "f16": np.float16}


def _smem(rows, k, elem, mn_major=False):
    """A 128B-swizzled shared tile [rows, k] of 16-bit elements, K-major or MN-major: 64-element swizzle rows,
    columns of 8-row atoms beyond them (as TMA boxes of 64 columns side by side)."""
    if mn_major:
        lay = f"S[({rows}, {k}) : (1, 64)]" if rows <= 64 else f"S[({rows // 64}, 64, {k}) : ({64 * k}, 1, 64)]"
    else:
        lay = f"S[({rows}, {k}) : (64, 1)]" if k <= 64 else f"S[({rows}, {k // 64}, 64) : (64, {64 * rows}, 1)]"
    return f'!tile.buffer<shared, {rows}x{k}x{elem}, "Swizzle<128B> o {lay}", align 1024>'


def _kernel(name, elem, k, n, a_layout, chain=False):
    """chain False: D = C + A . B^T, A (64 x k) global -> registers (a_layout). chain True: S = A . B^T (A, B
    K-major in shared memory), P = bf16/f16(S), D = C + P . V^T, V global [k2 = n_s, n] MN-major in shared."""
    from e2e_kernels import _module
    from tile_mlir.dialect import builders as tb
    from tile_mlir.mlir import arith, ir

    from tile_mlir.layout import parse_layout  # noqa: F401  (the builders parse the text)
    stack, module = _module()
    true = lambda: arith.constant(ir.IntegerType.get_signless(1), 1)  # noqa: E731
    with stack:
        d_t = tb.buffer_t("reg", (64, n), "f32", wg_acc_layout(n))
        gd = tb.buffer_t("global", (64, n), "f32")
        if not chain:
            ga, gb = tb.buffer_t("global", (64, k), elem), tb.buffer_t("global", (n, k), elem)
            with tb.kernel(module, name, [("A", ga), ("B", gb), ("C", gd), ("D", gd)], block=(128, 1, 1)) as (_, args):
                A, B, C, D = args
                a = tb.alloc_reg(tb.buffer_t("reg", (64, k), elem, a_layout))
                b = tb.alloc_shared(ir.Type.parse(_smem(n, k, elem)))
                d = tb.alloc_reg(d_t)
                tb.copy(a, A, scope="warpgroup")
                tb.copy(b, B, scope="cta")
                tb.copy(d, C, scope="warpgroup")
                tb.fence("proxy_async")
                tb.barrier()
                tb.gemm_async(d, a, b, true(), scope="warpgroup")
                tb.gemm_wait(0)
                tb.copy(D, d, scope="warpgroup")
                tb.ret()
            return module
        ns = k  # S is 64 x ns: the K of the second product
        ga, gb = tb.buffer_t("global", (64, 64), elem), tb.buffer_t("global", (ns, 64), elem)
        gv = tb.buffer_t("global", (ns, n), elem)
        params = [("A", ga), ("B", gb), ("V", gv), ("C", gd), ("D", gd)]
        with tb.kernel(module, name, params, block=(128, 1, 1)) as (_, args):
            A, B, V, C, D = args
            a = tb.alloc_shared(ir.Type.parse(_smem(64, 64, elem)))
            b = tb.alloc_shared(ir.Type.parse(_smem(ns, 64, elem)))
            v = tb.alloc_shared(ir.Type.parse(_smem(ns, n, elem)))  # [ns, n] row-major ...
            # ... viewed as V^T [n, ns]: the MN-major B operand (no data moves)
            vt = tb.reinterpret(v, ir.Type.parse(_smem(n, ns, elem, mn_major=True)))
            s = tb.alloc_reg(tb.buffer_t("reg", (64, ns), "f32", wg_acc_layout(ns)))
            p = tb.alloc_reg(tb.buffer_t("reg", (64, ns), elem, wg_acc_layout(ns)))
            d = tb.alloc_reg(d_t)
            tb.copy(a, A, scope="cta")
            tb.copy(b, B, scope="cta")
            tb.copy(v, V, scope="cta")
            tb.copy(d, C, scope="warpgroup")
            tb.fence("proxy_async")
            tb.barrier()
            tb.gemm_async(s, a, b, arith.constant(ir.IntegerType.get_signless(1), 0), scope="warpgroup")
            tb.gemm_wait(0)
            tb.convert(p, s, "rn")
            tb.gemm_async(d, p, vt, true(), scope="warpgroup")
            tb.gemm_wait(0)
            tb.copy(D, d, scope="warpgroup")
            tb.ret()
        return module


def _run(module, args):
    from e2e_kernels import ptxas
    from tile_mlir.driver.compiler import compile as tile_compile
    from tile_mlir.sim import run_ptx

    art = tile_compile(module, arch="sm_90a")
    if PTXAS:
        ptxas(art.ptx, PTXAS, arch="sm_90a")
    run_ptx(art.ptx, art.kernel_name, args, block=art.block, dynamic_smem=art.dynamic_smem)
    return art


@pytest.mark.parametrize("elem,k,n", [("bf16", 32, 64), ("f16", 16, 24)])
def test_register_a(elem, k, n):
    rng = np.random.default_rng(k + n)
    a, b = random_bits(elem, (64, k), rng), random_bits(elem, (n, k), rng)
    c = random_bits("f32", (64, n), rng)
    d = np.zeros_like(c)
    art = _run(_kernel(f"rs_{elem}", elem, k, n, wg_acc_layout(k)), [a, b, c.copy(), d])
    assert "wgmma.mma_async.sync.aligned.m64n" in art.ptx and "{%r" in art.ptx.split("wgmma.mma_async")[1][:400]
    assert np.array_equal(d, mma_reference("wgmma", elem, elem, "f32", a, b, c))


@pytest.mark.parametrize("elem,ns,n", [("bf16", 64, 64), ("f16", 32, 128)])
def test_fa3_chain_p_from_the_accumulator(elem, ns, n):
    rng = np.random.default_rng(ns * n)
    a, b = random_bits(elem, (64, 64), rng), random_bits(elem, (ns, 64), rng)
    v = random_bits(elem, (ns, n), rng)
    c = random_bits("f32", (64, n), rng)
    d = np.zeros_like(c)
    _run(_kernel(f"chain_{elem}", elem, ns, n, None, chain=True), [a, b, v, c.copy(), d])
    s = mma_reference("wgmma", elem, elem, "f32", a, b, np.zeros((64, ns), np.uint32))
    p = s.view(np.float32).astype(NP16[elem]).view(np.uint16)
    assert np.array_equal(d, mma_reference("wgmma", elem, elem, "f32", p, v.T.copy(), c))


@pytest.mark.parametrize("layout,words", [
    # one row per lane: wgmma reads row 8 of warp 0 from lane 0 (value 2), the layout puts it in lane 8
    ("S[(4, 16, 32) : (1@warpid, 1@laneid, 1@reg)] + O[0@warpid]", "from warp 0 lane 0 (value 2)"),
    # the accumulator map with the pair of columns (v & 1) swapped between the two halves of a word
    ("S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 16@reg)]", "packs values"),
])
def test_register_a_declines(layout, words):
    """A register tile whose fragment is not wgmma's: the dispatch's failure table names the check."""
    from tile_mlir.errors import TileMLIRError
    from tile_mlir.driver.compiler import compile as tile_compile

    with pytest.raises(TileMLIRError) as e:
        tile_compile(_kernel("rs_bad", "bf16", 32, 16, layout), arch="sm_90a")
    assert "a-fragment" in str(e.value) and words in str(e.value)
