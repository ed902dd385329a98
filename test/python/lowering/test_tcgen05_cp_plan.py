"""Tests for the tcgen05.cp.32x128b.warpx4 planner (tile_mlir.lowering.copy_async.tcgen05_cp_plan).

Expected values are derived by hand in the comments (bytes unless said otherwise; tmem columns are 32-bit
columns). The seed cases are TVM's test_smem_tmem.py at bb6f8aec55. A last test replays every accepted
plan through a model of the instruction written from docs/tcgen05.md §6/§7, with its own swizzle,
and compares with the two layouts element by element.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiers import examples  # test/python/tiers.py: the property tests' size in each tier
from tile_mlir.dialect.decline import Decline as PlanError
from tile_mlir.layout import (ComposedLayout, R, S, SwizzleMode, TCol, TLane, kmajor_layout, m,
                              parse_layout)
from tile_mlir.lowering.copy_async.tcgen05_cp_plan import (Cp, MiddleIter, Tcgen05CpPlan,
                                                           cp_element_format, desc_swizzle_code,
                                                           encode_smem_desc, plan_tcgen05_cp)

SW = SwizzleMode
WARPX4 = R[4 : 32 @ TLane]
T_BASIC = S[(32, 16) : (1 @ TLane, 1 @ TCol)] + WARPX4
T_BASIC_ARGS = (T_BASIC, [32, 16], [(0, 32), (0, 16)])


def full(shape):
    return [(0, d) for d in shape]


def tmem_2d(rows_cols_shape):
    rows, cols = rows_cols_shape
    return S[(rows, cols) : (1 @ TLane, 1 @ TCol)] + WARPX4


# (id, src layout, src shape, src region, (dst layout, dst shape, dst region), elem_bits,
#  expected (swizzle, SBO, row pitch, cps))
ACCEPTED = [
    # Seed single-cp cases, uint8 into T_BASIC. Rows are 16 B of one cp; SBO = 8 * row pitch.
    # 32 rows x 16 B contiguous: rows (4, 8):(128, 16) -> SBO 128, P 16 -> none.
    ("sw0_plain_atom_aligned", S[(32, 16) : (16, 1)], [32, 16], [(0, 32), (0, 16)], T_BASIC_ARGS, 8,
     (SW.NONE, 128, 16, ((0, 0),))),
    # K-major atoms: rows P = 32/64/128 B apart -> SBO 8P = 256/512/1024, start 0.
    ("sw1_32B_atom", kmajor_layout([32, 32], 8, SW.B32), [32, 32], [(0, 32), (0, 16)], T_BASIC_ARGS, 8,
     (SW.B32, 256, 32, ((0, 0),))),
    ("sw2_64B_atom", kmajor_layout([32, 64], 8, SW.B64), [32, 64], [(0, 32), (0, 16)], T_BASIC_ARGS, 8,
     (SW.B64, 512, 64, ((0, 0),))),
    ("sw3_128B_atom", kmajor_layout([32, 128], 8, SW.B128), [32, 128], [(0, 32), (0, 16)], T_BASIC_ARGS, 8,
     (SW.B128, 1024, 128, ((0, 0),))),
    ("sw3_64x128_corner", kmajor_layout([64, 128], 8, SW.B128), [64, 128], [(0, 32), (0, 16)],
     T_BASIC_ARGS, 8, (SW.B128, 1024, 128, ((0, 0),))),
    # rows 8:40 start at row 8 = 8 * 128 B = 1024, one whole 128B atom.
    ("sw3_64x128_atom_row_8", kmajor_layout([64, 128], 8, SW.B128), [64, 128], [(8, 40), (0, 16)],
     T_BASIC_ARGS, 8, (SW.B128, 1024, 128, ((1024, 0),))),
    # K = (4, 64):(2048, 1); cols 64:80 are K-atom 1 -> 1 * 32 rows * 64 B = 2048.
    ("sw2_32x256_col_64", kmajor_layout([32, 256], 8, SW.B64), [32, 256], [(0, 32), (64, 80)],
     T_BASIC_ARGS, 8, (SW.B64, 512, 64, ((2048, 0),))),
    # rows (8, 8):(128, 16) fuse to (64, 16); rows 4:36 start at 4 * 16 = 64 (16 B aligned, no swizzle).
    ("sw0_M_atom_major_4_0", S[(8, 8, 2, 16) : (128, 16, 1024, 1)], [64, 32], [(4, 36), (0, 16)],
     T_BASIC_ARGS, 8, (SW.NONE, 128, 16, ((64, 0),))),
    # Four stacked 32x16 tiles: tile t at 512 t in smem and 16 t uint8 = 4 t columns in tmem.
    ("multi_cp_4tiles", S[(4, 32, 16) : (512, 16, 1)], [4, 32, 16], full([4, 32, 16]),
     (S[(4, 32, 16) : (16 @ TCol, 1 @ TLane, 1 @ TCol)] + WARPX4, [4, 32, 16], full([4, 32, 16])), 8,
     (SW.NONE, 128, 16, ((0, 0), (512, 4), (1024, 8), (1536, 12)))),
    # nvfp4 scale factors. tmem canonicalizes and permutes to (32, 1@TLane), (128, 1@TCol): middle
    # (8, 16@TCol). Source permuted like it: rows (32, 16), middle (4, 512), (2, 2048), chunk (16, 1).
    # Union of cumulative bounds {8} | {4, 8} -> middles (4, 2): tmem (4, 32@TCol), (2, 16@TCol) =
    # 8 and 4 columns; source 512 and 2048 B. cps: (512 i + 2048 j, 8 i + 4 j), i < 4, j < 2.
    ("align_middle_nvfp4_sf", S[(2, 4, 32, 4, 4) : (2048, 4, 16, 512, 1)], [256, 16], full([256, 16]),
     (S[(2, 4, 32, 4, 4) : (16 @ TCol, 4 @ TCol, 1 @ TLane, 32 @ TCol, 1 @ TCol)] + WARPX4, [256, 16],
      full([256, 16])), 8,
     (SW.NONE, 128, 16, ((0, 0), (2048, 4), (512, 8), (2560, 12), (1024, 16), (3072, 20), (1536, 24),
                         (3584, 28)))),
    # Beyond TVM. bf16 [32, 8]: 8 elements = 16 B per row, 4 columns.
    ("bf16_32x8", S[(32, 8) : (8, 1)], [32, 8], full([32, 8]), (tmem_2d([32, 8]), [32, 8], full([32, 8])),
     16, (SW.NONE, 128, 16, ((0, 0),))),
    # f32 [32, 4]: 4 elements = 16 B per row.
    ("f32_32x4", S[(32, 4) : (4, 1)], [32, 4], full([32, 4]), (tmem_2d([32, 4]), [32, 4], full([32, 4])),
     32, (SW.NONE, 128, 16, ((0, 0),))),
    # 4-bit [32, 32]: 32 elements = 16 B per row; tmem 32 elements = 4 columns (8 per column).
    ("u4_32x32", S[(32, 32) : (32, 1)], [32, 32], full([32, 32]),
     (tmem_2d([32, 32]), [32, 32], full([32, 32])), 4, (SW.NONE, 128, 16, ((0, 0),))),
    # 4-bit, 64B swizzle: atom K = 128 elements; K = (2, 128):(4096, 1); cols 128:160 start at 4096
    # elements = 2048 B, a multiple of the 512 B atom.
    ("u4_sw2_col_128", kmajor_layout([32, 256], 4, SW.B64), [32, 256], [(0, 32), (128, 160)],
     (tmem_2d([32, 32]), [32, 32], full([32, 32])), 4, (SW.B64, 512, 64, ((2048, 0),))),
    # bf16 [32, 64] 128B: rows 128 B; 8 cps step 16 B along K inside row 0 of the atom, 4 columns each.
    ("bf16_sw3_32x64_8cps", kmajor_layout([32, 64], 16, SW.B128), [32, 64], full([32, 64]),
     (tmem_2d([32, 64]), [32, 64], full([32, 64])), 16,
     (SW.B128, 1024, 128, tuple((16 * i, 4 * i) for i in range(8)))),
    # uint8 [32, 128] 64B: K = (2, 64):(2048, 1). tmem middle (8, 16@TCol) pairs with the source's
    # (2, 2048), (4, 16): cps (2048 i + 16 j, 16 i + 4 j).
    ("u8_sw2_32x128_8cps", kmajor_layout([32, 128], 8, SW.B64), [32, 128], full([32, 128]),
     (tmem_2d([32, 128]), [32, 128], full([32, 128])), 8,
     (SW.B64, 512, 64, tuple((2048 * i + 16 * j, 16 * i + 4 * j) for i in range(2) for j in range(4)))),
    # tmem region at column 16 (uint8) of a [32, 48] buffer: 16 elements / 4 per column = column 4.
    ("tmem_col_offset_u8", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]),
     (tmem_2d([32, 48]), [32, 48], [(0, 32), (16, 32)]), 8, (SW.NONE, 128, 16, ((0, 4),))),
    # f32: tmem columns 8:12 of [32, 16] -> column 8.
    ("tmem_col_offset_f32", S[(32, 4) : (4, 1)], [32, 4], full([32, 4]),
     (tmem_2d([32, 16]), [32, 16], [(0, 32), (8, 12)]), 32, (SW.NONE, 128, 16, ((0, 8),))),
    # A matched broadcast: both sides repeat a [32, 16] tile twice with stride 0; one cp remains.
    ("broadcast_matched", S[(2, 32, 16) : (0, 16, 1)], [2, 32, 16], full([2, 32, 16]),
     (S[(2, 32, 16) : (0 @ TCol, 1 @ TLane, 1 @ TCol)] + WARPX4, [2, 32, 16], full([2, 32, 16])), 8,
     (SW.NONE, 128, 16, ((0, 0),))),
]


def _plan(src, src_shape, src_region, dst_args, bits, cta_group=1, buffer_swizzle=None):
    dst, dst_shape, dst_region = dst_args
    return plan_tcgen05_cp(src, src_shape, src_region, buffer_swizzle, dst, dst_shape, dst_region, bits,
                           cta_group)


@pytest.mark.parametrize("src,src_shape,src_region,dst_args,bits,expected",
                         [pytest.param(*c[1:], id=c[0]) for c in ACCEPTED])
def test_plan(src, src_shape, src_region, dst_args, bits, expected):
    swizzle, sbo, pitch, cps = expected
    plan = _plan(src, src_shape, src_region, dst_args, bits)
    got = tuple((c.src_offset, c.col) for c in plan.cps)
    assert (plan.swizzle, plan.sbo_bytes, plan.row_pitch_bytes, got) == (swizzle, sbo, pitch, cps)
    assert (plan.start_offset_bytes, plan.tmem_col0) == cps[0] and all(c.lane == 0 for c in plan.cps)
    assert plan.lbo_bytes == 0 and plan.elem_bits == bits and plan.num_cps == len(cps)
    assert (plan.shape, plan.multicast, plan.cta_group) == ("32x128b", "warpx4", 1)


def test_plan_middle_iters_documented():
    c = next(c for c in ACCEPTED if c[0] == "align_middle_nvfp4_sf")
    plan = _plan(*c[1:6])
    assert plan.middle == (MiddleIter(4, 512, 8), MiddleIter(2, 2048, 4))


def test_cta_group_2_same_plan():
    for c in ACCEPTED:
        one, two = _plan(*c[1:6]), _plan(*c[1:6], cta_group=2)
        assert two.cta_group == 2
        assert (one.swizzle, one.sbo_bytes, one.cps, one.middle) == (two.swizzle, two.sbo_bytes, two.cps,
                                                                    two.middle)


def test_text_layouts_plan_alike():
    """The layouts may come from their #tile.layout text."""
    src = parse_layout("Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]")
    dst = parse_layout("S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]")
    plan = plan_tcgen05_cp(src, [32, 256], [(0, 32), (64, 80)], SW.B64, dst, [32, 16], full([32, 16]), 8, 1)
    assert (plan.swizzle, plan.sbo_bytes, plan.start_offset_bytes) == (SW.B64, 512, 2048)


# (id, src, src shape, src region, dst args, bits, buffer swizzle, cta_group, check, message fragment)
REJECTED = [
    # rows 4:36 start at 4 * 128 = 512 B, not a multiple of the 1024 B 128B atom.
    ("sw3_mid_atom_row", kmajor_layout([64, 128], 8, SW.B128), [64, 128], [(4, 36), (0, 16)], T_BASIC_ARGS,
     8, None, 1, "alignment.src_start", "source start 512 B is not aligned to the 1024 B 128B swizzle atom"),
    # cols 32:48 start at 32 B inside a 512 B 64B atom.
    ("sw2_mid_atom_col", kmajor_layout([32, 128], 8, SW.B64), [32, 128], [(0, 32), (32, 48)], T_BASIC_ARGS,
     8, None, 1, "alignment.src_start", "source start 32 B is not aligned to the 512 B 64B swizzle atom"),
    # rows 64 B apart need 64B swizzle; the buffer is plain.
    ("sw0_row_stride_64", S[(64, 64) : (64, 1)], [64, 64], [(4, 36), (0, 16)], T_BASIC_ARGS, 8, None, 1,
     "swizzle", "row pitch 64 B implies 64B swizzle but the buffer has none"),
    ("buffer_swizzle_disagrees", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]), T_BASIC_ARGS, 8, SW.B128,
     1, "swizzle", "the buffer declares 128B swizzle but its layout composes no swizzle"),
    # 32 rows without a multicast replica: no shape writes 32 lanes once
    ("router_missing", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]),
     (S[(32, 16) : (1 @ TLane, 1 @ TCol)], [32, 16], full([32, 16])), 8, None, 1,
     "router", "tmem rows [(32, 1@TLane)] with no replica fit no tcgen05.cp shape: need [(128, 1@TLane)] "
               "(.128x256b, .128x128b) or [(4, 32@TLane)] (.4x256b)"),
    # warpx2::02_13's replica, but 32 rows: it copies 64
    ("router_replica_rows_disagree", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]),
     (S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[2 : 64 @ TLane], [32, 16], full([32, 16])), 8, None, 1,
     "router", "need [(64, 1@TLane)] (.64x128b.warpx2::02_13)"),
    ("router_no_such_multicast", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]),
     (S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[2 : 16 @ TLane], [32, 16], full([32, 16])), 8, None, 1,
     "router", "tmem replica R[2 : 16@TLane] is no tcgen05.cp multicast"),
    ("router_lane_offset", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]),
     (tmem_2d([64, 16]), [64, 16], [(32, 64), (0, 16)]), 8, None, 1, "router", "lane offset must be 0"),
    # uint8 column offset 2 elements = half a 32-bit column.
    ("tmem_col_half_column", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]),
     (tmem_2d([32, 32]), [32, 32], [(0, 32), (2, 18)]), 8, None, 1, "alignment.tmem_col",
     "tmem column offset of 2 8-bit elements is not a whole 32-bit column"),
    # uint8 column offset 4 elements = column 1, not a multiple of 4 columns.
    ("tmem_col_not_multiple_of_4", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]),
     (tmem_2d([32, 32]), [32, 32], [(0, 32), (4, 20)]), 8, None, 1, "alignment.tmem_col",
     "writes tmem column 1, not a multiple of 4"),
    ("dtype_6_bits", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]), T_BASIC_ARGS, 6, None, 1, "dtype",
     "6-bit elements are not supported"),
    ("cta_group_3", S[(32, 16) : (16, 1)], [32, 16], full([32, 16]), T_BASIC_ARGS, 8, None, 3, "cta_group",
     "cta_group must be 1 or 2"),
    # column-major source: a row's 16 elements are 32 apart, not contiguous.
    ("src_chunk_not_contiguous", S[(32, 16) : (1, 32)], [32, 16], full([32, 16]), T_BASIC_ARGS, 8, None, 1,
     "group", "source chunk must be 16 contiguous elements"),
    # tmem broadcasts its outer dim, the source does not.
    ("broadcast_mismatch", S[(2, 32, 16) : (512, 16, 1)], [2, 32, 16], full([2, 32, 16]),
     (S[(2, 32, 16) : (0 @ TCol, 1 @ TLane, 1 @ TCol)] + WARPX4, [2, 32, 16], full([2, 32, 16])), 8, None,
     1, "broadcast", "stride-0 pieces differ"),
    # cols 8:24 wrap around the inner (16, 1) iter of K = (2, 16):(512, 1).
    ("src_region_not_strided", S[(32, 2, 16) : (16, 512, 1)], [32, 32], [(0, 32), (8, 24)], T_BASIC_ARGS, 8,
     None, 1, "region", "source: region [8, 24) of dim 1 cuts iter (16, 1)"),
    # SBO 1536 with 128B swizzle is not a whole number of 1024 B atoms.
    ("sbo_not_atom_multiple", ComposedLayout(SW.B128, S[(4, 8, 16) : (1536, 128, 1)]), [32, 16],
     full([32, 16]), T_BASIC_ARGS, 8, None, 1, "alignment.sbo", "SBO 1536 B is not a multiple of the 1024 B"),
    ("sbo_not_16B", S[(4, 8, 16) : (136, 16, 1)], [32, 16], full([32, 16]), T_BASIC_ARGS, 8, None, 1,
     "alignment.sbo", "SBO 136 B must be a 16-byte multiple"),
    # middle step 520 B is not 16 B aligned.
    ("middle_step_not_16B", S[(32, 2, 16) : (16, 520, 1)], [32, 32], full([32, 32]),
     (tmem_2d([32, 32]), [32, 32], full([32, 32])), 8, None, 1, "alignment.middle",
     "middle 0: source step 520 B is not 16 B aligned"),
    # 128B swizzle, middle step 144 B: the second cp starts in row 1 of the atom.
    ("middle_leaves_atom_row_0", ComposedLayout(SW.B128, S[(32, 2, 16) : (128, 144, 1)]), [32, 32],
     full([32, 32]), (tmem_2d([32, 32]), [32, 32], full([32, 32])), 8, None, 1, "alignment.middle",
     "starts at source byte 144, outside row 0 of a 1024 B 128B swizzle atom"),
    ("src_not_on_m", S[(32, 16) : (1 @ TCol, 32)], [32, 16], full([32, 16]), T_BASIC_ARGS, 8, None, 1,
     "axes", "must live on axis m only"),
    ("row_pitch_256", S[(32, 16) : (256, 1)], [32, 16], full([32, 16]), T_BASIC_ARGS, 8, None, 1, "swizzle",
     "row pitch 256 B is not 16, 32, 64 or 128 B"),
    ("too_few_elements", S[(32, 8) : (8, 1)], [32, 8], full([32, 8]), (tmem_2d([32, 8]), [32, 8],
     full([32, 8])), 8, None, 1, "group", "not a multiple of 32 rows x 16 elements"),
]


@pytest.mark.parametrize("src,src_shape,src_region,dst_args,bits,buffer_swizzle,cta_group,check,message",
                         [pytest.param(*c[1:], id=c[0]) for c in REJECTED])
def test_rejected(src, src_shape, src_region, dst_args, bits, buffer_swizzle, cta_group, check, message):
    with pytest.raises(PlanError) as info:
        _plan(src, src_shape, src_region, dst_args, bits, cta_group, buffer_swizzle)
    assert info.value.check == check
    assert message in info.value.reason
    assert str(info.value) == f"{check}: {info.value.reason}"
    assert not isinstance(info.value, ValueError)  # a rejection is not a bug


# -- descriptor ---------------------------------------------------------------------------------------------
def test_desc_swizzle_codes():
    assert [desc_swizzle_code(md) for md in SW] == [0, 6, 4, 2, 1]


@pytest.mark.parametrize("start,lbo,sbo,mode,expected", [
    # docs/tcgen05.md §4 worked example: 0x400 >> 4 = 0x40, LBO 16 -> 1, SBO 1024 -> 64, bit 46,
    # 128B = 2 << 61.
    (0x400, 16, 1024, SW.B128, 0x4000_4040_0001_0040),
    (0, 0, 128, SW.NONE, (8 << 32) | (1 << 46)),
    (2048, 0, 512, SW.B64, 128 | (32 << 32) | (1 << 46) | (4 << 61)),
    (0x3FFF0, 0, 256, SW.B32, 0x3FFF | (16 << 32) | (1 << 46) | (6 << 61)),
])
def test_encode_smem_desc(start, lbo, sbo, mode, expected):
    assert encode_smem_desc(start, lbo, sbo, mode) == expected


@pytest.mark.parametrize("start,lbo,sbo", [(8, 0, 128), (0, 0, 1 << 18), (-16, 0, 128)])
def test_encode_smem_desc_rejects_unencodable(start, lbo, sbo):
    with pytest.raises(ValueError):
        encode_smem_desc(start, lbo, sbo, SW.NONE)


def test_descriptor_template():
    c = next(c for c in ACCEPTED if c[0] == "sw2_32x256_col_64")
    plan = _plan(*c[1:6])
    assert plan.descriptor_template() == (32 << 32) | (1 << 46) | (4 << 61)
    assert isinstance(plan, Tcgen05CpPlan)


# -- the plan, replayed through a model of the instruction --------------------------------------------------
_MASK = {SW.NONE: 0, SW.B32: 1, SW.B64: 3, SW.B128: 7}


def _swz(mode, a):  # docs/tcgen05.md §5 compact form, independent of tile_mlir.layout.swizzle_bytes
    return a ^ (((a >> 7) & _MASK[mode]) << 4)


def _replay(plan):
    """{(lane, tmem unit): smem unit} written by the plan's cps, in units of g = gcd(bits, 8) bits (smem
    buffer at address 0; tmem unit counts from bit 0 of the tmem buffer's column 0)."""
    g = math.gcd(plan.elem_bits, 8)
    written = {}
    for cp in plan.cps:
        src, col = cp.src_offset, cp.col
        for r in range(32):
            lin = src + (r // 8) * plan.sbo_bytes + (r % 8) * plan.row_pitch_bytes
            phys = _swz(plan.swizzle, lin)
            for k in range(4):
                for u in range(128 // g):
                    written[(r + 32 * k, col * 32 // g + u)] = phys * 8 // g + u
    return written


def _expected(src, src_shape, src_region, dst_args, bits):
    """{(lane, tmem unit): smem unit} that the two layouts ask for (tmem bit = TCol * bits)."""
    g = math.gcd(bits, 8)
    dst, dst_shape, dst_region = dst_args
    rshape = [e - b for b, e in src_region]
    dshape = [e - b for b, e in dst_region]
    out = {}
    for i in range(math.prod(rshape)):
        sc, dc, j = [], [], i
        for e in reversed(rshape):
            j, c = divmod(j, e)
            sc.append(c)
        sc = tuple(c + b for c, (b, _) in zip(reversed(sc), src_region))
        j = i
        for e in reversed(dshape):
            j, c = divmod(j, e)
            dc.append(c)
        dc = tuple(c + b for c, (b, _) in zip(reversed(dc), dst_region))
        if isinstance(src, ComposedLayout):
            sbits = src.apply_bits(sc, src_shape, bits)[0]
        else:
            sbits = src.apply(sc, src_shape)[0][m] * bits
        for d in dst.apply(dc, dst_shape):
            for u in range(bits // g):
                out[(d[TLane], d[TCol] * bits // g + u)] = sbits // g + u
    return out


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in ACCEPTED])
def test_plan_moves_the_right_data(case):
    _, src, src_shape, src_region, dst_args, bits, _ = case
    plan = _plan(src, src_shape, src_region, dst_args, bits)
    assert _replay(plan) == _expected(src, src_shape, src_region, dst_args, bits)


# -- random K-major tiles: every plan either is rejected or moves the right data -----------------------------
@pytest.mark.tiered
@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_random_kmajor_tiles(data):
    bits = data.draw(st.sampled_from([4, 8, 16, 32]), "bits")
    mode = data.draw(st.sampled_from([SW.NONE, SW.B32, SW.B64, SW.B128]), "mode")
    epc = 128 // bits
    atom_k = max(epc, {SW.NONE: 16, SW.B32: 32, SW.B64: 64, SW.B128: 128}[mode] * 8 // bits)
    rows = data.draw(st.sampled_from([32, 64]), "rows")
    k = atom_k * data.draw(st.integers(1, 2), "k_atoms")
    src = kmajor_layout([rows, k], bits, mode)
    r0 = data.draw(st.sampled_from([0, 8, 4, rows - 32]), "r0")
    n_chunks = data.draw(st.integers(1, min(4, k // epc)), "n_chunks")
    last = k - n_chunks * epc
    c0 = data.draw(st.sampled_from(sorted({0, epc, atom_k, last, epc // 2} & set(range(last + 1)))), "c0")
    region = [(r0, r0 + 32), (c0, c0 + n_chunks * epc)]
    cols = n_chunks * epc
    dst_args = (tmem_2d([32, cols]), [32, cols], full([32, cols]))
    try:
        plan = _plan(src, [rows, k], region, dst_args, bits, buffer_swizzle=mode)
    except PlanError as e:
        # plain row-major rows wider than 16 B have a row pitch that implies a swizzle the buffer lacks
        plain_wide = mode is SW.NONE and k * bits // 8 != 16
        assert e.check in ("alignment.src_start", "alignment.middle", "region") or (
            plain_wide and e.check == "swizzle"), str(e)
        return
    assert plan.swizzle is mode and plan.num_cps == n_chunks
    assert _replay(plan) == _expected(src, [rows, k], region, dst_args, bits)


@pytest.mark.parametrize("bits,packing,expected", [
    (4, None, (4, None)), (8, None, (8, None)), (16, None, (16, None)), (32, None, (32, None)),
    # 16 six-bit elements per 16-byte .b6x16_p32 unit in, 16 8-bit containers out: 8-bit geometry
    (6, "b6x16_p32", (8, "b6x16_p32")),
    # 4-bit elements padded to 8-bit containers: 16 in 8 bytes + 8 bytes of padding per unit, decompressed
    (4, "b4x16_p64", (8, "b4x16_p64")),
])
def test_cp_element_format(bits, packing, expected):
    assert cp_element_format(bits, packing) == expected


@pytest.mark.parametrize("bits,packing,message", [
    (6, None, "declare the shared buffer with packing b6x16_p32"),
    (64, None, "64-bit elements are not supported"),
    (1, None, "1-bit elements are not supported"),
])
def test_cp_element_format_rejects(bits, packing, message):
    with pytest.raises(PlanError) as ei:
        cp_element_format(bits, packing)
    assert ei.value.check == "dtype" and message in ei.value.reason


def test_plan_carries_the_source_format():
    """A 6-bit tile plans as 8-bit data; the plan remembers that its cps decompress."""
    bits, fmt = cp_element_format(6, "b6x16_p32")
    p = plan_tcgen05_cp(S[(32, 16) : (16, 1)], [32, 16], full([32, 16]), None, *T_BASIC_ARGS, bits, 1, fmt)
    assert (p.src_format, p.sbo_bytes, p.swizzle, p.cps) == ("b6x16_p32", 128, SwizzleMode.NONE, (Cp(0, 0),))


# -- every shape -----------------------------------------------------------------------------------------
# Lanes of row r per shape and multicast, the table of docs/tcgen05.md §7 written out (PTX ISA
# #tcgen05-data-movement-shape), independent of tcgen05_cp_shapes.py.
def _lanes(shape, mc, r, lane0):
    if shape in ("128x256b", "128x128b"):
        return [lane0 + r]
    if shape == "4x256b":
        return [lane0 + 32 * r]
    if shape == "32x128b":
        return [r + 32 * k for k in range(4)]
    if mc == "warpx2::02_13":
        return [r, r + 64]
    return [r, r + 32] if r < 32 else [r + 32, r + 64]


_ROWS = {"128x256b": 128, "128x128b": 128, "4x256b": 4, "64x128b": 64, "32x128b": 32}


def _replay_any(plan):
    """{(lane, tmem unit): smem unit} of the plan's cps through the docs/tcgen05.md §6 address formula."""
    g = math.gcd(plan.elem_bits, 8)
    nch = 2 if plan.shape.endswith("256b") else 1
    written = {}
    for cp in plan.cps:
        for r in range(_ROWS[plan.shape]):
            for c in range(nch):
                lin = cp.src_offset + (r // 8) * plan.sbo_bytes + (r % 8) * plan.row_pitch_bytes + (
                    c * plan.lbo_bytes if plan.swizzle is SW.NONE else c * 16)
                phys = _swz(plan.swizzle, lin)
                for lane in _lanes(plan.shape, plan.multicast, r, cp.lane):
                    for u in range(128 // g):
                        written[(lane, (cp.col + 4 * c) * 32 // g + u)] = phys * 8 // g + u
    return written


def _t(text):
    return parse_layout(text)


# (id, src, src shape, src region, (dst, dst shape, dst region), bits,
#  expected (ptx shape, swizzle, SBO, LBO, row pitch, cps as (src, col, lane)))
SHAPES = [
    # 128 rows x 16 B contiguous, uint8: rows (16, 8):(128, 16) -> SBO 128, P 16; 2048 elements are not
    # whole 256-bit rows (32 elements) x 128, so 128x256b declines and 128x128b copies it in one cp.
    ("128x128b_u8", S[(128, 16) : (16, 1)], [128, 16], full([128, 16]),
     (_t("S[(128, 16) : (1@TLane, 1@TCol)]"), [128, 16], full([128, 16])), 8,
     ("128x128b", SW.NONE, 128, 0, 16, ((0, 0, 0),))),
    # bf16 K-major 128B swizzle [128, 64]: rows 128 B apart, SBO 1024; a 256-bit row is 16 bf16 = 32 B,
    # 4 cps 32 B apart along K inside row 0 of the atom, 8 columns each; LBO "assumed 1" = 16 B.
    ("128x256b_bf16_sw128", kmajor_layout([128, 64], 16, SW.B128), [128, 64], full([128, 64]),
     (_t("S[(128, 64) : (1@TLane, 1@TCol)]"), [128, 64], full([128, 64])), 16,
     ("128x256b", SW.B128, 1024, 16, 128, tuple((32 * i, 8 * i, 0) for i in range(4)))),
    # bf16 interleaved (no swizzle) [128, 16]: core matrices 8 rows x 16 B; rows (16, 8):(128 B, 16 B),
    # the two K chunks (2, 1024 elements = 2048 B): LBO 2048, SBO 128 (CUTLASS's K_INTER form).
    ("128x256b_bf16_interleaved", S[(16, 8, 2, 8) : (64, 8, 1024, 1)], [128, 16], full([128, 16]),
     (_t("S[(128, 16) : (1@TLane, 1@TCol)]"), [128, 16], full([128, 16])), 16,
     ("128x256b", SW.NONE, 128, 2048, 16, ((0, 0, 0),))),
    # the same source into tmem whose 8-element halves sit 16 elements (8 columns) apart: a tmem row is
    # not 16 contiguous elements, so 128x256b declines; 128x128b copies the two chunks (LBO apart in
    # shared memory) by two cps, at columns 0 and 8.
    ("128x128b_fallback_gapped_tmem", S[(16, 8, 2, 8) : (64, 8, 1024, 1)], [128, 16], full([128, 16]),
     (_t("S[(128, 2, 8) : (1@TLane, 16@TCol, 1@TCol)]"), [128, 2, 8], full([128, 2, 8])), 16,
     ("128x128b", SW.NONE, 128, 0, 16, ((0, 0, 0), (2048, 8, 0)))),
    # 128B-swizzled rows whose two bf16 chunks sit 64 B apart: not a 256-bit row (the second chunk would be
    # read at +16 B), so 128x128b copies both chunks, 64 B apart inside row 0 of the atom, to columns 0, 4.
    ("128x128b_fallback_swizzled_chunks_apart", ComposedLayout(SW.B128, S[(16, 8, 2, 8) : (512, 64, 32, 1)]),
     [128, 16], full([128, 16]), (_t("S[(128, 16) : (1@TLane, 1@TCol)]"), [128, 16], full([128, 16])), 16,
     ("128x128b", SW.B128, 1024, 0, 128, ((0, 0, 0), (64, 4, 0)))),
    # f32, 4 rows of 8 (32 B) 32 B apart with 32B swizzle: one 4x256b to lanes 0/32/64/96; SBO unused,
    # encoded as the dense 8-row group 8 x 32 = 256.
    ("4x256b_f32_sw32", ComposedLayout(SW.B32, S[(4, 8) : (8, 1)]), [4, 8], full([4, 8]),
     (_t("S[(4, 8) : (32@TLane, 1@TCol)]"), [4, 8], full([4, 8])), 32,
     ("4x256b", SW.B32, 256, 16, 32, ((0, 0, 0),))),
    # f32, 16 logical rows q, i -> lane 32q + i: rows (4, 16 B) no swizzle; lane middle (4, 1@TLane)
    # pairs with the source's (4, 64 B); chunks (2, 1024 B), (4, 1): LBO 1024. cps (64 i, 0, lane i).
    ("4x256b_f32_lane_middle", S[(4, 4, 2, 4) : (4, 16, 256, 1)], [4, 4, 8], full([4, 4, 8]),
     (_t("S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]"), [4, 4, 8], full([4, 4, 8])), 32,
     ("4x256b", SW.NONE, 128, 1024, 16, tuple((64 * i, 0, i) for i in range(4)))),
    # 4x256b at lane offset 5 (region of a [4, 8, 8] tmem layout): L0 = 5.
    ("4x256b_lane_offset_5", ComposedLayout(SW.B32, S[(4, 8) : (8, 1)]), [4, 8], full([4, 8]),
     (_t("S[(4, 8, 8) : (32@TLane, 1@TLane, 1@TCol)]"), [4, 8, 8], [(0, 4), (5, 6), (0, 8)]), 32,
     ("4x256b", SW.B32, 256, 16, 32, ((0, 0, 5),))),
    # 64 rows x 16 B, both warps of a pair get the same rows: 02_13 lanes r and r + 64.
    ("64x128b_02_13_u8", S[(64, 16) : (16, 1)], [64, 16], full([64, 16]),
     (_t("S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]"), [64, 16], full([64, 16])), 8,
     ("64x128b", SW.NONE, 128, 0, 16, ((0, 0, 0),))),
    # 01_23: rows 32h + l -> lanes 64h + l (+ 32): tmem rows (2, 64@TLane), (32, 1@TLane).
    ("64x128b_01_23_u8_sw64", kmajor_layout([64, 64], 8, SW.B64), [64, 64], full([64, 64]),
     (_t("S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]"), [64, 64], full([64, 64])), 8,
     ("64x128b", SW.B64, 512, 0, 64, tuple((16 * i, 4 * i, 0) for i in range(4)))),
    # block-scaled GEMM, cta_group 2, SFB "2 by 2" (docs/tcgen05.md §7 scale factors): N = 256 scale
    # rows n = 128h + 32c + l, 4 scale bytes j each, to lane 64h + l (+32), column c, byte j; shared
    # memory holds two 512 B 128x4 atoms (r % 32) * 16 + (r / 32) * 4 + j. One 01_23 cp.
    ("64x128b_01_23_sfb_2by2", S[(2, 4, 32, 4) : (512, 4, 16, 1)], [256, 4], full([256, 4]),
     (_t("S[(2, 4, 32, 4) : (64@TLane, 4@TCol, 1@TLane, 1@TCol)] + R[2 : 32@TLane]"), [256, 4],
      full([256, 4])), 8,
     ("64x128b", SW.NONE, 128, 0, 16, ((0, 0, 0),))),
    # SFA "4 by 1": 128 scale rows r = 32c + l, 4 bytes each, to lane l in every quarter, column c:
    # one 512 B atom, one 32x128b.warpx4.
    ("32x128b_sfa_4by1", S[(4, 32, 4) : (4, 16, 1)], [128, 4], full([128, 4]),
     (_t("S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]"), [128, 4], full([128, 4])), 8,
     ("32x128b", SW.NONE, 128, 0, 16, ((0, 0, 0),))),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in SHAPES])
@pytest.mark.parametrize("cta_group", [1, 2])
def test_plan_shape(case, cta_group):
    _, src, src_shape, src_region, dst_args, bits, (shape, swizzle, sbo, lbo, pitch, cps) = case
    plan = _plan(src, src_shape, src_region, dst_args, bits, cta_group)
    assert (plan.shape, plan.swizzle, plan.sbo_bytes, plan.lbo_bytes, plan.row_pitch_bytes) == \
        (shape, swizzle, sbo, lbo, pitch)
    assert tuple((c.src_offset, c.col, c.lane) for c in plan.cps) == cps and plan.cta_group == cta_group
    assert _replay_any(plan) == _expected(src, src_shape, src_region, dst_args, bits)


def test_shape_names_multicast():
    by_id = {c[0]: _plan(*c[1:6]) for c in SHAPES}
    assert by_id["64x128b_02_13_u8"].multicast == "warpx2::02_13"
    assert by_id["64x128b_01_23_u8_sw64"].multicast == "warpx2::01_23"
    assert by_id["32x128b_sfa_4by1"].multicast == "warpx4"
    assert by_id["4x256b_f32_sw32"].multicast is None and by_id["128x256b_bf16_sw128"].multicast is None


def test_replay_reaches_every_lane():
    """The 128-lane and multicast shapes write all 128 lanes; 4x256b one lane per quarter."""
    for c in SHAPES:
        plan = _plan(*c[1:6])
        lanes = {lane for lane, _ in _replay_any(plan)}
        if plan.shape == "4x256b":
            assert all(lane % 32 < 8 for lane in lanes) and {lane // 32 for lane in lanes} == {0, 1, 2, 3}
        else:
            assert lanes == set(range(128)), c[0]


# (id, src, src shape, src region, dst args, bits, check, message fragment)
SHAPE_REJECTED = [
    # 4 lanes 32 apart, but only 4 columns (128 bits) per row: 4x256b moves 256 bits
    ("4x256b_row_too_narrow", S[(4, 4) : (4, 1)], [4, 4], full([4, 4]),
     (_t("S[(4, 4) : (32@TLane, 1@TCol)]"), [4, 4], full([4, 4])), 32, "group",
     "not a multiple of 4 rows x 8 elements (256 bits per row of .4x256b)"),
    ("4x256b_lane_offset_32", ComposedLayout(SW.B32, S[(4, 8) : (8, 1)]), [4, 8], full([4, 8]),
     (_t("S[(4, 64, 8) : (32@TLane, 1@TLane, 1@TCol)]"), [4, 64, 8], [(0, 4), (40, 41), (0, 8)]), 32,
     "router", "starts at tmem lane 40; .4x256b writes lanes L0 + 32r, so L0 must be in [0, 31]"),
    ("128_lanes_offset", S[(128, 16) : (16, 1)], [128, 16], full([128, 16]),
     (_t("S[(256, 16) : (1@TLane, 1@TCol)]"), [256, 16], [(128, 256), (0, 16)]), 8, "router",
     ".128x128b writes all 128 lanes, so the tmem lane offset must be 0, got 128"),
    # swizzled 256-bit rows whose chunks sit 64 B apart: the cp reads the second at +16 B (128 lanes would
    # fall back to 128x128b; 4x256b has no narrower shape)
    ("4x256b_swizzled_chunks_apart", ComposedLayout(SW.B128, S[(4, 2, 8) : (64, 32, 1)]), [4, 16],
     full([4, 16]), (_t("S[(4, 16) : (32@TLane, 1@TCol)]"), [4, 16], full([4, 16])), 16, "lbo",
     "the second chunk of a 256-bit row is read 16 B after the first (LBO unused), but the source puts it 64 B"),
    # plain rows 16 B apart, second chunk 24 B away: LBO not encodable; 128x128b declines the 24 B step too
    ("256b_lbo_not_16B", S[(4, 2, 4) : (4, 6, 1)], [4, 8], full([4, 8]),
     (_t("S[(4, 8) : (32@TLane, 1@TCol)]"), [4, 8], full([4, 8])), 32, "lbo",
     "second chunk is 24 B after its first; LBO must be a 16-byte multiple"),
    # the 64 source rows are 16 B apart in two runs of 32 that overlap: no (8, 8) row groups
    ("64_rows_not_8_groups", S[(2, 32, 16) : (16, 16, 1)], [64, 16], full([64, 16]),
     (_t("S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]"), [64, 16], full([64, 16])), 8, "group",
     "do not form 8 group(s) x 8 rows"),
    # 128x256b at column 508: its 8 columns pass the end of tensor memory (and 128x128b too, at 512)
    ("256b_past_512_columns", kmajor_layout([128, 64], 16, SW.B128), [128, 64], [(0, 128), (0, 16)],
     (_t("S[(128, 1032) : (1@TLane, 1@TCol)]"), [128, 1032], [(0, 128), (1016, 1032)]), 16,
     "alignment.tmem_col", "outside [0, 512)"),
]


@pytest.mark.parametrize("src,src_shape,src_region,dst_args,bits,check,message",
                         [pytest.param(*c[1:], id=c[0]) for c in SHAPE_REJECTED])
def test_shape_rejected(src, src_shape, src_region, dst_args, bits, check, message):
    with pytest.raises(PlanError) as info:
        _plan(src, src_shape, src_region, dst_args, bits)
    assert (info.value.check, message in info.value.reason) == (check, True), str(info.value)


# -- descriptor fields against CUTLASS -----------------------------------------------------------------
# CUTLASS make_umma_desc<Major::K> (include/cute/arch/mma_sm100_desc.hpp) reads the canonical K-major
# form ((8,n),2):((P/16, SBO), LBO) in 16-byte units: stride_byte_offset_ = SBO, leading_byte_offset_ =
# the step between the two 16-byte K chunks (1 when swizzled), layout_type_ SWIZZLE_NONE=0, 128B=2,
# 64B=4, 32B=6. Written out by hand for bf16 tiles of 128 rows from CuTe's K atoms (Layout_K_INTER_Atom
# tiled M first: 8x16 B core matrices, K chunk 128 rows x 16 B = 2048 B away; Layout_K_SW{32,64,128}_Atom:
# 8 rows x P bytes, SBO = 8 P):
#   (source layout, K, (SBO field, LBO field, layout_type))
CUTLASS_K_MAJOR = [
    ("interleaved", S[(16, 8, 2, 8) : (64, 8, 1024, 1)], 16, (8, 128, 0)),
    ("sw32", kmajor_layout([128, 16], 16, SW.B32), 16, (16, 1, 6)),
    ("sw64", kmajor_layout([128, 32], 16, SW.B64), 32, (32, 1, 4)),
    ("sw128", kmajor_layout([128, 64], 16, SW.B128), 64, (64, 1, 2)),
]


@pytest.mark.parametrize("name,src,k,fields", CUTLASS_K_MAJOR, ids=[c[0] for c in CUTLASS_K_MAJOR])
def test_256b_descriptor_matches_cutlass(name, src, k, fields):
    dst = (_t(f"S[(128, {k}) : (1@TLane, 1@TCol)]"), [128, k], full([128, k]))
    plan = _plan(src, [128, k], full([128, k]), dst, 16)
    d = plan.descriptor_template()
    assert plan.shape == "128x256b"
    assert ((d >> 32) & 0x3FFF, (d >> 16) & 0x3FFF, d >> 61) == fields
    assert (d >> 46) & 7 == 1 and (d >> 49) & 7 == 0 and (d >> 52) & 1 == 0  # version 1, base 0, LBO mode 0
