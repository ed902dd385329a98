"""Register fragments in the layout algebra (layout/fragment.py) and the reg buffer type (docs/registers.md §1).

The fragment maps here are literal formulas from the PTX ISA / CUTLASS (the wgmma m64nNk16 accumulator,
docs/registers.md §1), not our algebra: the layout text must reproduce them."""
import pytest

from tile_mlir.dialect.checks import check_buffer
from tile_mlir.dialect.decline import Decline as VerifyError
from tile_mlir.dialect.types import BufferType
from tile_mlir.layout import (FragmentError, LayoutError, fragment_of, laneid, parse_layout, reg, warpid)
from tile_mlir.layout.fragment import offsets_table


def test_register_axes_are_predefined_and_print():
    lay = parse_layout("S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)] + O[2@reg]")
    assert [it.axis for it in lay.shard] == [warpid, laneid, reg]
    assert str(lay) == "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)] + O[2@reg]"
    assert parse_layout(str(lay)) == lay


@pytest.mark.parametrize("n", [8, 64, 256])
def test_wgmma_accumulator_layout_is_the_ptx_fragment(n):
    """row(t, v) = 16w + l/4 + 8((v>>1)&1), col(t, v) = 8(v/4) + 2(l%4) + (v&1) for every element."""
    frag = fragment_of(parse_layout(f"S[(4, 2, 8, {n // 8}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"))
    for x in range(64 * n):
        r, c = divmod(x, n)
        w, lane, v = int(frag.warp[x]), int(frag.lane[x]), int(frag.slot[x])
        assert (r, c) == (16 * w + lane // 4 + 8 * ((v >> 1) & 1), 8 * (v // 4) + 2 * (lane % 4) + (v & 1))
    assert frag.slots_per_thread == n // 2 and frag.warps == (0, 1, 2, 3)


def test_offsets_table_matches_apply():
    lay = parse_layout("S[(2, 3, 4) : (1@TLane, 8@TCol, 1@TCol)] + O[(5@TLane, 2@TCol)]")
    t = offsets_table(lay)
    for x in range(lay.shard_extent()):
        got = {a: int(v[x]) for a, v in t.items()}
        assert got == dict(lay.apply(x)[0])


@pytest.mark.parametrize("text, why", [
    ("S[(32, 4) : (1@laneid, 1@m)]", "maps onto warpid, laneid and reg, got m"),
    ("S[(32, 4) : (1@laneid, 1@reg)] + R[2 : 1@warpid]", "no replica"),
    ("S[(64, 4) : (1@laneid, 1@reg)]", "laneid reaches 63"),
    ("S[(32, 4) : (1@laneid, 0@reg)]", "must be injective"),
])
def test_fragment_rejects(text, why):
    with pytest.raises(FragmentError, match=why):
        fragment_of(parse_layout(text))


def test_fragment_error_is_a_layout_error():
    assert issubclass(FragmentError, LayoutError)


@pytest.mark.parametrize("body, why", [
    ("buffer<reg, 32x4xf32>", "needs a layout"),
    ('buffer<reg, 32x4xf64, "S[(32, 4) : (1@laneid, 1@reg)]">', "8, 16 or 32-bit"),
    ('buffer<reg, 32x256xf32, "S[(32, 256) : (1@laneid, 1@reg)]">', "256 32-bit registers"),
    ('buffer<reg, 32x4xf32, "S[(32, 4) : (1@TLane, 1@reg)]">', "got TLane"),
])
def test_reg_buffer_checks(body, why):
    with pytest.raises(VerifyError, match=why):
        check_buffer(BufferType.parse_body(body), "result #0")


def test_reg_buffer_packs_16_bit_elements_two_per_register():
    bt = BufferType.parse_body('buffer<reg, 32x510xbf16, "S[(32, 510) : (1@laneid, 1@reg)]">')
    check_buffer(bt, "result #0")  # 255 registers


# -- the register load/store plan (lowering/registers.py) --------------------------------------------------
def test_store_plan_rows_per_thread_are_16_byte_vectors():
    from tile_mlir.lowering.registers import plan_register_store

    p = plan_register_store(parse_layout("S[(128, 64) : (64, 1)]"),
                            parse_layout("S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]"), 16, 16)
    assert (p.first_warp, p.warps, p.base_bytes) == (0, 4, 0)
    assert p.coeff_bytes == tuple((b, 128 << b) for b in range(7))  # rank bit b -> 2^b rows of 128 B
    assert p.chunks == tuple((16 * i, 16 * i, 16, 16) for i in range(8))


def test_store_plan_alignment_follows_the_offsets():
    """Rows of 6 f32 at an odd column: 4-byte pieces where 8 or 16 bytes would be misaligned."""
    from tile_mlir.lowering.registers import plan_register_store

    mem = parse_layout("S[(32, 6) : (7, 1)] + O[1]")
    p = plan_register_store(mem, parse_layout("S[(32, 6) : (1@laneid, 1@reg)]"), 32, 16)
    assert p.coeff_bytes == tuple((b, 28 << b) for b in range(5)) and p.base_bytes == 4
    assert [c[2] for c in p.chunks] == [4] * 6  # gcd(28, ...) = 4: no wider access is provably aligned


def test_store_plan_swizzled_memory():
    """Into a 128B-swizzled tile: planned on the inner layout, with one XOR value per thread from the bits 7..9
    of its offset (a lane's row); a fragment whose thread spans rows of the pattern is refused."""
    from tile_mlir.layout.swizzle import SwizzleMode, swizzle_bytes
    from tile_mlir.lowering.registers import StoreError, plan_register_store

    p = plan_register_store(parse_layout("Swizzle<128B> o S[(32, 64) : (64, 1)]"),
                            parse_layout("S[(32, 64) : (1@laneid, 1@reg)]"), 16, 1024)
    assert p.swizzle == (0x380, 3) and [c[2] for c in p.chunks] == [16] * 8
    for lane in range(32):  # every chunk's address, as the emitted code forms it, is the swizzled one
        off = p.base_bytes + sum(((lane >> b) & 1) * c for b, c in p.coeff_bytes)
        flip = (off & 0x380) >> 3
        assert [(off + memb) ^ flip for _, memb, _, _ in p.chunks] == \
            [swizzle_bytes(SwizzleMode.B128, lane * 128 + 16 * i) for i in range(8)]
    with pytest.raises(StoreError, match="differ in the bits the 128B swizzle reads"):
        plan_register_store(parse_layout("Swizzle<128B> o S[(64, 32) : (32, 1)]"),
                            parse_layout("S[(64, 32) : (1@reg, 1@laneid)]"), 16, 1024)
