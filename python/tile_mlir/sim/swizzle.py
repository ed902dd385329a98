"""Shared-memory swizzle functions, written from the PTX ISA (tcgen05 "Shared memory descriptor"
swizzle modes and the canonical layouts of "Matrix descriptors").

A swizzle permutes the 16-byte chunks of the *absolute* ``.shared::cta`` byte address: inside one
repeat of the pattern, the chunk index (address bits 4..) is XORed with the row index within the
8-row group (address bits 7..).  Mode codes are the descriptor's bits 61..63:

    0 none          identity
    6 32B           bit 4      ^= bit 7          repeat 256 B
    4 64B           bits 4..5  ^= bits 7..8      repeat 512 B
    2 128B          bits 4..6  ^= bits 7..9      repeat 1024 B
    1 128B_base32B  bits 5..6  ^= bits 7..8      (32-byte granules; MN-major MMA only)

This module deliberately depends on nothing else in tile_mlir (see docs/emulator.md §2, the
independence rule; the oracles are docs/design.md §7).
"""

from __future__ import annotations

import numpy as np

SWIZZLE_NONE = 0
SWIZZLE_128B_BASE32B = 1
SWIZZLE_128B = 2
SWIZZLE_64B = 4
SWIZZLE_32B = 6

#: mode -> human readable name
MODE_NAMES = {0: "none", 1: "128B_base32B", 2: "128B", 4: "64B", 6: "32B"}
#: mode -> row pitch inside an 8-row group (bytes), K-major canonical layout
ROW_PITCH = {0: 16, 6: 32, 4: 64, 2: 128}
#: mode -> repeat of the pattern (bytes); a swizzled buffer must start on this boundary
REPEAT = {0: 16, 6: 256, 4: 512, 2: 1024, 1: 512}
# mode -> mask of the row bits (address bits 7..) that are XORed into the chunk bits
_ROWMASK = {0: 0, 6: 1, 4: 3, 2: 7}


def swizzle(addr: int, mode: int) -> int:
    """Physical byte address of logical byte address ``addr`` under descriptor swizzle ``mode``."""
    if mode == SWIZZLE_128B_BASE32B:
        return addr ^ (((addr >> 7) & 3) << 5)
    m = _ROWMASK.get(mode)
    if m is None:
        raise ValueError(f"invalid swizzle mode {mode}")
    return addr ^ (((addr >> 7) & m) << 4)


def swizzle_np(addr: np.ndarray, mode: int) -> np.ndarray:
    """Vectorised :func:`swizzle` on an integer array."""
    if mode == SWIZZLE_128B_BASE32B:
        return addr ^ (((addr >> 7) & 3) << 5)
    m = _ROWMASK[mode]
    return addr ^ (((addr >> 7) & m) << 4)

