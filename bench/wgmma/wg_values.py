"""Deterministic operand values for the wgmma campaign, from a counter-based splitmix64 stream in
plain uint64 arithmetic, so the GPU runner, the generator and the replay test rebuild the same
inputs from a case's seed with any numpy version (no numpy distributions are used).

A value *mode* picks the distribution of one operand: ``normal`` (moderate exponents), ``wide``
(every exponent, subnormals included), ``special`` (zeros of both signs, subnormals, infinities,
NaNs among normal values), ``cancel`` (large magnitudes whose products cancel pairwise along K)
and ``raw`` (uniformly random bit patterns).  Values are bit patterns (uint32)."""

from __future__ import annotations

import numpy as np

MODES = ("normal", "wide", "special", "cancel", "raw")

_M64 = np.uint64(0xFFFF_FFFF_FFFF_FFFF)

#: format -> (exponent bits, mantissa bits, has infinity): IEEE-style layouts, sign on top
FORMATS = {"f32": (8, 23, True), "tf32": (8, 23, True), "f16": (5, 10, True),
           "bf16": (8, 7, True), "e4m3": (4, 3, False), "e5m2": (5, 2, True)}


def stream(seed: int, n: int) -> np.ndarray:
    """n uint64 words: splitmix64 of seed * 2^32 + i."""
    with np.errstate(over="ignore"):
        x = (np.uint64(seed & 0xFFFF_FFFF) << np.uint64(32)) + np.arange(n, dtype=np.uint64)
        z = x * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E5D1)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _field(z, lo, bits):
    return ((z >> np.uint64(lo)) & np.uint64((1 << bits) - 1)).astype(np.int64)


def float_bits(fmt: str, mode: str, seed: int, shape) -> np.ndarray:
    eb, mb, has_inf = FORMATS[fmt]
    n = int(np.prod(shape))
    z = stream(seed, n)
    bias = (1 << (eb - 1)) - 1
    emax = (1 << eb) - 1
    sign = _field(z, 63, 1)
    mant = _field(z, 0, mb)
    if mode == "raw":
        bits = _field(z, 0, 1 + eb + mb)
        return bits.astype(np.uint32).reshape(shape)
    if mode == "normal":  # exponents bias-3 .. bias+3
        exp = bias - 3 + _field(z, 40, 3) % 7
    else:  # wide, special, cancel: every finite exponent incl. 0 (subnormal)
        exp = _field(z, 40, 16) % (emax if has_inf else emax + 1)
        if not has_inf:  # e4m3: exponent 15 with mantissa 7 is NaN: keep those finite
            mant = np.where((exp == emax) & (mant == (1 << mb) - 1), mant - 1, mant)
    if mode == "cancel":
        exp = np.maximum(exp, emax - 4 if has_inf else emax - 3)
        if not has_inf:
            mant = np.where((exp == emax) & (mant == (1 << mb) - 1), mant - 1, mant)
    if mode == "special":
        cat = _field(z, 20, 5)  # 0..31
        exp = np.where(cat < 2, 0, exp)  # zero / subnormal
        mant = np.where(cat == 0, 0, mant)
        if has_inf:
            exp = np.where(cat == 2, emax, exp)  # infinity
            mant = np.where(cat == 2, 0, mant)
            exp = np.where(cat == 3, emax, exp)  # NaN (non-zero mantissa)
            mant = np.where(cat == 3, mant | 1, mant)
        else:
            exp = np.where(cat == 3, emax, exp)  # e4m3 NaN: S.1111.111
            mant = np.where(cat == 3, (1 << mb) - 1, mant)
        exp = np.where((cat >= 4) & (cat < 8), 0, exp)  # more subnormals
    bits = (sign << (eb + mb)) | (exp << mb) | mant
    if mode == "cancel":  # element 2i+1 = -element 2i along the last axis, so products cancel
        b = bits.reshape(shape)
        b[..., 1::2] = b[..., 0::2] ^ (1 << (eb + mb))
        keep = _field(z, 8, 3).reshape(shape)[..., 1::2] == 0  # 1 in 8 pairs does not cancel
        b[..., 1::2] = np.where(keep, bits.reshape(shape)[..., 1::2], b[..., 1::2])
        bits = b
    if fmt == "tf32":  # random low 13 bits: the hardware ignores them
        bits = bits.reshape(-1) | _field(z, 32, 13)
    return bits.astype(np.uint32).reshape(shape)


def int8_bits(mode: str, seed: int, shape) -> np.ndarray:
    z = stream(seed, int(np.prod(shape)))
    if mode in ("special", "cancel"):  # the extremes -128, -1, 0, 127 often
        pick = _field(z, 8, 2)
        v = np.choose(pick, [np.full(z.shape, 0x80), np.full(z.shape, 0xFF),
                             np.full(z.shape, 0x00), np.full(z.shape, 0x7F)])
        return np.where(_field(z, 12, 1) == 1, v, _field(z, 0, 8)).astype(np.uint32).reshape(
            shape)
    return _field(z, 0, 8).astype(np.uint32).reshape(shape)


def s32_bits(mode: str, seed: int, shape) -> np.ndarray:
    z = stream(seed, int(np.prod(shape)))
    if mode in ("special", "cancel"):  # near the s32 limits, where the sum wraps or saturates
        v = np.where(_field(z, 40, 1) == 1, 0x7FFF_FF00, 0x8000_0100) + _field(z, 0, 8) - 128
        return (v & 0xFFFF_FFFF).astype(np.uint32).reshape(shape)
    return _field(z, 0, 32).astype(np.uint32).reshape(shape)


def operand(fmt: str, mode: str, seed: int, shape) -> np.ndarray:
    if fmt in ("s8", "u8"):
        return int8_bits(mode, seed, shape)
    if fmt == "s32":
        return s32_bits(mode, seed, shape)
    return float_bits(fmt, mode, seed, shape)


def junk(seed: int, nbytes: int) -> np.ndarray:
    """Random bytes for the parts of shared memory no operand occupies."""
    return (stream(seed, nbytes) >> np.uint64(56)).astype(np.uint8)
