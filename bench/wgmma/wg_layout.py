"""Shared-memory images of wgmma operands and their sm_90 matrix descriptors, written for the
campaign straight from the PTX ISA tables (§9.7.15.5.1.2 "Shared Memory Matrix Layout": canonical
layouts in CuTe notation, LBO/SBO definitions; "Matrix Descriptor Format"), by evaluating the CuTe
layouts literally -- on purpose a different implementation from tile-sim's reader
(sim/mma_operands.py) and from our lowering, so that a shared misreading shows up on the H200.

An operand is R x K elements (R = M for A, N for B), K-major or MN-major, with a swizzle of
0 (none), 32, 64 or 128 bytes and an arrangement of its repeats ("mn" first or "k" first).
"""

from __future__ import annotations

import numpy as np

#: swizzle bytes -> the sm_90 descriptor's 2-bit code (bits 62..63)
SWIZZLE_CODE = {0: 0, 128: 1, 64: 2, 32: 3}


def cute_offset(coord, shape, stride) -> int:
    """A hierarchical CuTe layout evaluated at a (hierarchical) coordinate given as one int per
    top mode: each int is split colexicographically over the mode's sub-shape."""
    off = 0
    for c, shp, st in zip(coord, shape, stride):
        shp = shp if isinstance(shp, tuple) else (shp,)
        st = st if isinstance(st, tuple) else (st,)
        for s_, d_ in zip(shp, st):
            off += (c % s_) * d_
            c //= s_
    return off


def cute_swizzle(addr: int, b: int) -> int:
    """CuTe Swizzle<B,4,3>: bits [7, 7+B) XORed onto bits [4, 4+B)."""
    return addr ^ ((addr & (((1 << b) - 1) << 7)) >> 3)


class Operand:
    """Placement of one operand: ``lbo``/``sbo`` in bytes, ``size`` bytes of its region, and the
    CuTe layout (in elements) with its swizzle."""

    def __init__(self, rows: int, k: int, elem_bytes: int, major: str, swizzle: int, arr: str,
                 koff: int = 0):
        self.rows, self.k, self.eb, self.major, self.sw, self.arr = rows, k, elem_bytes, major, \
            swizzle, arr
        T = 16 // elem_bytes  # elements per 16 bytes
        kb = k * elem_bytes  # 32 bytes for every wgmma kind
        if major == "K":
            self.koff = koff  # byte offset of the K slice inside a swizzled row
            if swizzle == 0:
                cm = 128  # one 8 x 16-byte core matrix
                lbo, sbo = (cm, 2 * cm) if arr == "k" else ((rows // 8) * cm, cm)
                shape, stride = ((8, rows // 8), (T, 2)), ((T, sbo // elem_bytes),
                                                            (1, lbo // elem_bytes))
                self.size = max(lbo * 2, sbo * (rows // 8))
            else:
                lbo, sbo = 16, 8 * swizzle
                W = swizzle // 16
                shape, stride = ((8, rows // 8), (T, kb // 16)), ((W * T, sbo // elem_bytes),
                                                                   (1, T))
                self.size = sbo * (rows // 8)
        else:
            self.koff = 0
            kg = k // 8  # groups of 8 K rows
            if swizzle == 0:
                cm = 128  # T elements along MN x 8 K rows
                nb = -(-rows // T)
                sbo, lbo = (cm, nb * cm) if arr == "mn" else (kg * cm, cm)
                shape, stride = ((T, 1, nb), (8, kg)), ((1, T, sbo // elem_bytes),
                                                        (T, lbo // elem_bytes))
                self.size = max(sbo * nb, lbo * kg)
            else:
                W = swizzle // 16
                atom = 8 * swizzle
                na = -(-rows // (T * W))
                lbo, sbo = (atom, na * atom) if arr == "mn" else (kg * atom, atom)
                shape, stride = ((T, W, na), (8, kg)), ((1, T, lbo // elem_bytes),
                                                        (W * T, sbo // elem_bytes))
                self.size = max(lbo * na, sbo * kg)
        self.lbo, self.sbo = lbo, sbo
        self.shape, self.stride = shape, stride
        self.size = -(-self.size // 1024) * 1024

    def byte_address(self, base: int, r: int, k: int) -> int:
        """Physical shared byte address of element (r, k) for an operand region at ``base``
        (1024-aligned, so relative and absolute swizzle phases agree)."""
        lin = base + self.koff + cute_offset((r, k), self.shape, self.stride) * self.eb
        return cute_swizzle(lin, {0: 0, 32: 1, 64: 2, 128: 3}[self.sw])

    def place(self, image: np.ndarray, base: int, bits: np.ndarray):
        """Write the R x K element bit patterns into ``image`` (uint8, the whole shared memory)."""
        for r in range(self.rows):
            for k in range(self.k):
                a = self.byte_address(base, r, k)
                v = int(bits[r, k])
                for j in range(self.eb):
                    image[a + j] = (v >> (8 * j)) & 0xFF

    def descriptor_hi(self) -> int:
        """The descriptor without its start address: LBO, SBO, swizzle (base offset 0)."""
        return ((self.lbo >> 4) & 0x3FFF) << 16 | ((self.sbo >> 4) & 0x3FFF) << 32 | \
            SWIZZLE_CODE[self.sw] << 62
