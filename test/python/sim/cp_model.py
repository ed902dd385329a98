"""An independent numpy model of tcgen05.cp, written from the tables of docs/tcgen05.md
(§5 swizzle modes, §6 address formula, §7 lane table) -- not from tile_mlir.sim."""

import numpy as np

POISON = 0xDEADBEEF
PITCH = {0: 16, 6: 32, 4: 64, 2: 128}
SWZ_B = {0: 0, 6: 1, 4: 2, 2: 3}
SHAPE = {"128x256b": (128, 2), "128x128b": (128, 1), "4x256b": (4, 2), "64x128b": (64, 1),
         "32x128b": (32, 1)}


def cute_swizzle(x, B, M=4, S=3):
    """CuTe Swizzle<B,M,S>: x ^ ((x & (((1<<B)-1) << (M+S))) >> S)."""
    return x ^ ((x & (((1 << B) - 1) << (M + S))) >> S)


def make_desc(start, lbo, sbo, mode, base=0, lbo_mode=0, fixed=1):
    return ((start >> 4) & 0x3FFF) | ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 \
        | fixed << 46 | base << 49 | lbo_mode << 52 | mode << 61


def lanes_of(shape, mc, r, L0):
    if shape in ("128x256b", "128x128b"):
        return [L0 + r]
    if shape == "4x256b":
        return [L0 + 32 * r]
    if shape == "32x128b":
        return [L0 + r + 32 * k for k in range(4)]
    if mc == "warpx2::02_13":
        return [L0 + r, L0 + r + 64]
    if r < 32:
        return [L0 + r, L0 + r + 32]
    return [L0 + r + 32, L0 + r + 64]


def model_cp(smem, tmem, shape, mc, L0, C0, start, lbo, sbo, mode, decomp=None):
    rows, nch = SHAPE[shape]
    for r in range(rows):
        for c in range(nch):
            lin = start + (r // 8) * sbo + (r % 8) * PITCH[mode] + (c * lbo if mode == 0 else c * 16)
            a = cute_swizzle(lin, SWZ_B[mode])
            chunk = bytes(smem[a:a + 16])
            if decomp == "b4x16_p64":
                out = []
                for i in range(16):
                    byte = chunk[i // 2]
                    nib = (byte >> 4) if i % 2 else (byte & 0xF)
                    out.append(nib << 2)
                chunk = bytes(out)
            elif decomp == "b6x16_p32":  # 16 six-bit fields, low bits first; container bits [5, 0]
                word = int.from_bytes(chunk[:12], "little")
                chunk = bytes((word >> (6 * i)) & 0x3F for i in range(16))
            for lane in lanes_of(shape, mc, r, L0):
                for j in range(4):
                    tmem[lane, C0 + 4 * c + j] = int.from_bytes(chunk[4 * j:4 * j + 4], "little")
    return tmem
