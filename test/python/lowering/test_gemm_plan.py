"""The gemm_async planners without IR (lowering/gemm_async: kinds, operand_plan, tcgen05_mma_plan, wgmma_plan)
and the descriptor encoders (lowering/smem_desc.py).

Expectations are literal: instruction-descriptor words assembled by hand from the PTX ISA's tables
(Tables 42-44, "Instruction descriptor"; the worked values of docs/gemm.md §2), the
sm_90 / sm_100 swizzle codes of CUTLASS's GmmaDescriptor / UMMA::SmemDescriptor, descriptor fields of
the canonical layouts computed from their PTX formulas, and the wgmma accumulator fragment of the PTX
ISA's figure (row 16w + l/4 + 8((v>>1)&1), column 8(v/4) + 2(l%4) + (v&1)).
"""

import pytest

from tile_mlir.layout import SwizzleMode, kmajor_layout, parse_layout
from tile_mlir.dialect.decline import Decline as PlanError
from tile_mlir.lowering.gemm_async.kinds import KINDS, derive_kind
from tile_mlir.lowering.gemm_async.operand_plan import Operand, plan_smem_operand
from tile_mlir.lowering.gemm_async.tcgen05_mma_plan import instr_desc, plan_tcgen05_mma
from tile_mlir.lowering.gemm_async.wgmma_plan import fragment_coords, plan_wgmma
from tile_mlir.lowering.smem_desc import encode_smem_desc, encode_wgmma_desc, wgmma_swizzle_code

SW = (SwizzleMode.NONE, SwizzleMode.B32, SwizzleMode.B64, SwizzleMode.B128)


def region(shape):
    return tuple((0, e) for e in shape)


def op(scope, elem, bits, layout, shape, align=1024, packing=None, reg=None):
    return Operand(scope, elem, bits, parse_layout(layout), tuple(shape), reg or region(shape), align, packing)


# -- instruction descriptors ---------------------------------------------------------------------
@pytest.mark.parametrize("kind,a,b,d,m,n,a_mn,b_mn,expected", [
    # docs/gemm.md §2's worked value: bf16 x bf16 -> f32, K-major, M=128, N=256
    ("f16", "bf16", "bf16", "f32", 128, 256, False, False, 0x08400490),
    # f16 -> f16 accumulate (dtype 0), M=64 (M>>4 = 4), N=64 (N>>3 = 8)
    ("f16", "f16", "f16", "f16", 64, 64, False, False, 4 << 24 | 8 << 17),
    # tf32: dtype F32 bit 4, a/btype TF32 = 2, transpose B (bit 16)
    ("tf32", "f32", "f32", "f32", 128, 128, False, True, 8 << 24 | 16 << 17 | 1 << 16 | 2 << 10 | 2 << 7 | 1 << 4),
    # f8f6f4: E2M3 (3) x E2M1 (5), f32 D, cta_group 2 M=256 (M>>4 = 16)
    ("f8f6f4", "f6E2M3FN", "f4E2M1FN", "f32", 256, 256, False, False, 16 << 24 | 32 << 17 | 5 << 10 | 3 << 7 | 1 << 4),
    # i8: S32 (2), S8 (1) x U8 (0), transpose A (bit 15)
    ("i8", "si8", "ui8", "i32", 128, 32, True, False, 8 << 24 | 4 << 17 | 1 << 15 | 0 << 10 | 1 << 7 | 2 << 4),
])
def test_instr_desc_dense(kind, a, b, d, m, n, a_mn, b_mn, expected):
    assert instr_desc(KINDS[kind], a, b, d, m, n, a_mn, b_mn) == expected


@pytest.mark.parametrize("kind,a,s,m,sfa_id,sfb_id,expected", [
    ("mxf4nvf4", "f4E2M1FN", "f8E4M3FN", 128, 0, 0, 0x08400480),   # §2.3 worked value (UE4M3: bit 23 = 0)
    ("mxf8f6f4", "f8E4M3FN", "f8E8M0FNU", 128, 0, 0, 0x08C00000),  # §2.3 worked value (UE8M0: bit 23 = 1)
    # SF ids: SFA at bits 29-30, SFB at bits 4-5; M = 256: M >> 7 = 2 at bit 27
    ("mxf8f6f4", "f8E5M2", "f8E8M0FNU", 256, 3, 2, 2 << 27 | 3 << 29 | 1 << 23 | 32 << 17 | 1 << 10 | 1 << 7 | 2 << 4),
    ("mxf4", "f4E2M1FN", "f8E8M0FNU", 128, 2, 2, 1 << 27 | 2 << 29 | 1 << 23 | 32 << 17 | 1 << 10 | 1 << 7 | 2 << 4),
])
def test_instr_desc_block_scaled(kind, a, s, m, sfa_id, sfb_id, expected):
    assert instr_desc(KINDS[kind], a, a, None, m, 256, False, False, s, sfa_id, sfb_id) == expected


@pytest.mark.parametrize("m", [128, 256])
def test_block_scaled_m_field_agrees_with_cutlass_for_its_ms(m):
    """PTX writes M >> 7 at bit 27, CUTLASS M >> 4 at bit 24: the same bits for M = 128 and 256 (and
    bit 26, reserved in PTX, would differ for M = 64, which block scaling does not allow)."""
    word = instr_desc(KINDS["mxf8f6f4"], "f8E4M3FN", "f8E4M3FN", None, m, 128, False, False, "f8E8M0FNU")
    assert (word >> 24) & 0x1F == m >> 4


# -- kinds -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("a,b,packed,bs,vec,sf,kind", [
    ("f32", "f32", False, False, 32, None, "tf32"), ("bf16", "bf16", False, False, 32, None, "f16"),
    ("f8E4M3FN", "f6E2M3FN", False, False, 32, None, "f8f6f4"), ("si8", "ui8", False, False, 32, None, "i8"),
    ("f8E4M3FN", "f8E4M3FN", False, True, 32, "f8E8M0FNU", "mxf8f6f4"),
    ("f4E2M1FN", "f4E2M1FN", True, True, 32, "f8E8M0FNU", "mxf4"),
    ("f4E2M1FN", "f4E2M1FN", True, True, 16, "f8E4M3FN", "mxf4nvf4"),
    ("f4E2M1FN", "f4E2M1FN", False, True, 32, "f8E8M0FNU", "mxf8f6f4"),  # padded fp4: 8-bit slots
])
def test_kind_from_element_types(a, b, packed, bs, vec, sf, kind):
    assert derive_kind(a, b, packed, bs, vec, sf, None).name == kind


def test_k_per_instruction_is_256_bits_of_a_row():
    assert {k: v.k_elems for k, v in KINDS.items()} == {"tf32": 8, "f16": 16, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32,
                                                          "mxf4": 64, "mxf4nvf4": 64}


# -- shared-memory descriptors ---------------------------------------------------------------------
def test_wgmma_and_tcgen05_descriptors_differ_in_bit_46_and_the_swizzle_field():
    """CUTLASS GmmaDescriptor (sm_90): layout_type_ 2 bits at 62 (INTERLEAVE 0, B128 1, B64 2, B32 3);
    UMMA::SmemDescriptor (sm_100): version_ = 1 at bit 46, layout_type_ 3 bits at 61 (0, 128B_BASE32B 1,
    128B 2, 64B 4, 32B 6). Start, LBO and SBO are the same fields."""
    assert [wgmma_swizzle_code(md) for md in SW] == [0, 3, 2, 1]
    assert wgmma_swizzle_code(SwizzleMode.B128_BASE32B) is None
    for md in SW:
        t5, wg = encode_smem_desc(0x400, 16, 1024, md), encode_wgmma_desc(0x400, 16, 1024, md)
        assert t5 & ((1 << 46) - 1) == wg & ((1 << 46) - 1) == 0x40 | 1 << 16 | 64 << 32
        assert t5 >> 46 & 1 == 1 and wg >> 46 & 0x7FFF == 0
        assert t5 >> 61 == 2 * (wg >> 62)  # the 2-bit codes, shifted, are the 3-bit ones
    # docs/tcgen05.md §4's worked example: K-major 128B bf16 at 0x400, SBO 1024, LBO 1
    assert encode_smem_desc(0x400, 16, 1024, SwizzleMode.B128) == 0x4000_4040_0001_0040
    with pytest.raises(ValueError, match="no 128B_base32B"):
        encode_wgmma_desc(0, 16, 1024, SwizzleMode.B128_BASE32B)


@pytest.mark.parametrize("mode", SW[1:], ids=[md.value for md in SW[1:]])
@pytest.mark.parametrize("bits", [16, 8, 32, 4])
def test_kmajor_layouts_of_the_layout_algebra_give_ptx_fields(mode, bits):
    """kmajor_layout (layout/swizzle.py, TVM's mma_shared_layout) of a 128 x (2 atoms) tile: LBO is the
    16-byte K step (no swizzle) or 'assumed 1' (swizzled), SBO the 8-row step; K-steps advance the start
    by 32 bytes inside a swizzle row and jump to the next K-atom M * pitch bytes on."""
    pitch = {SwizzleMode.B32: 32, SwizzleMode.B64: 64, SwizzleMode.B128: 128}[mode]
    k = 2 * pitch * 8 // bits
    lay = kmajor_layout([128, k], bits, mode)
    k_step = 256 // bits
    got = plan_smem_operand("A", lay, (128, k), region((128, k)), bits, k_step, 1024, None)
    assert got.major == "K" and got.swizzle is mode
    assert (got.lbo_bytes, got.sbo_bytes) == (16, 8 * pitch)
    per_row = pitch // 32
    assert got.starts == tuple((s % per_row) * 32 + (s // per_row) * 128 * pitch for s in range(k // k_step))


@pytest.mark.parametrize("mode", SW[1:], ids=[md.value for md in SW[1:]])
def test_mn_major_fields(mode):
    """MN-major swizzled ((T, w, m), (8, k)) : ((1, T, LBO), (wT, SBO)): LBO = MN-atom step, SBO = 8-K-row
    step; bf16 128 x 32."""
    pitch = {SwizzleMode.B32: 32, SwizzleMode.B64: 64, SwizzleMode.B128: 128}[mode]
    e = pitch // 2
    lay = parse_layout(f"Swizzle<{mode.value}> o S[({128 // e}, {e}, 32) : ({e * 32}, 1, {e})]")
    got = plan_smem_operand("B", lay, (128, 32), region((128, 32)), 16, 16, 1024, None)
    assert (got.major, got.lbo_bytes, got.sbo_bytes) == ("MN", e * 32 * 2, 8 * pitch)
    assert got.starts == (0, 2 * 8 * pitch)


def test_mn_major_without_swizzle_swaps_the_roles():
    """MN-major, no swizzle ((T, 1, m), (8, k)) : ((1, T, SBO), (1T, LBO)): SBO = MN core-matrix step,
    LBO = 8-K-row step (PTX: the roles exchange between swizzled and not)."""
    lay = parse_layout("S[(8, 8, 2, 8) : (64, 1, 512, 8)]")  # (m / 8, m % 8, k / 8, k % 8) of 64 x 16
    got = plan_smem_operand("A", lay, (64, 16), region((64, 16)), 16, 16, 128, None)
    assert (got.major, got.lbo_bytes, got.sbo_bytes) == ("MN", 1024, 128)


@pytest.mark.parametrize("layout,align,check", [
    ("S[(128, 16) : (16, 1)] + R[2 : 4096]", 128, "operand-layout"),
    ("Swizzle<32B> o S[(128, 16) : (16, 1)]", 128, "operand-alignment"),
    ("S[(128, 16) : (1, 128)]", 128, "operand-major"),  # MN-major where the kind forbids it
    ("S[(128, 16) : (16, 1)]", 128, "operand-swizzle"),  # row-major: rows 32 B apart, no swizzle needs 16
])
def test_planner_only_declines(layout, align, check):
    """Checks the verifier normally preempts (replicas, buffer alignment) still decline by name when the
    planner is called directly."""
    with pytest.raises(PlanError) as e:
        plan_smem_operand("A", parse_layout(layout), (128, 16), region((128, 16)), 16, 16, align, "no transpose")
    assert e.value.check == check


# -- whole plans -----------------------------------------------------------------------------------
def test_tcgen05_plan_cta_group_2_halves():
    """cta_group 2, M = 256: d and a 128 rows per CTA, b N/2 rows; the idesc names the pair's M and N."""
    a = op("shared", "bf16", 16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", (128, 16), 256)
    d = op("tmem", "f32", 32, "S[(128, 256) : (1@TLane, 1@TCol)]", (128, 256))
    p = plan_tcgen05_mma(d, a, a, 2)
    assert (p.m, p.n, p.k, p.steps) == (256, 256, 16, 1)
    assert p.idescs == (16 << 24 | 32 << 17 | 1 << 10 | 1 << 7 | 1 << 4,)


def test_tcgen05_plan_scale_factor_columns_and_ids():
    """mxf8f6f4, K = 256: 8 K-steps, 1 scale factor each: SF ids 0..3 in one 4-column group, then the
    next group 4 columns on (tmem-cp's "4x1 duplicated" layout with two 128x4 atoms along K)."""
    a = op("shared", "f8E4M3FN", 8, "Swizzle<128B> o S[(128, 2, 128) : (128, 16384, 1)]", (128, 256))
    d = op("tmem", "f32", 32, "S[(128, 128) : (1@TLane, 1@TCol)]", (128, 128))
    sf = op("tmem", "f8E8M0FNU", 8, "S[(4, 32, 2, 4) : (4@TCol, 1@TLane, 16@TCol, 1@TCol)] + R[4 : 32@TLane]", (128, 8))
    p = plan_tcgen05_mma(d, a, a, 1, None, sf, sf, 32)
    assert p.sfa_cols == p.sfb_cols == (0, 0, 0, 0, 4, 4, 4, 4)
    assert [(w >> 29) & 3 for w in p.idescs] == [0, 1, 2, 3] * 2 == [(w >> 4) & 3 for w in p.idescs]


def test_tcgen05_plan_sfb_2x2_for_m128_pair():
    """M = 128 with cta_group 2: SFB in CUTLASS's 2x2 placement (lanes n % 32 + 64 (n / (N/2)) in two
    quarters, column (n % (N/2)) / 32), tmem-cp's 64x128b.warpx2::01_23 layout."""
    a = op("shared", "f8E4M3FN", 8, "Swizzle<32B> o S[(64, 32) : (32, 1)]", (64, 32), 256)
    b = op("shared", "f8E4M3FN", 8, "Swizzle<32B> o S[(128, 32) : (32, 1)]", (128, 32), 256)
    d = op("tmem", "f32", 32, "S[(64, 2, 128) : (1@TLane, 64@TLane, 1@TCol)]", (64, 256))
    sfa = op("tmem", "f8E8M0FNU", 8, "S[(2, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]", (64, 4))
    sfb = op("tmem", "f8E8M0FNU", 8, "S[(2, 4, 32, 4) : (64@TLane, 4@TCol, 1@TLane, 1@TCol)] + R[2 : 32@TLane]",
             (256, 4))
    p = plan_tcgen05_mma(d, a, b, 2, None, sfa, sfb, 32)
    assert (p.m, p.n) == (128, 256) and p.sfb_cols == (0,)


def test_wgmma_fragment_is_the_ptx_figure():
    """Literal rows/columns of thread 0..3 of warp 0 and thread 0 of warp 1 (PTX ISA wgmma D fragment)."""
    row, col = fragment_coords(16)
    assert [(int(row[0, t, v]), int(col[0, t, v])) for t in range(2) for v in range(4)] == [
        (0, 0), (0, 1), (8, 0), (8, 1), (0, 2), (0, 3), (8, 2), (8, 3)]
    assert (int(row[0, 4, 0]), int(col[0, 4, 0])) == (1, 0)
    assert (int(row[1, 0, 4]), int(col[1, 0, 4])) == (16, 8)


def test_wgmma_plan_words_follow_the_layout():
    """The accumulator's register slots may be any permutation of the fragment's registers."""
    a = op("shared", "bf16", 16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", (64, 16), 256)
    b = op("shared", "bf16", 16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", (16, 16), 256)
    ident = op("reg", "f32", 32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]", (64, 16))
    assert plan_wgmma(ident, a, b).words == tuple(range(8))
    # the two 8-column blocks swapped in the registers: slots 4..7 hold v = 0..3
    swapped = op("reg", "f32", 32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, -4@reg, 1@laneid, 1@reg)]"
                 " + O[4@reg]", (64, 16))
    assert plan_wgmma(swapped, a, b).words == (4, 5, 6, 7, 0, 1, 2, 3)


def test_variants_list_matches_the_registry():
    from tile_mlir.lowering.dispatch import variants
    from tile_mlir.lowering.gemm_async import VARIANTS, load_variants

    load_variants()
    assert sorted(v for _, v in VARIANTS) == sorted(c.variant for c in variants("gemm_async", "cuda"))
