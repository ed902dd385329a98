"""!tile.buffer bodies: parse/print round trip and the storage arithmetic of sub-byte element types."""
import pytest

from tile_mlir.dialect.types import BufferType, TypeParseError


@pytest.mark.parametrize("body", [
    "buffer<global, 32x16xui8>",
    'buffer<shared, 32x128xf6E3M2FN, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024, packing b6x16_p32>',
    "buffer<shared, 20xi6, packing b6x16_p32>",
    'buffer<tmem, 32x16xf6E2M3FN, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">',
])
def test_round_trip(body):
    assert BufferType.parse_body(body).body() == body


@pytest.mark.parametrize("body,addr_bits,nbytes", [
    ("buffer<global, 32x128xf6E3M2FN>", 6, 32 * 96),           # packed: 96 bytes a row
    ("buffer<shared, 32x128xf6E3M2FN, packing b6x16_p32>", 8, 32 * 128),  # 16-byte unit per 16
    ("buffer<shared, 20xi6, packing b6x16_p32>", 8, 32),       # a partial group takes a whole unit
    ("buffer<tmem, 32x16xf6E2M3FN>", 8, 512),                  # one 8-bit container each
    ("buffer<shared, 64x32xf4E2M1FN>", 4, 1024),
    ("buffer<shared, 8xbf16>", 16, 16),
])
def test_storage(body, addr_bits, nbytes):
    t = BufferType.parse_body(body)
    assert (t.addr_bits, t.nbytes) == (addr_bits, nbytes)


@pytest.mark.parametrize("body,message", [
    ("buffer<shared, 32xi6, packing b6x16>", "unknown packing 'b6x16' (known: b6x16_p32, b4x16_p64)"),
    ("buffer<shared, 32xi6, pack b6x16_p32>", "expected a quoted layout, 'align N' or 'packing P'"),
])
def test_parse_errors(body, message):
    with pytest.raises(TypeParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        BufferType.parse_body(body)
