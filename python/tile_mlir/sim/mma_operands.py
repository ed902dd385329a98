"""Where each element of an MMA operand lies in shared memory: the canonical layouts of the PTX
ISA, read through a matrix descriptor's start address, LBO, SBO and swizzle mode (wgmma "Shared
Memory Matrix Layout" §9.7.15.5.1.2 and tcgen05 "Canonical Layouts" §9.7.16.3.3, the same tables),
written from those tables alone (docs/emulator.md §2, the independence rule).

Elements are normalised to 128-bit units: T = 128 / element bits elements per 16-byte unit.  With
r the M (or N) index and k the K index of an operand of R x K elements, in CuTe notation:

    K-major,  no swizzle   ((8,m),(T,2k)) : ((1T,SBO),(1,LBO))
    K-major,  S-byte swz   ((8,m),(T,2k)) : ((S/16·T,SBO),(1,T))        (LBO unused)
    MN-major, no swizzle   ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
    MN-major, S-byte swz   ((T,S/16,m),(8,k)) : ((1,T,LBO),(S/16·T,SBO))

in elements, then the swizzle of the *absolute* shared address (swizzle.py; docs/emulator.md A30).
The 128-byte swizzle with 32-byte atomicity (tcgen05 mode 1) has the 128-byte layout with its own
swizzle function.
"""

from __future__ import annotations

import numpy as np

from .swizzle import swizzle_np

#: swizzle mode code -> the width S in bytes of one swizzled row (None: no swizzle)
SWIZZLE_WIDTH = {0: None, 6: 32, 4: 64, 2: 128, 1: 128}


def element_bits_offsets(rows: int, cols: int, elem_bits: int, k_major: bool, lbo: int, sbo: int,
                         mode: int) -> np.ndarray:
    """(rows, cols) bit offsets, from the start address and before the swizzle, of element (r, k)
    of an operand with ``elem_bits``-bit elements (4, 8, 16 or 32); LBO and SBO in bytes."""
    T = 128 // elem_bits
    r = np.arange(rows, dtype=np.int64)[:, None]
    k = np.arange(cols, dtype=np.int64)[None, :]
    S = SWIZZLE_WIDTH[mode]
    if k_major:
        if S is None:
            return (r % 8) * 128 + (r // 8) * sbo * 8 + (k % T) * elem_bits + (k // T) * lbo * 8
        return (r % 8) * S * 8 + (r // 8) * sbo * 8 + k * elem_bits
    if S is None:
        return (r % T) * elem_bits + (r // T) * sbo * 8 + (k % 8) * 128 + (k // 8) * lbo * 8
    run = T * (S // 16)  # elements of one swizzled row along MN
    return (r % run) * elem_bits + (r // run) * lbo * 8 + (k % 8) * S * 8 + (k // 8) * sbo * 8


def element_addresses(start: int, rows: int, cols: int, elem_bits: int, k_major: bool, lbo: int,
                      sbo: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
    """(physical byte address, bit position inside that byte) of every element (r, k)."""
    off = element_bits_offsets(rows, cols, elem_bits, k_major, lbo, sbo, mode)
    return swizzle_np(start + (off >> 3), mode), off & 7


def gather(buf: np.ndarray, addr: np.ndarray, bit: np.ndarray, elem_bits: int) -> np.ndarray:
    """The elements' bit patterns (uint32) from the byte array ``buf``: little-endian bytes for
    8/16/32-bit elements, a nibble at its bit position for 4-bit ones."""
    if elem_bits == 4:
        return ((buf[addr].astype(np.uint32) >> bit.astype(np.uint32)) & 0xF)
    if elem_bits == 8:
        return buf[addr].astype(np.uint32)
    v = np.zeros(addr.shape, dtype=np.uint32)
    for j in range(elem_bits // 8):
        v |= buf[addr + j].astype(np.uint32) << np.uint32(8 * j)
    return v


def byte_span(addr: np.ndarray, elem_bits: int) -> tuple[int, int]:
    """[lo, hi) shared bytes the elements occupy."""
    return int(addr.min()), int(addr.max()) + max(elem_bits // 8, 1)
