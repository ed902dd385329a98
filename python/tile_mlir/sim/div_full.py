"""div.full.f32 and div.full.ftz.f32: the instruction sequence ptxas emits for them, expressed over
a model of MUFU.RCP passed in (the hardware reciprocal that rcp.approx.ftz.f32 compiles to).

The PTX ISA bounds div.full.f32 (2 ulp over the full range) but does not define its bits.  What
the hardware computes is what ptxas makes of it: ptxas 13.0 (the venv's nvidia package) compiles
``div.full.f32 d, a, b`` for sm_90a and for sm_100a to the same SASS (read with nvdisasm,
2026-12-07; ``rcp.approx.ftz.f32`` compiles to one ``MUFU.RCP`` on both)::

    FSETP.GT.AND  P0, |b|, 2^126          (a NaN compares false)
    FSETP.GEU.AND P1, |b|, 2^-126         (unordered: true)
    @P0  FMUL b, b, 0.25 ;  @P0  FMUL a, a, 0.25
    @!P1 FMUL b, b, 2^24 ;  @!P1 FMUL a, a, 2^24
    MUFU.RCP r, b
    FMUL d, r, a

and ``div.full.ftz.f32`` to the same with ``.FTZ`` on the compare and every FMUL and without the
P1 scaling (a subnormal divisor is flushed; MUFU.RCP of it is an infinity).  The scalings keep
MUFU.RCP's input and output normal, so its flush of subnormals never applies in the full form.
FMUL is ``mul.rn.f32`` (``.ftz``), fpexact.mul.

Unverified (tile-sim alone): that the driver's JIT and other ptxas versions emit this sequence,
and the whole of it against the hardware (an H200 comparison over all inputs settles it once
the reciprocal's model is measured: sim-approx's rcp.approx.ftz.f32).  Not wired to the decoder
here: ``div.full.f32`` stays refused by name until that model is merged, when
``div_full_f32(a, b, rcp_approx_ftz, ftz)`` is its semantics (docs/emulator.md §12.8).
"""

from __future__ import annotations

from typing import Callable

from .fpexact import Spec, mul
from .fpformat import F32

TWO_126 = 0x7E800000  # 2^126: larger divisors are scaled by 1/4, so 1/b stays normal
MIN_NORMAL = 0x00800000  # 2^-126: smaller divisors are scaled by 2^24 (not in the .ftz form)
QUARTER = 0x3E800000  # 0.25
TWO_24 = 0x4B800000  # 2^24
_RN, _RN_FTZ = Spec(F32, "rn"), Spec(F32, "rn", ftz=True)


def div_full_f32(a: int, b: int, rcp: Callable[[int], int], ftz: bool = False) -> int:
    """The bits of ``div.full{.ftz}.f32 d, a, b`` for f32 bit patterns ``a`` and ``b``, with
    ``rcp`` the bits of MUFU.RCP (rcp.approx.ftz.f32) of a bit pattern."""
    s = _RN_FTZ if ftz else _RN
    mag = b & 0x7FFFFFFF
    if MIN_NORMAL <= mag <= 0x7F800000 and mag > TWO_126:  # |b| > 2^126, not NaN
        a, b = mul(a, QUARTER, s), mul(b, QUARTER, s)
    elif not ftz and mag < MIN_NORMAL:  # |b| < 2^-126: zero or subnormal
        a, b = mul(a, TWO_24, s), mul(b, TWO_24, s)
    return mul(rcp(b), a, s)
