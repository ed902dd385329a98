"""Example tests for the layout algebra (tile_mlir.layout), with literal expected values."""

import copy
import pickle

import pytest

from tile_mlir.layout import (Axis, AxisValue, ComposedLayout, Iter, LayoutError, O, R, S, SwizzleMode,
                              TCol, TileLayout, TLane, atom_bytes, from_iters, kmajor_layout, m,
                              parse_layout, parse_tile_layout, row_pitch, swizzle_bytes, swizzle_params)

TMEM_BASIC = S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]


# -- axes and constructors ------------------------------------------------------------------------------
def test_axes_are_interned_and_extensible():
    assert Axis.get("m") is m and Axis.get("TLane") is TLane and Axis("TCol") is TCol
    warp = Axis.get("warp_t")
    assert Axis.get("warp_t") is warp and Axis.lookup("warp_t") is warp
    assert 3 @ warp == AxisValue(3, warp) and str(3 @ warp) == "3@warp_t"
    assert str(AxisValue(5, m)) == "5"
    with pytest.raises(LayoutError, match="invalid axis name"):
        Axis.get("9lives")


def test_constructors():
    assert S[(32, 16) : (16, 1)] == TileLayout((Iter(32, 16, m), Iter(16, 1, m)))
    assert S[64] == S[(64,)] == TileLayout((Iter(64, 1),))
    assert S[(4, 2, 8)] == S[(4, 2, 8) : (16, 8, 1)]
    assert TMEM_BASIC.shard == (Iter(32, 1, TLane), Iter(16, 1, TCol))
    assert TMEM_BASIC.replica == (Iter(4, 32, TLane),)
    assert TileLayout(TMEM_BASIC) == TMEM_BASIC  # TVM spelling
    lay = S[8] + O[(64, 8 @ TCol)]
    assert dict(lay.offset) == {m: 64, TCol: 8}
    assert from_iters([Iter(8, 1)], [], {m: 0}) == S[8]  # zero offsets are dropped
    assert TileLayout.from_iters([Iter(8, 1)]) == S[8]
    with pytest.raises(LayoutError, match="two shard parts"):
        S[4] + S[4]
    with pytest.raises(LayoutError, match="needs strides"):
        R[4]
    with pytest.raises(LayoutError, match="2 extents but 1 strides"):
        S[(4, 4) : (1,)]


def test_hashable_immutable_picklable():
    assert len({S[(32, 16) : (16, 1)], S[(32, 16)], TMEM_BASIC, TileLayout(TMEM_BASIC)}) == 2
    with pytest.raises(AttributeError):
        TMEM_BASIC.foo = 1
    sw = kmajor_layout([32, 128], 8, SwizzleMode.B128)
    for lay in (TMEM_BASIC + O[8 @ TCol], sw):
        again = pickle.loads(pickle.dumps(lay))
        assert again == lay and copy.deepcopy(lay) == lay


def test_sizes():
    assert TMEM_BASIC.shard_extent() == 512
    assert TMEM_BASIC.replica_extent() == 4
    assert TMEM_BASIC.size() == 2048
    assert TMEM_BASIC.span(TLane) == 128 and TMEM_BASIC.span(TCol) == 16
    assert S[(8, 8, 2, 16) : (128, 16, 1024, 1)].span(m) == 2048


# -- text -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]",
    "S[(32, 16) : (16, 1)]",
    "S[64 : 1]",
    "S[(8, 8, 2, 16) : (128, 16, 1024, 1)] + O[64]",
    "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[8@TCol]",
    "S[(4, 4) : (0, -1)] + O[(3, 2@TLane, 8@TCol)]",
    "R[4 : 32@TLane]",
    "S[() : ()]",
    "Swizzle<128B> o S[(32, 128) : (128, 1)]",
    "Swizzle<128B_base32B> o S[(8, 64) : (64, 1)] + O[512]",
    "Swizzle<none> o S[16 : 1]",
], ids=lambda t: t.replace(" ", ""))
def test_print_is_canonical(text):
    assert str(parse_layout(text)) == text


def test_parse_accepts_variants():
    canon = "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"
    assert parse_layout("S[(32,16):(1@TLane,1@TCol)]+R[(4,):(32@TLane,)]") == parse_layout(canon)
    assert parse_layout("R[4:32@TLane] + S[(32,16):(1@TLane,1@TCol)]") == TMEM_BASIC
    assert parse_layout("S[(32, 16)]") == S[(32, 16) : (16, 1)]
    assert parse_layout("S[64]") == S[64]
    assert parse_layout("O[8@TCol] + S[4:1]") == S[4] + O[8 @ TCol]
    assert parse_layout("S[4:1@newaxis]").shard[0].axis is Axis.lookup("newaxis")
    assert parse_tile_layout("S[4]") == S[4]
    with pytest.raises(LayoutError, match="plain tile layout"):
        parse_tile_layout("Swizzle<32B> o S[(8, 32) : (32, 1)]")


@pytest.mark.parametrize("text,message", [
    ("S[(32, 16) (1, 2)]", "expected ':' after shape at column 12, found '('"),
    ("S[(32,16):(1,2,3)]", "S[...] has 2 extents but 3 strides at column 11"),
    ("S[(32,16):(1@TLane, 1@)]", "expected an axis name after '@' at column 23"),
    ("R[4]", "expected ':' after shape at column 4, found ']'"),
    ("S[(0, 4) : (4, 1)]", "extents must be positive ints, got 0 in S[...] at column 3"),
    ("S[4 : 1", "expected ']' to close S[ at column 8, found end of input"),
    ("S[4 : 1] R[4 : 1]", "expected '+' or end of layout at column 10"),
    ("S[4] + S[4]", "second S[...] term at column 8 (first at column 1)"),
    ("O[(1@TCol, 2@TCol)]", "axis TCol appears twice"),
    ("Swizzle<12B> o S[4]", "unknown swizzle mode '12B'"),
    ("Swizzle<32B> S[4]", "expected 'o' after Swizzle<...> at column 14"),
    ("S[4 : 1] $", "unexpected character '$' at column 10"),
    ("", "expected a layout term S[...], R[...] or O[...] at column 1, found end of input"),
])
def test_parse_errors(text, message):
    with pytest.raises(LayoutError) as info:
        parse_layout(text)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


# -- apply ----------------------------------------------------------------------------------------------
def test_apply_tmem_replicas():
    # logical (5, 3) of [32, 16] -> lane 5, column 3, repeated in the four lane quarters.
    assert TMEM_BASIC.apply((5, 3), [32, 16]) == [
        {TLane: 5, TCol: 3}, {TLane: 37, TCol: 3}, {TLane: 69, TCol: 3}, {TLane: 101, TCol: 3}]
    assert TMEM_BASIC.apply(5 * 16 + 3) == TMEM_BASIC.apply((5, 3), [32, 16])


def test_apply_offset_and_shapes():
    lay = S[(8, 8, 2, 16) : (128, 16, 1024, 1)] + O[64]
    # logical (9, 17) of [64, 32]: row 9 = (1, 1) -> 128 + 16; col 17 = (1, 1) -> 1024 + 1.
    assert lay.apply((9, 17), [64, 32]) == [{m: 64 + 144 + 1025}]
    assert lay.apply((1, 1, 1, 1)) == [{m: 64 + 144 + 1025}]  # per-iter coordinate
    with pytest.raises(LayoutError, match="out of bounds"):
        lay.apply((64, 0), [64, 32])
    with pytest.raises(LayoutError, match="4096 elements, layout has 2048"):
        lay.apply(0, [64, 64])


# -- canonicalize, group, permute ------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", "S[(64, 2, 16) : (16, 1024, 1)]"),
    ("S[(4, 32, 16) : (512, 16, 1)]", "S[2048 : 1]"),
    ("S[(1, 32, 1, 16) : (7, 16, 9, 1)]", "S[512 : 1]"),
    ("S[(2, 4) : (4@TCol, 1@TLane)] + R[(1, 4) : (5, 32@TLane)]",
     "S[(2, 4) : (4@TCol, 1@TLane)] + R[4 : 32@TLane]"),
    ("S[(2, 4, 32, 4, 4) : (16@TCol, 4@TCol, 1@TLane, 32@TCol, 1@TCol)]",
     "S[(8, 32, 4, 4) : (4@TCol, 1@TLane, 32@TCol, 1@TCol)]"),
    ("S[(4, 4) : (0, 0)]", "S[16 : 0]"),
])
def test_canonicalize(text, expected):
    assert str(parse_layout(text).canonicalize()) == expected


def test_group_splits_iters():
    lay, seps = S[2048].group([4, 32, 16])
    assert str(lay) == "S[(4, 32, 16) : (512, 16, 1)]" and seps == (0, 1, 2, 3)
    lay, seps = S[(8, 8, 2, 16) : (128, 16, 1024, 1)].group([64, 32])
    assert seps == (0, 2, 4)
    lay, seps = S[(6, 4) : (4, 1)].group([2, 12])  # (6, 4) -> (2, 12), (3, 4)
    assert str(lay) == "S[(2, 3, 4) : (12, 4, 1)]" and seps == (0, 1, 3)
    lay, seps = S[(4, 1) : (1, 9)].group([1, 4])  # extent-1 dim owns nothing; trailing 1 joins the last
    assert seps == (0, 0, 2)
    with pytest.raises(LayoutError, match="dim 0 .extent 6. needs a factor 6 from iter \\(4, 6\\)"):
        S[(4, 6)].group([6, 4])
    with pytest.raises(LayoutError, match="24 elements, layout has 16"):
        S[(4, 4)].group([6, 4])


def test_permute():
    lay = S[(2, 3, 4) : (1, 2, 6)]
    assert lay.permute([2, 0, 1]) == S[(4, 2, 3) : (6, 1, 2)]
    assert lay.permute_dims([2, 0, 1]) == lay.permute([2, 0, 1])
    assert lay.permute_by_groups([0, 2, 3], [1, 0]) == S[(4, 2, 3) : (6, 1, 2)]
    with pytest.raises(LayoutError, match="not a permutation"):
        lay.permute([0, 0, 1])


# -- slice ----------------------------------------------------------------------------------------------
def test_slice_seed_regions():
    # rows 4:36 of (64, 16) [after fusing (8, 128), (8, 16)] -> (32, 16) at 4 * 16 = 64.
    assert str(S[(8, 8, 2, 16) : (128, 16, 1024, 1)].slice([64, 32], [(4, 36), (0, 16)])) == \
        "S[(32, 16) : (16, 1)] + O[64]"
    # cols 64:80 of K = (4, 64):(2048, 1) -> (16, 1) at 1 * 2048.
    sliced = kmajor_layout([32, 256], 8, SwizzleMode.B64).slice([32, 256], [(0, 32), (64, 80)])
    assert str(sliced) == "Swizzle<64B> o S[(32, 16) : (64, 1)] + O[2048]"
    # the tmem region keeps the replica; a column offset lands on TCol.
    tm = S[(32, 48) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]
    assert str(tm.slice([32, 48], [(0, 32), (16, 32)])) == \
        "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[16@TCol]"
    # single-element dims vanish, their coordinate becomes offset
    assert str(S[(4, 32, 16) : (512, 16, 1)].slice([4, 32, 16], [(2, 3), (0, 32), (0, 16)])) == \
        "S[(32, 16) : (16, 1)] + O[1024]"


def test_slice_rejects_with_reason():
    with pytest.raises(LayoutError) as info:
        S[(8, 8) : (128, 1)].slice([64], [(4, 36)])
    assert str(info.value).startswith("region [4, 36) of dim 0 cuts iter (8, 1): ")
    assert "not whole copies of its 8" in str(info.value)
    with pytest.raises(LayoutError, match=r"needs indices \[6, 10\) of its 8, which wraps past its end"):
        S[(8, 8) : (128, 1)].slice([64], [(6, 10)])
    with pytest.raises(LayoutError, match=r"region \[0, 65\) of dim 0 is empty or outside \[0, 64\)"):
        S[64].slice([64], [(0, 65)])


# -- swizzle --------------------------------------------------------------------------------------------
def test_swizzle_tables():
    assert [atom_bytes(md) for md in SwizzleMode] == [16, 256, 512, 1024, 512]
    assert [row_pitch(md) for md in SwizzleMode] == [16, 32, 64, 128, 128]
    assert swizzle_params(SwizzleMode.B128_BASE32B) == (2, 5, 2)
    assert [str(md) for md in SwizzleMode] == ["none", "32B", "64B", "128B", "128B_base32B"]


@pytest.mark.parametrize("mode,addr,expected", [
    (SwizzleMode.NONE, 0x1F0, 0x1F0),
    (SwizzleMode.B32, 0x80, 0x90),        # bit 7 -> bit 4
    (SwizzleMode.B64, 0x180, 0x1B0),      # bits 7-8 = 3 -> bits 4-5
    (SwizzleMode.B128, 0x380, 0x3F0),     # bits 7-9 = 7 -> bits 4-6
    (SwizzleMode.B128, 0x2185, 0x21B5),   # row 3 of an atom: chunk 0 -> chunk 3, byte 5 kept
    (SwizzleMode.B128_BASE32B, 0x180, 0x1E0),  # bits 7-8 = 3 -> bits 5-6
])
def test_swizzle_bytes(mode, addr, expected):
    assert swizzle_bytes(mode, addr) == expected


def test_composed_apply():
    lay = kmajor_layout([32, 128], 8, SwizzleMode.B128)
    assert str(lay) == "Swizzle<128B> o S[(32, 128) : (128, 1)]"
    assert lay.apply((3, 5), [32, 128]) == [3 * 128 + (5 ^ 48)]  # row 3: chunk 0 -> chunk 3
    # 4-bit: (1, 33) is bit 4 of linear byte 128 + 16; row 1 of the atom XORs chunk 1 -> chunk 0.
    lay4 = kmajor_layout([8, 256], 4, SwizzleMode.B128)
    assert lay4.apply_bits((1, 33), [8, 256], elem_bits=4) == [(128 + (16 ^ 16)) * 8 + 4]
    assert lay4.apply((1, 33), [8, 256], elem_bits=4) == [128]


@pytest.mark.parametrize("shape,bits,mode,expected", [
    # uint8 64B: atom K 64; rows 64 B apart (groups of 8 at 512), K-atoms 32 * 64 = 2048 apart.
    ([32, 256], 8, SwizzleMode.B64, "Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]"),
    ([32, 32], 8, SwizzleMode.B32, "Swizzle<32B> o S[(32, 32) : (32, 1)]"),
    ([64, 128], 16, SwizzleMode.B128, "Swizzle<128B> o S[(64, 2, 64) : (64, 4096, 1)]"),
    ([2, 8, 64], 32, SwizzleMode.B64, "Swizzle<64B> o S[(2, 8, 4, 16) : (512, 16, 128, 1)]"),
    ([32, 16], 8, SwizzleMode.NONE, "S[(32, 16) : (16, 1)]"),
])
def test_kmajor_layout(shape, bits, mode, expected):
    assert str(kmajor_layout(shape, bits, mode)) == expected


def test_kmajor_strides_uint8_64B():
    lay = kmajor_layout([32, 256], 8, SwizzleMode.B64).inner
    row = lay.apply((1, 0), [32, 256])[0][m]
    group = lay.apply((8, 0), [32, 256])[0][m]
    katom = lay.apply((0, 64), [32, 256])[0][m]
    assert (row, group, katom) == (64, 512, 2048)


def test_kmajor_rejects():
    with pytest.raises(LayoutError, match="not a multiple of the 128B atom's 128 elements"):
        kmajor_layout([32, 64], 8, SwizzleMode.B128)
    with pytest.raises(LayoutError, match="M = 12"):
        kmajor_layout([12, 128], 8, SwizzleMode.B128)
    with pytest.raises(LayoutError, match="MN-major"):
        kmajor_layout([32, 128], 8, SwizzleMode.B128_BASE32B)


def test_composed_transforms_keep_swizzle():
    lay = kmajor_layout([64, 128], 8, SwizzleMode.B128)
    grouped, seps = lay.group([64, 128])
    assert isinstance(grouped, ComposedLayout) and grouped.swizzle is SwizzleMode.B128 and seps == (0, 1, 2)
    assert str(lay.slice([64, 128], [(8, 40), (0, 16)])) == "Swizzle<128B> o S[(32, 16) : (128, 1)] + O[1024]"
    assert str(lay.canonicalize()) == "Swizzle<128B> o S[8192 : 1]"
    assert parse_layout(str(lay)) == lay and hash(parse_layout(str(lay))) == hash(lay)
