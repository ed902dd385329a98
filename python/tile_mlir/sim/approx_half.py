"""Bit-exact models of the 16-bit PTX ``.approx`` forms as an sm_90 GPU executes them: ex2.approx.f16,
ex2.approx.ftz.bf16, tanh.approx.f16, tanh.approx.bf16 and their packed x2 forms, which are the scalar
form on each half (docs/emulator.md §14).

ex2 is the f32 unit's 2^x (:func:`.approx_math.mufu_ex2`, exact on every f16/bf16 input) truncated
to the 16-bit format (towards zero; f16 results past the largest finite become inf). tanh's 16-bit
forms are measured tables over all 2^16 inputs. Bit patterns in and out, array module ``xp``.
"""

from __future__ import annotations

import numpy as np

from .approx_math import mufu_ex2, quiet
from .approx_tables import table


def _f32_to_f16_rz(y, xp):
    """f32 bits -> f16 bits, rounded towards zero, |y| >= 2^16 -> inf, NaN -> 0x7fff."""
    with quiet(xp):
        v = y.astype(xp.uint32).view(xp.float32)
        r = v.astype(xp.float16)
        rb = r.view(xp.uint16).astype(xp.int32)
        over = xp.abs(r.astype(xp.float32)) > xp.abs(v)
        rb = xp.where(over, rb - 1, rb)
        rb = xp.where(xp.abs(v) >= 65536.0, (rb & 0x8000) | 0x7C00, rb)
        return xp.where(xp.isnan(v), 0x7FFF, rb).astype(xp.uint16)


def ex2_f16(h, xp=np):
    x = h.astype(xp.uint16).view(xp.float16).astype(xp.float32).view(xp.uint32)
    return _f32_to_f16_rz(mufu_ex2(x, xp), xp)


def ex2_bf16(h, xp=np):
    """ex2.approx.ftz.bf16: a bf16 is the upper half of an f32; the result truncated to its upper half."""
    return (mufu_ex2(h.astype(xp.uint32) << 16, xp) >> 16).astype(xp.uint16)


def tanh_f16(h, xp=np):
    return table("tanh_f16", xp)[h.astype(xp.int64)]


def tanh_bf16(h, xp=np):
    return table("tanh_bf16", xp)[h.astype(xp.int64)]


def packed(fn):
    """The x2 form of a scalar 16-bit model: lane 0 in bits 0-15, lane 1 in bits 16-31."""
    def f(a, xp=np):
        a = a.astype(xp.uint32)
        lo = fn((a & 0xFFFF).astype(xp.uint16), xp).astype(xp.uint32)
        hi = fn((a >> 16).astype(xp.uint16), xp).astype(xp.uint32)
        return lo | (hi << 16)
    return f


MODELS = {
    "ex2.approx.f16": ex2_f16, "ex2.approx.ftz.bf16": ex2_bf16,
    "tanh.approx.f16": tanh_f16, "tanh.approx.bf16": tanh_bf16,
    "ex2.approx.f16x2": packed(ex2_f16), "ex2.approx.ftz.bf16x2": packed(ex2_bf16),
    "tanh.approx.f16x2": packed(tanh_f16), "tanh.approx.bf16x2": packed(tanh_bf16),
}
