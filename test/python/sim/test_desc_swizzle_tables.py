"""Literal tables cross-checking tile_mlir.sim's swizzle and descriptor decode against CUTLASS's
definitions (include/cute/swizzle.hpp: Swizzle<B,M,S>(x) = x ^ ((x & (((1<<B)-1) << (M+S))) >> S);
include/cute/arch/mma_sm100_desc.hpp: SmemDescriptor start_address_ [0,14), leading_byte_offset_
[16,30), stride_byte_offset_ [32,46), version_ [46,48) = 1, base_offset_ [49,52), lbo_mode_ [52],
layout_type_ [61,64) with SWIZZLE_NONE=0, SWIZZLE_128B_BASE32B=1, SWIZZLE_128B=2, SWIZZLE_64B=4,
SWIZZLE_32B=6).  The expected numbers are written out, not computed."""

import pytest

from tile_mlir.sim.smem_desc import check_for_cp, decode, encode, unversioned
from tile_mlir.sim.swizzle import swizzle

# Swizzle<3,4,3> (128B) on a 1024-byte atom: physical chunk index of logical (row, chunk)
SW128_CHUNK = [
    [0, 1, 2, 3, 4, 5, 6, 7],
    [1, 0, 3, 2, 5, 4, 7, 6],
    [2, 3, 0, 1, 6, 7, 4, 5],
    [3, 2, 1, 0, 7, 6, 5, 4],
    [4, 5, 6, 7, 0, 1, 2, 3],
    [5, 4, 7, 6, 1, 0, 3, 2],
    [6, 7, 4, 5, 2, 3, 0, 1],
    [7, 6, 5, 4, 3, 2, 1, 0],
]

# Swizzle<2,4,3> (64B): physical address of logical addresses 0, 16, ..., 496 (one 512-byte atom)
SW64_ADDR = [0, 16, 32, 48, 64, 80, 96, 112,
             144, 128, 176, 160, 208, 192, 240, 224,
             288, 304, 256, 272, 352, 368, 320, 336,
             432, 416, 400, 384, 496, 480, 464, 448]

# Swizzle<1,4,3> (32B): physical address of logical addresses 0, 16, ..., 240 (one 256-byte atom)
SW32_ADDR = [0, 16, 32, 48, 64, 80, 96, 112,
             144, 128, 176, 160, 208, 192, 240, 224]


@pytest.mark.parametrize("row", range(8))
@pytest.mark.parametrize("atom", [0, 1024, 7168])
def test_swizzle_128b_chunk_permutation(row, atom):
    for c in range(8):
        a = atom + row * 128 + c * 16
        assert swizzle(a, 2) == atom + row * 128 + SW128_CHUNK[row][c] * 16
        for byte in (1, 7, 15):  # bytes inside a chunk keep their offset
            assert swizzle(a + byte, 2) == swizzle(a, 2) + byte


def test_swizzle_64b_and_32b_tables():
    for i, p in enumerate(SW64_ADDR):
        assert swizzle(16 * i, 4) == p
        assert swizzle(2048 + 16 * i, 4) == 2048 + p
    for i, p in enumerate(SW32_ADDR):
        assert swizzle(16 * i, 6) == p
        assert swizzle(512 + 16 * i, 6) == 512 + p


def test_swizzle_none_is_identity_and_all_are_involutions():
    for a in (0, 16, 1040, 4096 + 752):
        assert swizzle(a, 0) == a
    for mode in (0, 2, 4, 6):
        for a in range(0, 4096, 16):
            assert swizzle(swizzle(a, mode), mode) == a


# (raw descriptor, start bytes, LBO bytes, SBO bytes, base offset, lbo mode, layout)
DESC_TABLE = [
    (0x4000404000010040, 0x400, 16, 1024, 0, 0, 2),   # docs/tcgen05.md §4 worked example
    (0x4000404010002040, 0x20400, 65536, 1024, 0, 0, 2),  # the pipeline's toy-sample constant
    (0x0000400800000000, 0, 0, 128, 0, 0, 0),
    (0x0000400800800040, 0x400, 2048, 128, 0, 0, 0),
    (0x8000402000000020, 0x200, 0, 512, 0, 0, 4),
    (0xC000401000000010, 0x100, 0, 256, 0, 0, 6),
    (0x4006404000000218, 0x2180, 0, 1024, 3, 0, 2),   # PTX base-offset example (0x2180 >> 7) & 7
    (0x4010404000000000, 0, 0, 1024, 0, 1, 2),
    (0x2000402000000000, 0, 0, 512, 0, 0, 1),
    (0x00007FFF3FFF3FFF, 0x3FFF0, 0x3FFF0, 0x3FFF0, 0, 0, 0),
]


@pytest.mark.parametrize("raw,start,lbo,sbo,base,lbo_mode,layout", DESC_TABLE)
def test_descriptor_decode_encode(raw, start, lbo, sbo, base, lbo_mode, layout):
    d = decode(raw)
    assert (d.start, d.lbo, d.sbo, d.base_offset, d.lbo_mode, d.swizzle) == \
        (start, lbo, sbo, base, lbo_mode, layout)
    assert d.fixed_46_48 == 1 and d.reserved == 0
    assert encode(start, lbo, sbo, layout, base, lbo_mode) == raw


def test_descriptor_cp_checks():
    assert check_for_cp(decode(0x4000404000010040)) == []
    assert check_for_cp(decode(0x0000400800000000)) == []
    # no bit 46: read as 0b001, the broken rule reported by the handler (docs/emulator.md A52)
    assert check_for_cp(decode(0x4000004000010040)) == [] and unversioned(decode(0x4000004000010040))
    assert not unversioned(decode(0x4000404000010040))
    assert any("0b001" in e for e in check_for_cp(decode(0x4001404000010040)))  # bit 48 set
    assert any("mode 3" in e for e in check_for_cp(decode(0x6000404000000000)))
    assert any("base offset" in e for e in check_for_cp(decode(0x4006404000000218)))
    assert any("bit 52" in e for e in check_for_cp(decode(0x4010404000000000)))
    assert any("128B_base32B" in e for e in check_for_cp(decode(0x2000402000000000)))
    with pytest.raises(ValueError):
        encode(8, 0, 128)
