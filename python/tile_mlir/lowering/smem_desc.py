"""The 64-bit shared-memory matrix descriptors: tcgen05's (sm_100a: tcgen05.cp and tcgen05.mma) and the
sm_90 wgmma form (pure Python, the one home of their bit layouts; docs/gemm.md §4).

    bits     tcgen05 (sm_100a)                          wgmma (sm_90a)
    0-13     start address >> 4                         same
    16-29    LBO >> 4                                   same
    32-45    SBO >> 4                                   same
    46-48    fixed 0b001                                0 (not defined)
    49-51    base offset (always 0 here)                same
    52       LBO mode (0: relative)                     unused
    61-63    3-bit swizzle: 0 none, 1 128B_base32B,     62-63, 2-bit: 0 none, 1 128B, 2 64B, 3 32B
             2 128B, 4 64B, 6 32B

Byte values are encoded as (x & 0x3FFFF) >> 4 and must be 16-byte multiples. Base offset stays 0: every
swizzled operand starts in row 0 of a swizzle atom of an atom-aligned buffer (docs/tcgen05.md §4).
"""
from __future__ import annotations

from ..layout import SwizzleMode

__all__ = ["encode_smem_desc", "encode_wgmma_desc", "desc_swizzle_code", "wgmma_swizzle_code",
           "FIELD_LIMIT"]

FIELD_LIMIT = 1 << 18  # start, LBO and SBO are 14-bit fields of 16-byte units

_DESC_SWIZZLE_CODE = {
    SwizzleMode.NONE: 0,
    SwizzleMode.B128_BASE32B: 1,
    SwizzleMode.B128: 2,
    SwizzleMode.B64: 4,
    SwizzleMode.B32: 6,
}
# sm_90 has no 128B_base32B mode
_WGMMA_SWIZZLE_CODE = {SwizzleMode.NONE: 0, SwizzleMode.B128: 1, SwizzleMode.B64: 2, SwizzleMode.B32: 3}


def desc_swizzle_code(mode: SwizzleMode) -> int:
    """The 3-bit swizzle field [61, 64) of the tcgen05 shared-memory descriptor."""
    return _DESC_SWIZZLE_CODE[mode]


def wgmma_swizzle_code(mode: SwizzleMode) -> int | None:
    """The 2-bit swizzle field [62, 64) of the sm_90 matrix descriptor (None: sm_90 has no such mode)."""
    return _WGMMA_SWIZZLE_CODE.get(mode)


def _encode_field(name: str, x: int) -> int:
    if not 0 <= x < FIELD_LIMIT or x % 16:
        raise ValueError(f"descriptor {name} {x} must be a 16-byte multiple in [0, 2^18)")
    return (x & 0x3FFFF) >> 4


def _fields(start_bytes: int, lbo_bytes: int, sbo_bytes: int) -> int:
    return (_encode_field("start", start_bytes)
            | _encode_field("LBO", lbo_bytes) << 16
            | _encode_field("SBO", sbo_bytes) << 32)


def encode_smem_desc(start_bytes: int, lbo_bytes: int, sbo_bytes: int, swizzle_mode: SwizzleMode) -> int:
    """The tcgen05 descriptor: start [0,14), LBO [16,30), SBO [32,46), bit 46 = 1, base offset 0,
    LBO mode (bit 52) 0, swizzle [61,64)."""
    return _fields(start_bytes, lbo_bytes, sbo_bytes) | 1 << 46 | desc_swizzle_code(swizzle_mode) << 61


def encode_wgmma_desc(start_bytes: int, lbo_bytes: int, sbo_bytes: int, swizzle_mode: SwizzleMode) -> int:
    """The sm_90 wgmma descriptor: the same start/LBO/SBO fields, bits 46-61 zero (no fixed 0b001, no LBO
    mode), base offset 0, 2-bit swizzle [62,64)."""
    code = wgmma_swizzle_code(swizzle_mode)
    if code is None:
        raise ValueError(f"sm_90 matrix descriptors have no {swizzle_mode.value} swizzle")
    return _fields(start_bytes, lbo_bytes, sbo_bytes) | code << 62
