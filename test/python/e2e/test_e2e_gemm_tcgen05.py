"""End to end: gemm_async -> tcgen05.mma (sm_100a) -> ptxas -> tile-sim, for every kind (tf32, f16 with f16
and f32 D, f8f6f4 with 8-, 6- and 4-bit operands, i8, mxf8f6f4, mxf4, mxf4nvf4), M = 64 / 128 / 256, A from
shared or tensor memory, cta_group 1 and 2. Scale factors reach tensor memory the way a kernel moves them:
global -> shared (the 128x4 atoms) -> copy_async -> tcgen05.cp.

The kernels (e2e_gemm_kernels.tcgen05_text) split K into two gemm_async ops where K allows (accumulate false,
then true). D is read back from tensor memory by D's own layout (apply(), not the planner) and must be,
bit for bit, MMA-Sim's Blackwell model chained per K-step on the logical matrices (mma_reference; with
cta_group 2 each CTA's rows against all of B), within BOUND of the exact product for float kinds
(|D - A.B^T| <= BOUND * |A|.|B|^T elementwise; block-scaled kinds with their scales applied), and exact
for i8. The bounds state what an accumulator of at least ~f32 precision keeps (f16 D: f16's); they are
not a model of the hardware.
"""

import os

import numpy as np
import pytest


from e2e_gemm_kernels import Tc, d_from_tmem, exact_reference, random_bits, run_tcgen05, values  # noqa: E402
from e2e_kernels import find_ptxas, pack4, pack6  # noqa: E402

PTXAS = find_ptxas()


def km(rows, k, elem, bits, sw, packing=None):
    """K-major shared [rows, k]: sw-byte swizzle rows, K beyond one row in the next column of atoms (bits:
    shared-memory bits per element, 8 for the padded 6- / 4-bit forms)."""
    e = sw * 8 // bits
    lay = f"S[({rows}, {k}) : ({e}, 1)]" if k <= e else f"S[({rows}, {k // e}, {e}) : ({e}, {rows * e}, 1)]"
    pk = f", packing {packing}" if packing else ""
    return f'!tile.buffer<shared, {rows}x{k}x{elem}, "Swizzle<{sw}B> o {lay}", align {sw * 8}{pk}>'


def mn(rows, k, elem, bits, sw):
    e = sw * 8 // bits
    lay = f"S[({rows}, {k}) : (1, {e})]" if rows <= e else f"S[({rows // e}, {e}, {k}) : ({e * k}, 1, {e})]"
    return f'!tile.buffer<shared, {rows}x{k}x{elem}, "Swizzle<{sw}B> o {lay}", align {sw * 8}>'


def dt(rows, n, elem="f32", layout=None):
    step = 2 if elem == "f16" else 1
    return f'!tile.buffer<tmem, {rows}x{n}x{elem}, "{layout or f"S[({rows}, {n}) : (1@TLane, {step}@TCol)]"}">'


F64 = "S[(4, 16, {n}) : (32@TLane, 1@TLane, {s}@TCol)]"          # M = 64: PTX data-path layout F
B_PAIR = "S[(64, 2, {h}) : (1@TLane, 64@TLane, 1@TCol)]"          # M = 128, cta_group 2: layout B
A_TMEM = '!tile.buffer<tmem, 128x{k}xbf16, "S[(128, {k}) : (1@TLane, 1@TCol)] + O[{off}@TCol]">'

CASES = [
    Tc("tf32", "f32", "f32", "f32", km(128, 16, "f32", 32, 32), km(16, 16, "f32", 32, 32), dt(128, 16), 16, parts=2,
       ncols=32),
    Tc("bf16_mn_major", "bf16", "bf16", "f32", mn(128, 32, "bf16", 16, 64), mn(32, 32, "bf16", 16, 64), dt(128, 32),
       32, parts=2, ncols=32),
    Tc("f16_f16d_m64", "f16", "f16", "f16", km(64, 16, "f16", 16, 32), km(16, 16, "f16", 16, 32),
       dt(64, 16, "f16", F64.format(n=16, s=2)), 16, ncols=32),
    Tc("e4m3_e5m2", "f8E4M3FN", "f8E5M2", "f32", km(128, 64, "f8E4M3FN", 8, 64), km(16, 64, "f8E5M2", 8, 64),
       dt(128, 16), 64, parts=2, ncols=32),
    Tc("e2m3_b6_x_e2m1_b4", "f6E2M3FN", "f4E2M1FN", "f32", km(128, 32, "f6E2M3FN", 8, 32, "b6x16_p32"),
       km(16, 32, "f4E2M1FN", 8, 32, "b4x16_p64"), dt(128, 16), 32, ncols=32),
    Tc("i8", "si8", "ui8", "i32", km(128, 64, "si8", 8, 128), km(32, 64, "ui8", 8, 128), dt(128, 32, "i32"), 64,
       parts=2, ncols=32),
    Tc("a_in_tmem", "bf16", "bf16", "f32", A_TMEM.format(k=32, off=64), km(16, 32, "bf16", 16, 64), dt(128, 16), 32,
       parts=2, ncols=64, a_smem_t=km(128, 32, "bf16", 16, 64)),
    Tc("pair_m256", "bf16", "bf16", "f32", km(128, 16, "bf16", 16, 32), km(16, 16, "bf16", 16, 32), dt(128, 32), 16,
       cta_group=2, ncols=32),
    Tc("pair_m128", "bf16", "bf16", "f32", km(64, 32, "bf16", 16, 64), km(16, 32, "bf16", 16, 64),
       dt(64, 32, layout=B_PAIR.format(h=16)), 32, cta_group=2, parts=2, ncols=32),
    Tc("mxf8f6f4", "f8E4M3FN", "f8E4M3FN", "f32", km(128, 128, "f8E4M3FN", 8, 128), km(32, 128, "f8E4M3FN", 8, 128),
       dt(128, 32), 128, parts=2, sf="f8E8M0FNU", ncols=64),
    Tc("mxf4", "f4E2M1FN", "f4E2M1FN", "f32", km(128, 128, "f4E2M1FN", 4, 64), km(32, 128, "f4E2M1FN", 4, 64),
       dt(128, 32), 128, parts=2, sf="f8E8M0FNU", ncols=64, a_bytes=64, b_bytes=64),
    Tc("nvfp4_block16", "f4E2M1FN", "f4E2M1FN", "f32", km(128, 64, "f4E2M1FN", 4, 32), km(32, 64, "f4E2M1FN", 4, 32),
       dt(128, 32), 64, sf="f8E4M3FN", scale_vec=16, ncols=64, a_bytes=32, b_bytes=32),
    Tc("mx_pair_m256", "f8E4M3FN", "f8E4M3FN", "f32", km(128, 128, "f8E4M3FN", 8, 128),
       km(32, 128, "f8E4M3FN", 8, 128), dt(128, 64), 128, cta_group=2, sf="f8E8M0FNU", ncols=128),
]
KIND = {"mxf8f6f4": "mxf8f6f4", "mxf4": "mxf4", "nvfp4_block16": "mxf4nvf4", "mx_pair_m256": "mxf8f6f4"}
BOUND = {"f16": 2.0 ** -9, "f32": 2.0 ** -20}


def _global(elem, packing, bits):
    """How the global parameter holds the logical tile (packed 6- / 4-bit rows)."""
    if elem == "f6E2M3FN":
        return pack6(bits)
    if elem == "f4E2M1FN":
        return pack4(bits).reshape(bits.shape[0], -1)
    return bits


def _model_bits(elem, kind, bits):
    """The logical operand in mma_numerics' encoding: 4-bit e2m1 of f8f6f4 in an 8-bit container at bits 5..2
    (what tcgen05.cp's b4x16_p64 decompression writes, docs/emulator.md A2); packed e2m1 of mxf4* as is."""
    return bits.astype(np.uint32) << 2 if elem == "f4E2M1FN" and kind in ("f8f6f4", "mxf8f6f4") else bits


def _scales(elem, rng, shape):
    if elem == "f8E8M0FNU":  # 2^-3 .. 2^3
        return rng.integers(124, 131, size=shape).astype(np.uint8)
    import ml_dtypes  # UE4M3: positive E4M3 values 0.25 .. 4
    return (rng.uniform(0.25, 4, size=shape).astype(ml_dtypes.float8_e4m3fn)).view(np.uint8)


def _scale_values(elem, s):
    import ml_dtypes
    if elem == "f8E8M0FNU":
        return np.exp2(s.astype(np.float64) - 127)
    return s.view(ml_dtypes.float8_e4m3fn).astype(np.float64)


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_tcgen05_mma_on_tile_sim(c):
    from tile_mlir.sim import mma_numerics

    from e2e_gemm_kernels import ELEM, mma_reference

    rng = np.random.default_rng(sum(map(ord, c.name)))
    cg = c.cta_group
    rows_a = int(c.a_t.split(", ")[1].split("x")[0])
    rows_b = int(c.b_t.split(", ")[1].split("x")[0])
    kind = KIND.get(c.name) or {"f32": "tf32", "bf16": "f16", "f16": "f16", "si8": "i8"}.get(c.a_elem, "f8f6f4")
    a = [random_bits(c.a_elem, (rows_a, c.k), rng) for _ in range(cg)]
    b = [random_bits(c.b_elem, (rows_b, c.k), rng) for _ in range(cg)]
    b_all = np.concatenate(b)  # B's N rows: the even CTA's first
    sfa = sfb = None
    if c.sf:
        nk = c.k // c.scale_vec
        sfa = [_scales(c.sf, rng, (rows_a, nk)) for _ in range(cg)]
        sfb = [_scales(c.sf, rng, (rows_b * cg, nk))] * cg  # each CTA holds SFB for all N (docs/gemm.md §5)
    pad = (lambda x: np.concatenate([x, np.zeros((-(-len(x) // 128) * 128 - len(x), x.shape[1]), x.dtype)]))
    imgs = run_tcgen05(c, [_global(c.a_elem, None, x) for x in a], [_global(c.b_elem, None, x) for x in b],
                       c.sf and [pad(x) for x in sfa], c.sf and [pad(x) for x in sfb], PTXAS)
    n = rows_b * cg
    for r in range(cg):
        got = d_from_tmem(c.d_t, imgs[r])
        zero = np.zeros((rows_a, n), np.uint32)
        am, bm = _model_bits(c.a_elem, kind, a[r]), _model_bits(c.b_elem, kind, b_all)
        if c.sf:
            want = zero
            k_step = 256 // (4 if kind != "mxf8f6f4" else 8)
            nsf = k_step // c.scale_vec
            for s in range(c.k // k_step):
                ks, js = slice(s * k_step, (s + 1) * k_step), slice(s * nsf, (s + 1) * nsf)
                want = mma_numerics.tcgen05(kind, "f32", ELEM[c.a_elem][1] + ("x2" if kind != "mxf8f6f4" else ""),
                                            ELEM[c.b_elem][1] + ("x2" if kind != "mxf8f6f4" else ""),
                                            am[:, ks].astype(np.uint32), bm[:, ks].T.astype(np.uint32), want,
                                            m=128, n=n, k=k_step, sfa=sfa[r][:, js], sfb=sfb[r][:, js].T,
                                            block=c.scale_vec, stype="ue8m0" if c.sf == "f8E8M0FNU" else "ue4m3")
        else:
            want = mma_reference("tcgen05", c.a_elem, c.b_elem, c.d_elem, am, bm, zero, kind=kind,
                                 m=64 if rows_a == 64 else 128)
        assert np.array_equal(got, want), f"CTA {r}: {int((got != want).sum())} of {got.size} elements differ"
        if c.d_elem == "i32":
            exact = exact_reference(c.a_elem, c.b_elem, a[r], b_all)
            assert np.array_equal(got.view(np.int32).astype(np.int64), (exact + 2 ** 31) % 2 ** 32 - 2 ** 31)
            continue
        va, vb = values(c.a_elem, a[r]), values(c.b_elem, b_all)
        if c.sf:
            va = va * np.repeat(_scale_values(c.sf, sfa[r]), c.scale_vec, axis=1)
            vb = vb * np.repeat(_scale_values(c.sf, sfb[r]), c.scale_vec, axis=1)
        exact, scale = va @ vb.T, np.abs(va) @ np.abs(vb).T
        d = got.astype(np.uint16).view(np.float16) if c.d_elem == "f16" else got.view(np.float32)
        assert (np.abs(d.astype(np.float64) - exact) <= BOUND[c.d_elem] * scale + 1e-30).all()
